/**
 * `ssh -t host corral` stand-in (SPEC §1, issue 12 item 4): the client's connection to the
 * server runs through plain pipes — a relay process per connection, as an ssh channel
 * forwards a socket — so every byte of the handshake and the binary frames crosses two
 * pipes with their own chunking. The client sits in a pty of its own whose TERM differs from
 * the server's, and its terminal's capabilities are the client's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { rpc, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';

/** Listens on `path`; each connection is carried to `target` by a child process over its stdin/stdout pipes. */
function pipeRelay(path: string, target: string): { server: Server; children: ChildProcess[]; bytes: { up: number; down: number } } {
  const children: ChildProcess[] = [];
  const bytes = { up: 0, down: 0 };
  const carrier = `const s=require('net').connect(${JSON.stringify(target)});process.stdin.pipe(s);s.pipe(process.stdout);s.on('close',()=>process.exit(0));process.stdin.on('end',()=>s.end());`;
  const server = createServer((conn) => {
    const child = spawn(process.execPath, ['-e', carrier], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    conn.on('data', (chunk) => (bytes.up += chunk.length));
    child.stdout!.on('data', (chunk) => (bytes.down += chunk.length));
    conn.pipe(child.stdin!);
    child.stdout!.pipe(conn);
    conn.on('close', () => child.kill());
    child.on('exit', () => conn.destroy());
    conn.on('error', () => child.kill());
  });
  server.listen(path);
  return { server, children, bytes };
}


describe('a client over pipes (ssh stand-in)', () => {
  let owner: TuiSession | null = null;
  let remote: TuiSession | null = null;
  let relay: ReturnType<typeof pipeRelay> | null = null;
  afterEach(async () => {
    await remote?.close();
    await owner?.close();
    relay?.server.close();
    relay?.children.forEach((c) => c.kill());
    owner = remote = relay = null;
  });

  it('attaches, draws, types, resizes and detaches through a relayed connection, with its own terminal type', async () => {
    owner = new TuiSession(120, 36);
    await owner.waitForText('w1:p1');
    const socketPath = owner.socketPath;
    const tunnelDir = join(owner.dir, 'tunnel');
    mkdirSync(tunnelDir, { mode: 0o700 });
    relay = pipeRelay(join(tunnelDir, 'relay.sock'), socketPath);
    await new Promise((resolve) => relay!.server.once('listening', resolve));

    remote = new TuiSession(100, 30, { TERM: 'xterm-kitty', COLORTERM: 'truecolor' }, undefined, {
      peer: owner,
      args: ['attach', '--socket', join(tunnelDir, 'relay.sock')],
    });
    await remote.waitForText('w1:p1');
    // The server's peer is the relay, whose input is a pipe: keys from it could come from a
    // program, so while the gate is closed it only watches (SPEC §8) and its status line says why.
    let listed = (await rpc(socketPath, 'client.list')).clients;
    expect(listed.map((c: any) => c.view_only)).toEqual([null, expect.stringMatching(/^view-only: attached with no terminal.* while the scripting gate is closed$/)]);
    remote.type('echo VIEW-$((1+1))-ONLY\r');
    await remote.waitForText('view-only: attached with no terminal');
    expect(owner.text()).not.toContain('VIEW-2-ONLY');
    // The person at the owner's terminal opens the gate; from then on the relay types too.
    owner.type(`${CTRL_B}s`);
    await owner.waitForText('scripting: on');
    remote.type('echo OVER-$((20+3))-PIPES\r');
    await remote.waitForText('OVER-23-PIPES');
    // The owner sees the same pane's output: one server, two clients.
    await owner.waitForText('OVER-23-PIPES');
    // The client's terminal, not the server's: its TERM and size are what the server knows it by.
    listed = (await rpc(socketPath, 'client.list')).clients;
    expect(listed.map((c: any) => [c.term, c.cols, c.rows])).toEqual([
      ['xterm-256color', 120, 36],
      ['xterm-kitty', 100, 30],
    ]);
    // The owner's terminal is read and written by the server itself; the relayed client's
    // socket is not the server's (its inode differs), so it stays on the relay (docs/clients.md).
    expect(listed.map((c: any) => c.direct)).toEqual([true, false]);

    // A resize crosses the relay as a message: the pane takes the new size (this client is active).
    remote.type('echo NARROW=$(tput cols)\r');
    await remote.waitForText(/NARROW=\d+/);
    const narrow = Number(/NARROW=(\d+)/.exec(remote.text())![1]);
    remote.resize(140, 40);
    remote.type('echo WIDE=$(tput cols)\r');
    await remote.waitForText(/WIDE=\d+/);
    expect(Number(/WIDE=(\d+)/.exec(remote.text())![1])).toBe(narrow + 40);

    remote.type(`${CTRL_B}d`);
    expect(await remote.waitExit()).toBe(0);
    expect(remote.isAlternateScreen).toBe(false);
    expect(relay.bytes.down).toBeGreaterThan(1000);
  });
});
