/**
 * The command line that resumes one agent's own session (SPEC §13): its kind's `[resume]`
 * arguments with the session id, plus the flags it was started with (model, permission
 * mode…), minus whatever would pick another session or send the first prompt again.
 *
 * Pure, driven by the kind's rule file: `value_options` tells an option's value from a
 * prompt, `drop_options` names what conflicts with resuming, `keep_positionals` keeps
 * positional words that are not a prompt (Kilo's project directory). Per kind:
 * - claude `--resume <id>`: drops -r/--resume, -c/--continue, --session-id, --fork-session,
 *   --from-pr, -p/--print and the positional prompt.
 * - codex `resume <id>` (a subcommand, so it goes right after the program): drops an earlier
 *   `resume <id>` (positionals), --last, --all, -i/--image (attachments of the first prompt).
 * - gemini, qwen `--resume <id>`: drop -r/--resume, --session-id, -p/--prompt,
 *   -i/--prompt-interactive (which sends its prompt at start), qwen's -c/--continue and
 *   --fork-session, Gemini's --session-file/--list-sessions/--delete-session.
 * - pi `--session <id>`: drops -c/--continue, -r/--resume, --session, --fork, --no-session,
 *   -p/--print, and positional messages and @files (they go into the first message).
 * - kilo `--session <id>`: drops -c/--continue, -s/--session, --fork, --cloud-fork,
 *   --prompt; keeps its positional project directory.
 * Words after `--` are positional. An unknown option is kept as one word (its value, if it
 * has one and is written apart, is then taken for a positional).
 */
import { canonicalExecutable } from './kind-facts.js';
import { detectKind } from './process-detect.js';
import { knownRules, resumeArgs, type AgentRules, type ResumeSpec } from './rules.js';

/**
 * An id fit to be one argv word: no option look-alike (a leading `-`), no control characters,
 * no spaces. It comes from hook payloads and files a pane's programs can write.
 */
const SESSION_ID_RE = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function isValidSessionId(id: string): boolean {
  return SESSION_ID_RE.test(id);
}

/** The kind's resume data, or null when it cannot resume a session by id. */
export function resumeSpec(kind: string, rules: ReadonlyMap<string, AgentRules> = knownRules()): ResumeSpec | null {
  return rules.get(kind)?.resume ?? null;
}

/**
 * The argv (program first) that resumes session `sessionId` of a `kind` agent started with
 * `argv` (what `agent start` typed, or the process's argv); null for a kind with no resume by
 * id, or an id that is missing or not a plain word.
 */
export function resumeArgv(kind: string, sessionId: string | null | undefined, argv: readonly string[], rules?: ReadonlyMap<string, AgentRules>): string[] | null {
  const spec = resumeSpec(kind, rules);
  if (!spec || !sessionId || !isValidSessionId(sessionId)) return null;
  // No argv known (a pane found running the agent): its plain executable.
  if (argv.length === 0) argv = [canonicalExecutable(kind)];
  argv = commandLine(kind, argv);
  const { options, positionals } = keptArguments(spec, argv.slice(1));
  const resume = resumeArgs(spec, sessionId);
  // A subcommand (`codex resume <id>`) must follow the program; options go after it. Kept
  // positionals come last, so a `--` before them cannot swallow the resume form.
  const subcommand = !resume[0]!.startsWith('-');
  return subcommand ? [argv[0]!, ...resume, ...options, ...positionals] : [argv[0]!, ...options, ...resume, ...positionals];
}

/**
 * The agent's command line from a process argv: `node …/gemini-cli/dist/index.js -m x` →
 * `gemini -m x` (the first word that is the agent itself becomes its executable); an argv
 * with no such word is taken as it is.
 */
export function commandLine(kind: string, argv: readonly string[]): string[] {
  for (let i = 0; i < argv.length; i++) {
    if (detectKind([argv[i]!])?.kind === kind) return i === 0 ? [...argv] : [canonicalExecutable(kind), ...argv.slice(i + 1)];
  }
  return [...argv];
}

/** The words of `args` (argv without the program) that a resumed start keeps. */
function keptArguments(spec: ResumeSpec, args: readonly string[]): { options: string[]; positionals: string[] } {
  const kept: string[] = [];
  const positionals: string[] = [];
  let i = 0;
  while (i < args.length) {
    const word = args[i]!;
    if (word === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!isOption(word)) {
      positionals.push(word);
      i++;
      continue;
    }
    const eq = word.startsWith('--') ? word.indexOf('=') : -1;
    const name = eq > 0 ? word.slice(0, eq) : word;
    let end = i + 1;
    if (eq < 0) {
      const arity = spec.valueOptions.get(name);
      // A required value missing at the end would take the resume flag for itself: drop it.
      if (arity === 'one' && end >= args.length) break;
      if (arity === 'one') end++;
      else if (arity === 'optional' && end < args.length && isValueWord(args[end]!)) end++;
      else if (arity === 'many') while (end < args.length && isValueWord(args[end]!)) end++;
    }
    if (!spec.dropOptions.has(name)) kept.push(...args.slice(i, end));
    i = end;
  }
  if (!spec.keepPositionals || positionals.length === 0) return { options: kept, positionals: [] };
  return { options: kept, positionals: positionals.some((w) => w.startsWith('-')) ? ['--', ...positionals] : positionals };
}

/** A word an optional or variadic option takes as its value: no option, not `--`. */
function isValueWord(word: string): boolean {
  return !isOption(word) && word !== '--';
}

/** `-x`, `--xy`, `--xy=v`; a lone `-` (stdin) is a positional. */
function isOption(word: string): boolean {
  return word.length > 1 && word.startsWith('-') && word !== '--';
}

/** The session id an argv already resumes (`claude --resume <id>`), or null. */
export function resumedSessionId(kind: string, argv: readonly string[], rules?: ReadonlyMap<string, AgentRules>): string | null {
  const spec = resumeSpec(kind, rules);
  if (!spec) return null;
  const at = spec.args.findIndex((arg) => arg.includes('{id}'));
  const [prefix, suffix] = spec.args[at]!.split('{id}') as [string, string];
  const before = spec.args.slice(0, at);
  for (let i = before.length; i < argv.length; i++) {
    if (!before.every((arg, j) => argv[i - before.length + j] === arg)) continue;
    const word = argv[i]!;
    if (!word.startsWith(prefix) || !word.endsWith(suffix)) continue;
    const id = word.slice(prefix.length, word.length - suffix.length);
    if (isValidSessionId(id)) return id;
  }
  return null;
}
