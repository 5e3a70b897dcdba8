/**
 * Pane isolation (SPEC §8): a pane's shell holds only its own terminal, never another pane's
 * pty master or the server's sockets, so one pane cannot type into another, and a server
 * killed with SIGKILL takes its panes' terminals — and so their shells — with it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readdirSync, readlinkSync } from 'node:fs';
import { TestServer, eventually, isAlive } from './harness.js';

/** fd number → what it points at, for a live process. */
function openFds(pid: number): Map<number, string> {
  const fds = new Map<number, string>();
  for (const name of readdirSync(`/proc/${pid}/fd`)) {
    try {
      fds.set(Number(name), readlinkSync(`/proc/${pid}/fd/${name}`));
    } catch {
      // Closed between the listing and the readlink.
    }
  }
  return fds;
}

/** Creates `count` workspaces and returns each root pane's id and its shell's pid (as `$$` says). */
async function startPanes(server: TestServer, count: number): Promise<Array<{ pane: string; pid: number }>> {
  const panes: Array<{ pane: string; pid: number }> = [];
  for (let i = 0; i < count; i++) {
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const pane = created.result.root_pane.pane_id as string;
    await server.cli(['pane', 'run', pane, 'echo SHELLPID=$$']);
    const waited = await server.json(['pane', 'wait-output', pane, '--regex', '^SHELLPID=\\d+$', '--timeout', '10000']);
    panes.push({ pane, pid: Number(/SHELLPID=(\d+)/.exec(waited.result.matched_line)![1]) });
  }
  return panes;
}

describe('pane isolation', () => {
  let server: TestServer | null = null;
  afterEach(async () => {
    await server?.stop();
    server = null;
  });

  it("a pane's shell holds only its own terminal: no other pane's pty master, no server socket", async () => {
    server = await new TestServer({ scripting: true }).start();
    const panes = await startPanes(server, 3);
    const ttys = panes.map(({ pid }) => readlinkSync(`/proc/${pid}/fd/0`));
    // Three panes, three different terminals.
    expect(new Set(ttys).size).toBe(3);
    for (const [i, { pid }] of panes.entries()) {
      expect(ttys[i]).toMatch(/^\/dev\/pts\/\d+$/);
      const fds = openFds(pid);
      for (const fd of [0, 1, 2]) expect(fds.get(fd)).toBe(ttys[i]);
      // Whatever else the shell opened itself (bash keeps a copy of its tty at 255) is its own tty.
      const foreign = [...fds].filter(([, target]) => target !== ttys[i]);
      expect(foreign, `pane ${i + 1} (pid ${pid}) holds ${JSON.stringify(foreign)}`).toEqual([]);
    }
    // The server really does hold the masters the panes used to inherit.
    const serverFds = [...openFds(server.pid!).values()];
    expect(serverFds.filter((t) => t === '/dev/ptmx').length).toBeGreaterThanOrEqual(3);
  });

  it('a program started in a pane inherits nothing of the server either', async () => {
    server = await new TestServer({ scripting: true }).start();
    const [first, second] = await startPanes(server, 2);
    // The attack that found it: look for any fd above 2 from inside the second pane.
    await server!.cli(['pane', 'run', second!.pane, 'ls /proc/self/fd | tr "\\n" " "; echo FDS-\"END\"']);
    const waited = await server!.json(['pane', 'wait-output', second!.pane, '--regex', 'FDS-END$', '--timeout', '10000']);
    // ls sees 0 1 2 and the directory it is reading (3), nothing else.
    expect(waited.result.matched_line.trim().split(/\s+/).slice(0, -1)).toEqual(['0', '1', '2', '3']);
    expect(isAlive(first!.pid)).toBe(true);
  });

  it('kill -9 of the server leaves no pane shell running: they get SIGHUP from their closing terminal', async () => {
    server = await new TestServer({ scripting: true }).start();
    const panes = await startPanes(server, 3);
    // A daemon in the last pane that survives hangups, as users start them: had it inherited the
    // earlier panes' pty masters, it would keep their terminals, and so their shells, alive.
    const last = panes[2]!.pane;
    await server.cli(['pane', 'run', last, 'nohup sleep 300 >/dev/null 2>&1 & echo DAEMON=$!']);
    const started = await server.json(['pane', 'wait-output', last, '--regex', '^DAEMON=\\d+$', '--timeout', '10000']);
    const daemon = Number(/DAEMON=(\d+)/.exec(started.result.matched_line)![1]);
    try {
      for (const { pid } of panes) expect(isAlive(pid)).toBe(true);
      process.kill(server.pid!, 'SIGKILL');
      const gone = await eventually(() => panes.every(({ pid }) => !isAlive(pid)), 10_000);
      expect(gone, `still running: ${panes.filter(({ pid }) => isAlive(pid)).map(({ pid }) => pid).join(' ')}`).toBe(true);
    } finally {
      process.kill(daemon, 'SIGKILL');
      // Shells a failed run left behind must not outlive the test either.
      for (const { pid } of panes) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  });
});
