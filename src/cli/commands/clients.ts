/** `corral detach`, `corral kill-server`, `corral sessions` (SPEC §1). */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { CorralError } from '../../contract/protocol.js';
import { resolveRuntimeDir } from '../../paths.js';
import { connect } from '../../rpc/client.js';
import { probeServer } from '../../server/socket-guard.js';
import { forgetSavedSession, listSavedSessions, type SavedSessionSummary } from '../../persist/state-files.js';
import { cell, formatJsonLine, formatResult, formatTable, UsageError } from '../output.js';
import { FROM_FLAGS, defineCommand, out, reportError, socketPathOf, withClient } from '../run.js';

/** How long `kill-server` waits for the server to let go of its socket. */
const KILL_WAIT_MS = 10_000;
const KILL_POLL_MS = 25;

export const detachCommand = defineCommand({
  command: 'detach',
  describe: 'Detach attached clients (default: inside a pane, the client last used; else all). Panes keep running',
  builder: (y) =>
    y
      .option('client', { type: 'string', describe: 'the client id to detach (see `corral sessions` / client.list)' })
      .option('all', { type: 'boolean', default: false, describe: 'detach every attached client' }),
  handler: async (argv) => {
    if (argv.client !== undefined && argv.all) return reportError(new UsageError('give --client ID or --all, not both'));
    const params = argv.client !== undefined ? { client_id: argv.client } : argv.all ? { all: true } : { current: Boolean(process.env.CORRAL_PANE_ID) };
    await withClient(argv, async (client) => out(`${formatResult(await client.call('client.detach', params))}\n`), FROM_FLAGS);
  },
});

export const killServerCommand = defineCommand({
  command: 'kill-server',
  describe: "End the session's server and every pane in it; attached clients exit. The session is saved as a restart point (docs/persistence.md)",
  builder: (y) =>
    y.option('forget', { type: 'boolean', default: false, describe: 'delete the saved session instead of keeping it (also with no server running)' }),
  handler: async (argv) => {
    try {
      const socketPath = socketPathOf(argv);
      const live = await probeServer(socketPath);
      let forgotten: { path: string; forgotten: boolean } | null = null;
      if (argv.forget) {
        // A running server deletes its files and stops saving, so its shutdown writes nothing back.
        forgotten = live ? await forgetOnServer(socketPath) : await forgetSavedSession({ socket: argv.socket, session: argv.session });
        if (!live) {
          out(`${formatResult({ forgotten: forgotten!.forgotten, state: forgotten!.path })}\n`);
          return;
        }
      }
      if (!live) throw new CorralError('server_not_running', `no corral server is running on ${socketPath}`);
      if (argv.forget) {
        // Deleted by the server itself, which then stops saving: its SIGTERM flush writes nothing back.
        const client = await connect(socketPath);
        try {
          await client.call('session.forget', {});
        } finally {
          client.close();
        }
      }
      // The server's own SIGTERM path: clients told, panes ended, socket removed.
      process.kill(live.pid, 'SIGTERM');
      const deadline = Date.now() + KILL_WAIT_MS;
      while (await probeServer(socketPath)) {
        if (Date.now() > deadline) throw new CorralError('timeout', `the server (pid ${live.pid}) did not stop within ${KILL_WAIT_MS / 1000} s`);
        await new Promise((resolve) => setTimeout(resolve, KILL_POLL_MS));
      }
      out(`${formatResult({ pid: live.pid, socket: socketPath, ...(forgotten ? { forgotten: forgotten.forgotten, state: forgotten.path } : {}) })}\n`);
    } catch (error) {
      reportError(error);
    }
  },
});

/** `session.forget` on the running server: it deletes its saved session and stops saving. */
async function forgetOnServer(socketPath: string): Promise<{ path: string; forgotten: boolean }> {
  const client = await connect(socketPath);
  try {
    return await client.call('session.forget', {});
  } finally {
    client.close();
  }
}

export interface SessionRow {
  name: string;
  /** `running`: a server answers on `socket`; `saved`: only its saved state, restored when a server of that name starts. */
  state: 'running' | 'saved';
  socket: string | null;
  pid: number | null;
  clients: number;
  panes: number;
  agents: number;
  /** Where a saved session's state lies (null for a running server's row). */
  path: string | null;
  saved_at: string | null;
}

/** A saved session's row: no server, its panes and agents as they were saved. */
function savedRow(saved: SavedSessionSummary): SessionRow {
  return { name: saved.name, state: 'saved', socket: null, pid: null, clients: 0, panes: saved.panes, agents: saved.agents, path: saved.path, saved_at: saved.saved_at };
}

/** One running server's row, or null when its socket does not answer. */
async function sessionRow(name: string, socket: string): Promise<SessionRow | null> {
  let client;
  try {
    client = await connect(socket);
  } catch {
    return null;
  }
  try {
    const identity = await client.call('system.identify');
    const clients = await client.call('client.list', {}).catch(() => ({ clients: [] }));
    const panes = await client.call('pane.list', {});
    const fleet = await client.call('fleet.list', {});
    return { name, state: 'running', socket, pid: identity.pid, clients: clients.clients.length, panes: panes.panes.length, agents: fleet.agents.length, path: null, saved_at: null };
  } catch {
    return null;
  } finally {
    client.close();
  }
}

export const sessionsCommand = defineCommand({
  command: 'sessions',
  describe: "This user's running servers, with their clients, panes and agents, and the sessions saved on disk",
  builder: (y) => y.option('json', { type: 'boolean', default: false, describe: 'print {"sessions":[…]}' }),
  handler: async (argv) => {
    try {
      const dir = resolveRuntimeDir();
      let names: string[] = [];
      try {
        names = readdirSync(dir).filter((file) => file.endsWith('.sock')).sort();
      } catch {
        // No runtime directory yet: no sessions.
      }
      const running = (await Promise.all(names.map((file) => sessionRow(file.slice(0, -'.sock'.length), join(dir, file))))).filter((row): row is SessionRow => row !== null);
      // A running server keeps its own session saved: list the file only when no server of that name runs.
      const live = new Set(running.map((row) => row.name));
      const saved = (await listSavedSessions()).filter((s) => !live.has(s.name)).map(savedRow);
      const rows = [...running, ...saved];
      if (argv.json) out(`${formatJsonLine({ sessions: rows })}\n`);
      else if (rows.length === 0) out('no running or saved corral sessions\n');
      else {
        out(
          formatTable(
            ['SESSION', 'STATE', 'PID', 'CLIENTS', 'PANES', 'AGENTS', 'WHERE'],
            rows.map((r) => [
              cell(r.name),
              // saved_at is read from a file: shown with its control characters visible.
              r.state === 'running' ? 'running' : `saved ${cell(r.saved_at ?? '?')}`,
              r.pid === null ? '-' : String(r.pid),
              String(r.clients),
              String(r.panes),
              String(r.agents),
              cell(r.socket ?? r.path ?? ''),
            ]),
          ) + '\n',
        );
      }
    } catch (error) {
      reportError(error);
    }
  },
});
