/**
 * Entry of dist/client.cjs: `corral` and `corral attach` with at most `--session NAME` /
 * `--socket PATH`, started without yargs (the same trick as the `ps` fast path) so attaching
 * costs about what a CLI verb costs. Any other shape (help, typos) goes to the full CLI,
 * which runs the same client.
 */
import { formatClientError } from './client-error.js';
import { runClient } from './run-client.js';

/** Parses the exact shapes this entry handles; null sends the line to the full CLI. */
export function matchClientArgs(args: readonly string[]): { attach: boolean; socket?: string; session?: string } | null {
  let at = 0;
  const attach = args[0] === 'attach';
  if (attach) at = 1;
  const found: { socket?: string; session?: string } = {};
  while (at < args.length) {
    const arg = args[at]!;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    if (name !== '--session' && name !== '--socket') return null;
    const value = eq === -1 ? args[at + 1] : arg.slice(eq + 1);
    if (value === undefined || value === '' || value.startsWith('-')) return null;
    const key = name.slice(2) as 'socket' | 'session';
    if (found[key] !== undefined) return null;
    found[key] = value;
    at += eq === -1 ? 2 : 1;
  }
  return { attach, ...found };
}

/** Runs the client for a matched line and sets the exit code; false when the full CLI must. */
export async function clientMain(args: readonly string[]): Promise<boolean> {
  const match = matchClientArgs(args);
  if (!match) return false;
  await runClientCommand(match);
  return true;
}

/** Runs the client and reports failures the CLI's way (SPEC §6: JSON on stderr, exit code). */
export async function runClientCommand(opts: { attach: boolean; socket?: string; session?: string }): Promise<void> {
  try {
    process.exitCode = await runClient({ socket: opts.socket, session: opts.session, startServer: !opts.attach });
  } catch (error) {
    const { line, code } = formatClientError(error);
    process.stderr.write(line);
    process.exitCode = code;
  }
  // Nothing else runs in a client: end promptly even if a handle lingers (a slow terminal's write).
  setTimeout(() => process.exit(), 200).unref();
}
