/**
 * The CLI's fast path for the read-only verbs that scripts and agents call in tight loops
 * (`ps`, `status <target>`), each with an optional `--json`, and nothing else on the line.
 * Measured (bench/cli-startup): loading and running yargs costs more than everything else
 * in `corral ps` together, and the target is 1.5× `node -e 0`. Anything that does not match
 * these exact shapes — help, other flags, typos — goes to the full yargs CLI, so behaviour
 * and errors stay defined in one place; this file only skips the parser.
 */
import { formatFleet, formatStatus } from './conductor-format.js';
import { conductorCall } from './run.js';

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
  const match = matchFastPath(args);
  if (!match) return false;
  await runFastPath(match);
  return true;
}
