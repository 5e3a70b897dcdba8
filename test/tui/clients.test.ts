/**
 * Server and thin clients (SPEC §1, issue 12), each client the real `corral` in a real pty
 * read back as a screen: detach and attach again, two clients of different sizes on
 * different workspaces, a client killed outright, the server killed under a client.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { BIN } from '../integration/harness.js';
import { closedAfterEach, pollUntil, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The shell pid a pane printed as `PID=<n>`. */
function printedPid(screen: string): number {
  return Number(/PID=(\d+)/.exec(screen)![1]);
}

async function rpcClients(tui: TuiSession): Promise<any[]> {
  return (await tui.json(['sessions', '--json'])).sessions;
}

/** Polls `corral sessions` until the attached-client count is `n` (a client leaving has no screen to wait on). */
async function waitForClientCount(tui: TuiSession, n: number): Promise<void> {
  await pollUntil(() => rpcClients(tui), (sessions) => sessions[0]?.clients === n, `${n} clients in \`corral sessions\``);
}

describe('server and clients', () => {
  const session = closedAfterEach();

  it('detaches with prefix d, leaves the pane running, and shows the same screen on attach', async () => {
    const first = session(new TuiSession());
    await first.waitForText('w1:p1');
    first.type('echo PID=$$; echo MARK-$((40+2))\r');
    // The screen is complete once the prompt after the output is drawn too.
    await first.waitFor((screen) => /MARK-42[^\n]*\n[^\n]*[#$] /.test(screen), 'the prompt after the output');
    const shell = printedPid(first.text());
    const before = first.text();

    first.type(`${CTRL_B}d`);
    expect(await first.waitExit()).toBe(0);
    expect(first.isAlternateScreen).toBe(false);
    expect(first.modes.mouseTrackingMode).toBe('none');
    // The first detach says how to come back.
    expect(first.text()).toMatch(/detached from corral.*`corral` or `corral attach`/);
    expect(alive(shell)).toBe(true);
    expect((await first.json(['sessions', '--json'])).sessions[0]).toMatchObject({ clients: 0, panes: 1 });

    const again = session(first.attach());
    await again.waitFor((s) => s === before, 'the same screen as before the detach');
    // Still the same shell, still taking input.
    again.type('echo PID=$$-again\r');
    await again.waitForText(`PID=${shell}-again`);
  });

  it('shows two clients of different sizes their own workspaces, the layout following the active one', async () => {
    const big = session(new TuiSession(120, 36));
    await big.waitForText('w1:p1');
    const colsOf = async (pane: string) => (await big.json(['pane', 'list'])).result.panes.find((p: any) => p.pane_id === pane).cols;
    const bigCols = await colsOf('w1:p1');
    const small = session(big.attach(90, 28));
    await small.waitForText('w1:p1');
    // The small client opens a workspace of its own; the big one stays on w1.
    small.type(`${CTRL_B}N`);
    await small.waitForText('w2:p1');
    small.type('echo SMALL-$((1+1))\r');
    await small.waitForText('SMALL-2');
    // Laid out for the small client, the one active.
    expect(await colsOf('w2:p1')).toBeLessThan(bigCols - 20);
    expect(await colsOf('w1:p1')).toBeLessThan(bigCols - 20);

    big.type('echo BIG-$((2+2))\r');
    await big.waitForText('BIG-4');
    expect(big.text()).not.toContain('SMALL-2');
    expect(big.text()).toContain('w1:p1');
    // Typing in the big client made it active: w1 is laid out for 120 columns again.
    expect(await colsOf('w1:p1')).toBe(bigCols);
    // The small client still shows w2 and its output, not the big client's.
    expect(small.text()).toContain('SMALL-2');
    expect(small.text()).not.toContain('BIG-4');

    const sessions = (await big.json(['sessions', '--json'])).sessions;
    expect(sessions[0].clients).toBe(2);
  });

  it('drops a client killed with SIGKILL and nothing else changes', async () => {
    const stays = session(new TuiSession());
    await stays.waitForText('w1:p1');
    stays.type('echo PID=$$\r');
    await stays.waitForText(/PID=\d+/);
    const shell = printedPid(stays.text());
    const killed = session(stays.attach(100, 30));
    await killed.waitForText('w1:p1');
    await waitForClientCount(stays, 2);

    killed.kill('SIGKILL');
    await killed.waitExit();
    await waitForClientCount(stays, 1);
    expect(alive(shell)).toBe(true);
    stays.type('echo STILL-$((3*3))\r');
    await stays.waitForText('STILL-9');
  });

  it('restores the terminal and exits 1 with a message when the server is killed under it', async () => {
    const tui = session(new TuiSession());
    await tui.waitForText('w1:p1');
    const [row] = (await tui.json(['sessions', '--json'])).sessions;
    process.kill(row.pid, 'SIGKILL');
    expect(await tui.waitExit()).toBe(1);
    tui.expectTerminalRestored();
    expect(tui.text()).toContain('the server went away');
  });

  it('detaches every client with `corral detach --all`, and `corral attach` without a server says so', async () => {
    const tui = session(new TuiSession());
    await tui.waitForText('w1:p1');
    const other = session(tui.attach(100, 30));
    await other.waitForText('w1:p1');
    // A script following the session sees both leave (`corral watch`, events.subscribe).
    const watch = spawn(process.execPath, [BIN, 'watch', '--type', 'client.detached'], { env: tui.env, stdio: ['ignore', 'pipe', 'ignore'] });
    const events: any[] = [];
    const seenBoth = new Promise<void>((resolve) => {
      let text = '';
      watch.stdout.on('data', (chunk) => {
        text += chunk;
        const lines = text.split('\n');
        text = lines.pop()!;
        for (const line of lines) events.push(JSON.parse(line));
        if (events.length === 3) resolve();
      });
    });
    try {
      await new Promise<void>((resolve) => watch.stdout.once('data', () => resolve())); // subscribed
      const detached = await tui.json(['detach', '--all']);
      expect(detached.result.detached.sort()).toEqual(['c1', 'c2']);
      await seenBoth;
    } finally {
      watch.kill();
    }
    expect(events[0].type).toBe('subscribed');
    expect(events.slice(1).map((e) => [e.type, e.client_id]).sort()).toEqual([
      ['client.detached', 'c1'],
      ['client.detached', 'c2'],
    ]);
    expect(await tui.waitExit()).toBe(0);
    expect(await other.waitExit()).toBe(0);
    expect((await tui.json(['kill-server'])).result.pid).toBeGreaterThan(0);
    const attach = await tui.cli(['attach']);
    expect(attach.code).toBe(1);
    expect(JSON.parse(attach.stderr).error.code).toBe('server_not_running');
  });
});
