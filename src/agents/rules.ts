/**
 * Screen-rule engine (SPEC §4 "Screen"): loads the per-kind rule files from
 * `assets/agents/`, decides an agent's status from a screen snapshot, and explains why.
 * Evaluation runs on every settled screen change of every agent pane, so rules are compiled
 * at load and a verdict costs a few string scans.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-root.js';
import { contentEnd, type ScreenSnapshot } from './screen-snapshot.js';
import { parseRules, RULE_DEFAULTS, type AgentRules, type Rule, type ScreenStatus } from './rules-schema.js';

export { parseRules, parseRegion, resumeArgs, RuleFileError, RULE_DEFAULTS } from './rules-schema.js';
export type { AgentRules, MessageSource, OptionArity, ResumeSpec, SessionFileSpec, Rule, RuleFileIssue, RuleRegion, ScreenStatus } from './rules-schema.js';
export type { ScreenSnapshot } from './screen-snapshot.js';

/** The outcome of evaluating one agent's rules against one snapshot. */
export interface RuleVerdict {
  status: ScreenStatus;
  /** The deciding rule; null when nothing matched (a known agent then counts as idle). */
  rule: Rule | null;
  /** The matched lines, each prefixed with its region (`bottom:6 row 40: esc to interrupt`). */
  evidence: string[];
  /** For blocked verdicts whose rule sets `message`: what the agent is asking; else null. */
  message: string | null;
}

const ENGINE_LIMITS = {
  /** A rule that matches many rows (a `screen` regex) proves its point with a few; explain stays readable. */
  maxEvidence: 8,
} as const;

/** Frame and rule characters agents draw around prompts; noise in a one-glance message. */
const FRAME_EDGES_RE = /^[\s\u2500-\u259f]+|[\s\u2500-\u259f]+$/gu;
/**
 * A line that opens a dialog: a horizontal rule or a box's top edge (Claude's `────`,
 * Gemini's `╭───`, half-block bars). Lines starting with `│` are inside a box, not above it.
 */
const BLOCK_TOP_RE = /^\s*[─━═╭┌╔▀▄]/u;

/** Where the rule files shipped with corral live (found from this module, in src/ or dist/). */
export function defaultRulesDir(): string {
  return path.join(packageRoot(), 'assets', 'agents');
}

/** How a rule file's path is shown in messages: package- or cwd-relative when possible. */
function shownPath(file: string): string {
  const abs = path.resolve(file);
  const bases: string[] = [];
  try {
    bases.push(packageRoot());
  } catch {
    // Not inside a corral checkout (e.g. a copied rules dir): cwd-relative or absolute will do.
  }
  bases.push(process.cwd());
  for (const base of bases) {
    const rel = path.relative(base, abs);
    if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel;
  }
  return abs;
}

/** Reads, parses and validates one rule file; throws RuleFileError naming file:line:key. */
export function loadRuleFile(file: string): AgentRules {
  return parseRules(readFileSync(file, 'utf8'), shownPath(file));
}

/** Every `*.toml` rule file in `dir`, by kind; throws on the first invalid file. */
export function loadAllRules(dir: string = defaultRulesDir()): Map<string, AgentRules> {
  const byKind = new Map<string, AgentRules>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.toml')).sort()) {
    const rules = loadRuleFile(path.join(dir, name));
    byKind.set(rules.kind, rules);
  }
  return byKind;
}

/** The kind of the kind-independent rule set (assets/agents/generic.toml). */
export const GENERIC_KIND = 'generic';

/**
 * Kinds corral is told to forget (`CORRAL_FORGET_KINDS=claude,codex`): their rule files —
 * screen rules, process facts, submit delay, hook format, resume data — are set aside, so each
 * runs as a CLI corral has never seen: an unknown program read with the generic rules. A
 * diagnostic switch, and how the live suite proves recognition on agents it has no rules for
 * (test/agents/unknown.live.test.ts, docs/agents-live.md). The generic set cannot be forgotten.
 */
export function forgottenKinds(env: NodeJS.ProcessEnv = process.env): ReadonlySet<string> {
  const names = (env.CORRAL_FORGET_KINDS ?? '').split(',').map((name) => name.trim());
  return new Set(names.filter((name) => name !== '' && name !== GENERIC_KIND));
}

/** `all` without the rule files of `kinds`. */
export function withoutKinds(all: ReadonlyMap<string, AgentRules>, kinds: ReadonlySet<string>): ReadonlyMap<string, AgentRules> {
  if (kinds.size === 0) return all;
  return new Map([...all].filter(([kind]) => !kinds.has(kind)));
}

let known: ReadonlyMap<string, AgentRules> | null = null;

/** The rule files corral knows: every shipped file but the forgotten kinds' (read once). */
export function knownRules(): ReadonlyMap<string, AgentRules> {
  known ??= withoutKinds(loadAllRules(), forgottenKinds());
  return known;
}

/**
 * The screen rules a server uses: the known kinds'. `CORRAL_AGENT_RULES=generic` sets every
 * kind's own rules aside, so each agent is read with the generic set alone (while still found
 * by its process): a diagnostic switch, and how the live suite proves the generic rules on the
 * real agents.
 */
export function rulesInUse(all: ReadonlyMap<string, AgentRules>, env: NodeJS.ProcessEnv = process.env): ReadonlyMap<string, AgentRules> {
  const kept = withoutKinds(all, forgottenKinds(env));
  if (env.CORRAL_AGENT_RULES !== GENERIC_KIND) return kept;
  const generic = kept.get(GENERIC_KIND);
  return new Map(generic ? [[GENERIC_KIND, generic]] : []);
}

/** The rows a rule may look at, as [start, end) indexes into `lines`, or null for title/progress. */
function rowRange(rule: Rule, end: number): [number, number] | null {
  switch (rule.region.kind) {
    case 'bottom':
      return [Math.max(0, end - rule.region.lines), end];
    case 'screen':
      return [0, end];
    default:
      return null;
  }
}

/** Evidence lines for `rule` on `snap`, or null when it does not match. */
function matchRule(rule: Rule, snap: ScreenSnapshot, end: number): string[] | null {
  if (rule.region.kind === 'title') return rule.test(snap.title) ? [`title: ${JSON.stringify(snap.title)}`] : null;
  if (rule.region.kind === 'progress') return rule.test(snap.progress) ? [`progress: ${JSON.stringify(snap.progress)}`] : null;
  const [start, stop] = rowRange(rule, end) ?? [0, 0];
  let evidence: string[] | null = null;
  for (let i = start; i < stop; i++) {
    const line = snap.lines[i];
    if (!rule.test(line)) continue;
    evidence ??= [];
    evidence.push(`${rule.regionText} row ${i + 1}: ${line.trim()}`);
    if (evidence.length >= ENGINE_LIMITS.maxEvidence) break;
  }
  return evidence;
}

/** A line as a message: trimmed of whitespace and the box-drawing frame around it. */
function cleanLine(line: string): string {
  return line.replace(FRAME_EDGES_RE, '');
}

function capMessage(text: string): string {
  return text.length <= RULE_DEFAULTS.maxMessageChars ? text : `${text.slice(0, RULE_DEFAULTS.maxMessageChars - 1)}…`;
}

/** The blocked message the rule asks for (null when it asks for none). */
function messageFor(rule: Rule, snap: ScreenSnapshot, end: number): string | null {
  if (rule.state !== 'blocked' || rule.message === null) return null;
  if (rule.region.kind === 'title') return capMessage(snap.title.trim());
  if (rule.region.kind === 'progress') return capMessage(snap.progress);
  const [start, stop] = rowRange(rule, end) ?? [0, 0];
  let from = start;
  if (rule.message !== 'region') {
    let hit = start;
    while (hit < stop && !rule.test(snap.lines[hit])) hit++;
    if (hit === stop) return null;
    if (rule.message === 'line') return capMessage(cleanLine(snap.lines[hit]));
    // The dialog starts below the nearest rule/frame top above the match; without one, at the match.
    let top = hit - 1;
    while (top >= start && !BLOCK_TOP_RE.test(snap.lines[top])) top--;
    from = top >= start ? top + 1 : hit;
  }
  const kept = snap.lines.slice(from, stop).map(cleanLine).filter((l) => l !== '');
  return kept.length === 0 ? null : capMessage(kept.join('\n'));
}

/** Highest-priority matching rule decides; no match means idle (SPEC §4). */
export function evaluateRules(rules: AgentRules, snap: ScreenSnapshot): RuleVerdict {
  const end = contentEnd(snap.lines);
  for (const rule of rules.rules) {
    const evidence = matchRule(rule, snap, end);
    if (evidence !== null) return { status: rule.state, rule, evidence, message: messageFor(rule, snap, end) };
  }
  return { status: 'idle', rule: null, evidence: [], message: null };
}

/** Every rule that matches `snap`, highest priority first, with its evidence. */
export function matchingRules(rules: AgentRules, snap: ScreenSnapshot): { rule: Rule; evidence: string[] }[] {
  const end = contentEnd(snap.lines);
  const out: { rule: Rule; evidence: string[] }[] = [];
  for (const rule of rules.rules) {
    const evidence = matchRule(rule, snap, end);
    if (evidence !== null) out.push({ rule, evidence });
  }
  return out;
}

/** How far a verdict from these rules can be trusted, in a few words. */
export function provenanceOf(rules: AgentRules): string {
  if (rules.generic) return 'generic rules: common agent idioms, not this agent\'s own';
  return rules.verifiedWith === null ? 'UNVERIFIED: guessed rules, never checked on this agent\'s screens' : `verified with ${rules.verifiedWith}`;
}

/** `verified`, `unverified` or `generic`: where a screen verdict's rules come from. */
export type RuleTrust = 'verified' | 'unverified' | 'generic';

export function ruleTrust(rules: AgentRules): RuleTrust {
  if (rules.generic) return 'generic';
  return rules.verifiedWith === null ? 'unverified' : 'verified';
}

function describeRule(rule: Rule): string {
  return `rule "${rule.id}" (${rule.file}:${rule.line}) → ${rule.state}, priority ${rule.priority}, region ${rule.regionText}, ${rule.pattern}`;
}

/** A human-readable account of the verdict: deciding rule, its evidence, and the runners-up. */
export function explain(rules: AgentRules, snap: ScreenSnapshot): string {
  const verdict = evaluateRules(rules, snap);
  const matches = matchingRules(rules, snap);
  const out: string[] = [];
  out.push(`kind: ${rules.kind} (${rules.file}; ${provenanceOf(rules)})`);
  if (rules.verifiedWith === null && rules.evidence !== null) out.push(`evidence: ${rules.evidence}`);
  out.push(`status: ${verdict.status}`);
  out.push(`title: ${snap.title === '' ? '(none)' : JSON.stringify(snap.title)}`);
  out.push(`progress: ${snap.progress === '' ? '(none)' : snap.progress}`);
  if (verdict.rule === null) {
    out.push(`decided by: no rule matched (${rules.rules.length} checked); a known agent with no match is idle`);
  } else {
    out.push(`decided by: ${describeRule(verdict.rule)}`);
    out.push('evidence:');
    for (const line of verdict.evidence) out.push(`  ${line}`);
    if (verdict.message !== null) {
      out.push('message:');
      for (const line of verdict.message.split('\n')) out.push(`  ${line}`);
    }
  }
  const runnersUp = matches.filter((m) => m.rule !== verdict.rule);
  if (runnersUp.length > 0) {
    out.push('also matched (lower priority or later in the file):');
    for (const m of runnersUp) {
      out.push(`  ${describeRule(m.rule)}`);
      for (const line of m.evidence) out.push(`    ${line}`);
    }
  }
  out.push(`idle confirmation window: ${rules.idleConfirmMs} ms`);
  return out.join('\n');
}

/** Alias of `explain`, under the name the agent registry imports. */
export const explainRules = explain;
