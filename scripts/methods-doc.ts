/**
 * Renders docs/methods.md, the method reference, from the contract's method table: the
 * runtime table (gating, inert params, streaming, CLI verb, summary) and, read from the
 * source with the TypeScript parser, each method's params and result types and the types
 * they name. Written by scripts/gen-methods-doc.mjs; test/unit/method-table.test.ts fails
 * when the file on disk differs from what this renders.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { ERROR_CODES, HOOK_METHODS, METHOD_TABLE, METHODS, type MethodEntry, type MethodName } from '../src/contract/protocol.js';

/** The files whose declarations the reference prints, relative to the repository root. */
const SOURCES = ['src/contract/methods.ts', 'src/contract/objects.ts'] as const;

/** Declarations of methods.ts that are machinery, not shapes a caller reads. */
const NOT_SHAPES = new Set(['MethodParams', 'MethodResults', 'MethodSpec', 'MethodEntry', 'MethodCaller', 'MethodWithoutRequiredParams', 'MethodName', 'MethodShapesMatchTable', 'Exactly', 'HookMethod']);

const GATING_MEANING: Record<MethodEntry['gated'], string> = {
  read: 'touches no pane input; always allowed',
  never: 'allowed with the gate closed; its caller text must be inert',
  'when-submitting': 'gated only when `submit` is true',
  'when-command': 'gated only when `kind` is `generic` (the caller names the command)',
  'when-raising': 'setting or lowering is allowed; raising or clearing needs the gate (SPEC §18)',
  always: 'submits input: refused with `scripting_disabled` while the gate is closed',
  'by-peer': 'allowed; the calling process\'s place (kernel peer credentials) decides what it may do (SPEC §8)',
};

interface Parsed {
  params: Map<string, string>;
  results: Map<string, string>;
  /** Type declarations in source order: name and printed text with its doc comment. */
  shapes: { name: string; text: string }[];
}

/** One line: the type as written, whitespace collapsed. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The members of `interface <name>` as method → type text. */
function membersOf(node: ts.InterfaceDeclaration, file: ts.SourceFile): Map<string, string> {
  const members = new Map<string, string>();
  for (const member of node.members) {
    if (!ts.isPropertySignature(member) || !member.type) continue;
    const name = ts.isStringLiteral(member.name) ? member.name.text : member.name.getText(file);
    members.set(name, oneLine(member.type.getText(file)));
  }
  return members;
}

/** The declaration's text with its leading doc comment, as written in the source. */
function withDoc(node: ts.Node, file: ts.SourceFile): string {
  const docs = (ts.getLeadingCommentRanges(file.text, node.getFullStart()) ?? []).filter((range) => file.text.startsWith('/**', range.pos));
  const doc = docs.at(-1);
  return `${doc ? `${file.text.slice(doc.pos, doc.end)}\n` : ''}${node.getText(file)}`;
}

function parse(root: string): Parsed {
  const parsed: Parsed = { params: new Map(), results: new Map(), shapes: [] };
  for (const relative of SOURCES) {
    const file = ts.createSourceFile(relative, readFileSync(path.join(root, relative), 'utf8'), ts.ScriptTarget.ES2022, true);
    for (const node of file.statements) {
      if (ts.isInterfaceDeclaration(node) && node.name.text === 'MethodParams') parsed.params = membersOf(node, file);
      else if (ts.isInterfaceDeclaration(node) && node.name.text === 'MethodResults') parsed.results = membersOf(node, file);
      else if ((ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) && !NOT_SHAPES.has(node.name.text)) {
        parsed.shapes.push({ name: node.name.text, text: withDoc(node, file) });
      }
    }
  }
  return parsed;
}

/** Markdown table cells must not break the row. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function methodSection(method: MethodName, parsed: Parsed): string {
  const entry: MethodEntry = METHOD_TABLE[method];
  const facts = [
    `gating: \`${entry.gated}\` (${GATING_MEANING[entry.gated]})`,
    ...(entry.inert ? [`inert while the gate is closed: ${entry.inert.map((p) => `\`${p}\``).join(', ')}`] : []),
    ...(entry.words ? [`shell words, printable characters only: ${entry.words.map((p) => `\`${p}\``).join(', ')}`] : []),
    ...(entry.streams ? ['streams: the reply is followed by `events.event` notifications on the same connection'] : []),
    `CLI: ${entry.cli === null ? 'none (scripts only)' : `\`corral ${entry.cli}\``}`,
  ];
  return [
    `### \`${method}\``,
    '',
    entry.summary,
    '',
    ...facts.map((fact) => `- ${fact}`),
    '',
    '```ts',
    `params: ${parsed.params.get(method) ?? '?'}`,
    `result: ${parsed.results.get(method) ?? '?'}`,
    '```',
  ].join('\n');
}

/** The whole of docs/methods.md. */
export function renderMethodsDoc(root: string): string {
  const parsed = parse(root);
  const groups = [...new Set(METHODS.map((method) => method.split('.')[0]!))];
  const lines = [
    '# Method reference',
    '',
    '<!-- Generated from src/contract/methods.ts by `node scripts/gen-methods-doc.mjs`; do not edit by hand.',
    '     test/unit/method-table.test.ts fails when this file is out of date. -->',
    '',
    'Every method the server answers over its socket (newline-delimited JSON-RPC 2.0, SPEC §3),',
    'from the one method table in `src/contract/methods.ts`. The same table gives the server its',
    "handlers, the scripting gate its rules (docs/security.md), the typed client its types and",
    '`system.capabilities` its list. Errors carry a stable `data.code` (SPEC §3), one of',
    `${ERROR_CODES.map((code) => `\`${code}\``).join(', ')}.`,
    '`pane_input_full` comes from every method that writes to a pane whose program has stopped reading',
    'and already holds its bound of queued input (8 MiB, docs/terminal.md "Input"): nothing was sent.',
    '',
    '| method | gating | CLI | what it does |',
    '|---|---|---|---|',
    ...METHODS.map((method) => {
      const entry: MethodEntry = METHOD_TABLE[method];
      return `| [\`${method}\`](#${method.replace(/[._]/g, (c) => (c === '.' ? '' : '_'))}) | ${entry.gated} | ${entry.cli === null ? '–' : `\`${entry.cli}\``} | ${cell(entry.summary)} |`;
    }),
    '',
    `Hook notifications (\`corral hook\` in a pane, SPEC §4), no reply, gating \`read\`: ${HOOK_METHODS.map((m) => `\`${m}\``).join(', ')}.`,
    '',
  ];
  for (const group of groups) {
    lines.push(`## ${group}`, '');
    for (const method of METHODS.filter((m) => m.split('.')[0] === group)) lines.push(methodSection(method, parsed), '');
  }
  lines.push('## Types', '', 'The shapes the params and results above name, as declared in `src/contract/`.', '');
  for (const shape of parsed.shapes) lines.push('```ts', shape.text, '```', '');
  return `${lines.join('\n').trimEnd()}\n`;
}
