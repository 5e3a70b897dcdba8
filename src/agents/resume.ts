/**
 * The command line that resumes one agent's own session by id (SPEC §13).
 *
 * MINIMAL VERSION written by lane "persist" so restore can call it before lane "resume"
 * lands the verified per-kind forms: it takes `[resume] args` from the kind's rule file
 * (assets/agents/*.toml, e.g. Claude Code `--resume {id}`, Codex `resume {id}`), puts them
 * right after the program, keeps the agent's other flags (model, permission mode…) and drops
 * an earlier resume of another session. Lane "resume" owns this file: replace freely.
 */
import { loadAllRules } from './rules.js';
import type { AgentRules } from './rules-schema.js';

let cached: ReadonlyMap<string, AgentRules> | null = null;

function allRules(): ReadonlyMap<string, AgentRules> {
  cached ??= loadAllRules();
  return cached;
}

/** Interpreters whose first operand is the agent's own script (`node /usr/lib/…/claude`). */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3']);

function baseName(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}

/**
 * The argv that resumes session `sessionId` of an agent of `kind` started as `argv`, or null
 * when the kind cannot resume by id (no `[resume]` in its rule file), the id is unknown or
 * the argv is empty.
 */
export function resumeArgv(
  kind: string,
  sessionId: string | null,
  argv: readonly string[],
  rules: ReadonlyMap<string, AgentRules> = allRules(),
): string[] | null {
  const spec = rules.get(kind)?.resume;
  if (!spec || !sessionId || argv.length === 0) return null;
  // The program as a person would type it: the script, not the interpreter running it.
  const start = INTERPRETERS.has(baseName(argv[0]!)) && argv.length > 1 ? 1 : 0;
  const program = argv[start]!;
  const rest = argv.slice(start + 1);
  const resume = spec.args.map((arg) => arg.replace('{id}', sessionId));
  // Drop an earlier `--resume <old>` (or `resume <old>`): one session per agent, this one.
  const first = spec.args[0];
  const kept: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    if (first !== undefined && rest[i] === first && spec.args.length === 2) {
      i++;
      continue;
    }
    kept.push(rest[i]!);
  }
  return [program, ...resume, ...kept];
}
