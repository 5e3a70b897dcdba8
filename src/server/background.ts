/**
 * Starting `corral server` in the background (SPEC §1): used by `corral server --detach` and
 * by `corral` when no server answers. Lean on purpose — node builtins, the socket probe and
 * the dependency-free protocol module — because the thin client (src/client/) calls it.
 *
 * The server's stdout and stderr go to a log beside its socket, `<session>.log`, opened
 * owner-only and never through a symlink planted at that name.
 */
import { spawn } from 'node:child_process';
import { constants, openSync, closeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { ensurePrivateDir } from '../socket-dir.js';
import { probeServer } from './socket-guard.js';
import { corralEntry } from './package-root.js';

/** How long a start waits for the forked server's socket to answer. */
const READY_TIMEOUT_MS = 10_000;
const POLL_MS = 25;

export interface BackgroundOptions {
  scripting?: boolean;
  /** The server ends when its last workspace closes (a server `corral` started for itself). */
  exitEmpty?: boolean;
  /** Start empty: the saved session is moved aside (SPEC §13). */
  fresh?: boolean;
  /** The session name its state is saved under (the child is given the socket path). */
  session?: string;
  env?: NodeJS.ProcessEnv;
}

/** The log of the server on `socketPath`. */
export function serverLogPath(socketPath: string): string {
  return join(dirname(socketPath), `${basename(socketPath).replace(/\.sock$/, '')}.log`);
}

/** Forks `corral server` on `socketPath` and resolves with its pid once the socket answers. */
export async function startBackgroundServer(socketPath: string, opts: BackgroundOptions = {}): Promise<number> {
  const args = [corralEntry(), 'server', '--socket', socketPath];
  if (opts.scripting) args.push('--scripting');
  if (opts.exitEmpty) args.push('--exit-empty');
  if (opts.fresh) args.push('--fresh');
  if (opts.session) args.push('--session', opts.session);
  ensurePrivateDir(dirname(socketPath));
  const logPath = serverLogPath(socketPath);
  const log = openSync(logPath, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  let child;
  try {
    child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log], env: opts.env ?? process.env });
  } finally {
    closeSync(log);
  }
  child.unref();
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const answer = await probeServer(socketPath);
    if (answer) return answer.pid;
    // Lost a race with another `corral` starting the same session: its server answers soon.
    if (exited && !(await probeServer(socketPath))) break;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new CorralError('internal_error', `the background server did not answer on ${socketPath}; see ${logPath}`);
}
