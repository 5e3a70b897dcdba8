/**
 * The CLI's fast path for the read-only verbs that scripts and agents call in tight loops
 * (`ps`, `status <target>`), each with an optional `--json`, and nothing else on the line.
 * Measured (bench/cli-startup): loading and running yargs costs more than everything else
 * in `corral ps` together, and the target is 1.5× `node -e 0`. Anything that does not match
 * these exact shapes — help, other flags, typos — goes to the full yargs CLI, so behaviour
 * and errors stay defined in one place; this file only skips the parser.
 */
import { BOUNDS } from '../contract/bounds.js';
import { formatFleet, formatStatus } from './conductor-format.js';
import { conductorCall, herdrCall } from './run.js';

/** The fast verbs and how many positionals each takes. */
const FAST_VERBS: Readonly<Record<string, number>> = { ps: 0, status: 1 };

/** Parses `argv` (without node and script) if it is one of the exact fast shapes. */
export function matchFastPath(args: readonly string[]): { verb: string; positionals: string[]; json: boolean } | null {
  const [verb, ...rest] = args;
  if (verb === undefined || !(verb in FAST_VERBS)) return null;
  const json = rest.includes('--json');
  const positionals = rest.filter((arg) => arg !== '--json');
  if (rest.filter((arg) => arg === '--json').length > 1) return null;
  // Any other flag (or a target that looks like one) is the full CLI's business.
  if (positionals.some((arg) => arg.startsWith('-'))) return null;
  if (positionals.length !== FAST_VERBS[verb]) return null;
  return { verb, positionals, json };
}

/**
 * The two verbs a script drives a pane with (issue 45): `pane run <pane> <command>` and
 * `pane wait-output <pane> (--regex RE | --match TEXT) [--timeout MS]`, in exactly these shapes
 * (the pane first, each flag once, as a separate word). A script's `cat` started with one and
 * awaited with the other paid yargs twice — `pane run` took ~190 ms against `ps`'s ~130 ms on
 * the reference machine, on the critical path, and the wait's start competed with the flood for
 * the two cores. Anything else (help, `--current`, `--source`, `--flag=value`, a value that
 * starts with `-`, a `--timeout` that is not plain digits in range) goes to the full CLI.
 */
export type PaneFastMatch =
  | { verb: 'pane run'; pane: string; command: string }
  | { verb: 'pane wait-output'; pane: string; match: { type: 'regex' | 'substring'; value: string }; timeoutMs: number | undefined };

/** A word yargs reads as itself: not empty, not a flag. */
const plain = (word: string | undefined): word is string => word !== undefined && word !== '' && !word.startsWith('-');

/** Parses `argv` (without node and script) if it is one of the exact pane fast shapes. */
export function matchPaneFastPath(args: readonly string[]): PaneFastMatch | null {
  const [group, verb, pane, ...rest] = args;
  if (group !== 'pane' || !plain(pane)) return null;
  if (verb === 'run') {
    if (rest.length !== 1 || !plain(rest[0])) return null;
    return { verb: 'pane run', pane, command: rest[0] };
  }
  if (verb !== 'wait-output' || rest.length % 2 !== 0) return null;
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i]!, rest[i + 1]];
    if (!['--regex', '--match', '--timeout'].includes(flag) || flags.has(flag) || !plain(value)) return null;
    flags.set(flag, value);
  }
  const regex = flags.get('--regex');
  const substring = flags.get('--match');
  if ((regex === undefined) === (substring === undefined)) return null;
  let timeoutMs: number | undefined;
  const timeout = flags.get('--timeout');
  if (timeout !== undefined) {
    if (!/^\d{1,10}$/.test(timeout)) return null;
    timeoutMs = Number(timeout);
    if (timeoutMs < BOUNDS.timeoutMs.min || timeoutMs > BOUNDS.timeoutMs.max) return null;
  }
  const match = regex !== undefined ? { type: 'regex' as const, value: regex } : { type: 'substring' as const, value: substring! };
  return { verb: 'pane wait-output', pane, match, timeoutMs };
}

/** Runs a matched pane verb: the same call and output as the full CLI's (src/cli/verbs.ts). */
export async function runPaneFastPath(match: PaneFastMatch): Promise<void> {
  if (match.verb === 'pane run') {
    await herdrCall({}, 'pane.run', () => ({ pane_id: match.pane, command: match.command }));
  } else {
    await herdrCall({}, 'pane.wait_for_output', () => ({ pane_id: match.pane, match: match.match, timeout_ms: match.timeoutMs }));
  }
}

/** Runs a matched fast verb; resolves when its output is written. */
export async function runFastPath(match: { verb: string; positionals: string[]; json: boolean }): Promise<void> {
  const argv = { json: match.json };
  if (match.verb === 'ps') {
    await conductorCall(argv, 'fleet.list', () => ({}), formatFleet);
  } else {
    await conductorCall(argv, 'surface.status', () => ({ target: match.positionals[0] }), formatStatus);
  }
}

/** Entry of dist/fast.cjs: returns false when the arguments need the full CLI. */
export async function fastMain(args: readonly string[]): Promise<boolean> {
  const pane = matchPaneFastPath(args);
  if (pane) {
    await runPaneFastPath(pane);
    return true;
  }
  const match = matchFastPath(args);
  if (!match) return false;
  await runFastPath(match);
  return true;
}
