/**
 * `corral server`: the core with no UI, in the foreground (or forked with `--detach`).
 * Shuts down cleanly on SIGTERM/SIGINT/SIGHUP: pane process groups ended, socket removed.
 */
import { CorralError } from '../contract/protocol.js';
import { resolveSocketPath } from '../paths.js';
import { startServer, type StartOptions } from './start-server.js';
import { probeServer } from './socket-guard.js';
import { startBackgroundServer } from './background.js';
import { peerCredProblem } from '../pty/peer-cred.js';

export interface RunServerOptions extends StartOptions {
  detach?: boolean;
  /** End when the last workspace closes (the server `corral` starts for itself, as tmux's exit-empty). */
  exitEmpty?: boolean;
}

/** Runs the server until a signal ends it; resolves with the exit code. */
export async function runServer(opts: RunServerOptions): Promise<number> {
  if (opts.detach) return detach(opts);
  // A stderr or stdout nobody reads any more (the terminal it was started from closed, a log
  // reader died) fails every write with EPIPE. Unheard, each failure became an uncaught error,
  // reported on stderr, failing again: the server spun on that and answered nothing. Lines for
  // a reader that is gone are dropped.
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  const server = await startServer(opts);
  if (server.configError) process.stderr.write(`corral: ${server.configError.message}; using defaults\n`);
  // Without corral's own addon the server runs, but cannot tell who connected: said once, here.
  const peerProblem = peerCredProblem();
  if (peerProblem) process.stderr.write(`corral: ${peerProblem}; until it is built corral cannot tell a person's terminal from a program: attached clients are view-only while the scripting gate is closed, and agents' hooks are refused\n`);
  // The server never dies because of what a client or a pane sent: log and go on.
  process.on('uncaughtException', (error) => process.stderr.write(`corral server: uncaught ${error.stack ?? error}\n`));
  process.on('unhandledRejection', (error) => process.stderr.write(`corral server: unhandled ${String(error)}\n`));
  return new Promise((resolve) => {
    const shutdown = () => {
      void server.stop().then(() => resolve(0));
    };
    for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.once(signal, shutdown);
    // As tmux: SIGUSR1 binds the socket again when its file was deleted (a tmp cleaner). Taking
    // the signal also keeps Node from opening its inspector on it.
    process.on('SIGUSR1', () => {
      server.recreateSocket().then(
        (what) => process.stderr.write(`corral server: SIGUSR1: ${what}\n`),
        (error: unknown) => process.stderr.write(`corral server: SIGUSR1: cannot re-create ${server.socketPath}: ${error instanceof Error ? error.message : String(error)}\n`),
      );
    });
    // Announced only once the signals are handled: a supervisor that stops the server as soon
    // as it reads this line must get a clean shutdown, not the default action of SIGTERM
    // (that race killed a test's server, exit by signal, about once in ten runs).
    process.stderr.write(`corral server listening on ${server.socketPath} (pid ${process.pid}, scripting ${server.core.scripting ? 'on' : 'off'})\n`);
    if (opts.exitEmpty) {
      // Started by `corral` for itself: its client is connecting now.
      server.clients.preload();
      server.core.listen((event) => {
        if (event.type === 'workspace.closed' && server.core.model.workspaces.size === 0) setImmediate(shutdown);
      });
    }
  });
}

/** Forks `corral server` into the background and returns once its socket answers. */
async function detach(opts: RunServerOptions): Promise<number> {
  const socketPath = resolveSocketPath({ socket: opts.socket, session: opts.session });
  const live = await probeServer(socketPath);
  if (live) throw new CorralError('internal_error', `a corral server (pid ${live.pid}) is already running on ${socketPath}`);
  const pid = await startBackgroundServer(socketPath, { scripting: opts.scripting, fresh: opts.fresh, session: opts.session });
  process.stdout.write(JSON.stringify({ result: { socket: socketPath, pid } }) + '\n');
  return 0;
}
