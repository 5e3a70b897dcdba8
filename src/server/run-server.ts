/**
 * `corral server`: the core with no UI, in the foreground (or forked with `--detach`).
 * Shuts down cleanly on SIGTERM/SIGINT/SIGHUP: pane process groups ended, socket removed.
 */
import { spawn } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { resolveSocketPath } from '../paths.js';
import { startServer, type StartOptions } from './start-server.js';
import { probeServer } from './socket-guard.js';
import { corralEntry } from './package-root.js';
import { ensurePrivateDir } from '../socket-dir.js';

/** How long `--detach` waits for the forked server's socket to answer. */
const DETACH_READY_TIMEOUT_MS = 10_000;
const DETACH_POLL_MS = 50;

export interface RunServerOptions extends StartOptions {
  detach?: boolean;
}

/** Runs the server until a signal ends it; resolves with the exit code. */
export async function runServer(opts: RunServerOptions): Promise<number> {
  if (opts.detach) return detach(opts);
  const server = await startServer(opts);
  if (server.configError) process.stderr.write(`corral: ${server.configError.message}; using defaults\n`);
  // The server never dies because of what a client or a pane sent: log and go on.
  process.on('uncaughtException', (error) => process.stderr.write(`corral server: uncaught ${error.stack ?? error}\n`));
  process.on('unhandledRejection', (error) => process.stderr.write(`corral server: unhandled ${String(error)}\n`));
  process.stderr.write(`corral server listening on ${server.socketPath} (pid ${process.pid}, scripting ${server.core.scripting ? 'on' : 'off'})\n`);
  return new Promise((resolve) => {
    const shutdown = () => {
      void server.stop().then(() => resolve(0));
    };
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, shutdown);
  });
}

/** Forks `corral server` into the background and returns once its socket answers. */
async function detach(opts: RunServerOptions): Promise<number> {
  const socketPath = resolveSocketPath({ socket: opts.socket, session: opts.session });
  const live = await probeServer(socketPath);
  if (live) throw new CorralError('internal_error', `a corral server (pid ${live.pid}) is already running on ${socketPath}`);
  const args = [corralEntry(), 'server', '--socket', socketPath];
  if (opts.scripting) args.push('--scripting');
  if (opts.fresh) args.push('--fresh');
  // The child gets the socket path, not the name: keep the name the session is saved under.
  if (opts.session) args.push('--session', opts.session);
  ensurePrivateDir(dirname(socketPath));
  // Never through a symlink planted where the log goes.
  const log = openSync(join(dirname(socketPath), 'server.log'), constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', log, log], env: process.env });
  child.unref();
  const deadline = Date.now() + DETACH_READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const answer = await probeServer(socketPath);
    if (answer) {
      process.stdout.write(JSON.stringify({ result: { socket: socketPath, pid: answer.pid } }) + '\n');
      return 0;
    }
    if (child.exitCode !== null) break;
    await new Promise((resolve) => setTimeout(resolve, DETACH_POLL_MS));
  }
  throw new CorralError('internal_error', `the detached server did not answer on ${socketPath}; see ${join(dirname(socketPath), 'server.log')}`);
}
