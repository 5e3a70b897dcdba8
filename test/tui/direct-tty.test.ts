/**
 * Direct tty (issue 12 item 5, docs/clients.md): a local client hands its terminal to the
 * server, which reads keys from it and writes frames to it itself. The real `corral` in a real
 * pty read back through @xterm/headless: the client is listed as direct, typing echoes,
 * `prefix d` hands the terminal back cleanly (no frame after the restore), a SIGKILLed client
 * is dropped with the pane alive, a killed server leaves the terminal restored and exit 1, and
 * `CORRAL_CLIENT_RELAY=1` forces the relay.
 */
import { describe, expect, it } from 'vitest';
import { closedAfterEach, pollUntil, rpc, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}


/** Polls `client.list` until `check` holds (the hand-over has no screen of its own to wait on). */
function waitForClients(tui: TuiSession, check: (clients: any[]) => boolean, what: string): Promise<any[]> {
  return pollUntil(async () => (await rpc(tui.socketPath, 'client.list')).clients, check, what);
}

describe.skipIf(process.platform !== 'linux')('direct tty', () => {
  const session = closedAfterEach();

  it('is direct, echoes typing, and hands the terminal back cleanly on prefix d', async () => {
    const tui = session(new TuiSession());
    await tui.waitForText('w1:p1');
    await waitForClients(tui, (c) => c.length === 1 && c[0].direct === true, 'one direct client');
    tui.type('echo DIRECT-$((6*7))\r');
    await tui.waitForText('DIRECT-42');
    // A resize still reaches the server (SIGWINCH goes to the client, which sends it).
    tui.type('echo NARROW=$(tput cols)\r');
    await tui.waitForText(/NARROW=\d+/);
    const narrow = Number(/NARROW=(\d+)/.exec(tui.text())![1]);
    tui.resize(150, 40);
    tui.type('echo WIDE=$(tput cols)\r');
    await tui.waitForText(/WIDE=\d+/);
    expect(Number(/WIDE=(\d+)/.exec(tui.text())![1])).toBe(narrow + 30);
    // Chrome keys are read by the server from the tty too.
    tui.type(`${CTRL_B}c`);
    await tui.waitForText('w1:p2');

    tui.type(`${CTRL_B}d`);
    expect(await tui.waitExit()).toBe(0);
    tui.expectTerminalRestored();
    expect(tui.text()).toContain('[detached from corral');
    // Nothing of a frame landed after the restore (the server flushed and closed first).
    expect(tui.text()).not.toContain('w1:p');
    expect(tui.text()).not.toContain('DIRECT-42');
  });

  it('drops a SIGKILLed direct client; the pane lives and a new client shows it', async () => {
    const tui = session(new TuiSession());
    await tui.waitForText('w1:p1');
    tui.type('echo PID=$$\r');
    await tui.waitForText(/PID=\d+/);
    const shell = Number(/PID=(\d+)/.exec(tui.text())![1]);
    await waitForClients(tui, (c) => c.length === 1 && c[0].direct === true, 'one direct client');
    tui.kill('SIGKILL');
    await tui.waitExit();
    await waitForClients(tui, (c) => c.length === 0, 'no client');
    expect(alive(shell)).toBe(true);
    const again = session(tui.attach());
    await again.waitForText(/PID=\d+/);
    await waitForClients(tui, (c) => c.length === 1 && c[0].direct === true, 'the new client direct');
    again.type('echo BACK-$((2+5))\r');
    await again.waitForText('BACK-7');
  });

  it('restores the terminal and exits 1 when the server is killed under a direct client', async () => {
    const tui = session(new TuiSession());
    await tui.waitForText('w1:p1');
    await waitForClients(tui, (c) => c.length === 1 && c[0].direct === true, 'one direct client');
    const [row] = (await tui.json(['sessions', '--json'])).sessions;
    process.kill(row.pid, 'SIGKILL');
    expect(await tui.waitExit()).toBe(1);
    tui.expectTerminalRestored();
    expect(tui.text()).toContain('the server went away');
  });

  it('relays when CORRAL_CLIENT_RELAY=1', async () => {
    const tui = session(new TuiSession(120, 36, { CORRAL_CLIENT_RELAY: '1' }));
    await tui.waitForText('w1:p1');
    tui.type('echo RELAYED-$((4*4))\r');
    await tui.waitForText('RELAYED-16');
    const [client] = await waitForClients(tui, (c) => c.length === 1, 'one client');
    expect(client.direct).toBe(false);
  });
});
