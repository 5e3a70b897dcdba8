/**
 * Direct tty on the server's side, driven over the real socket by a peer speaking the frame
 * protocol (docs/clients.md, "Direct tty"): an honest claim on a real pty gets `ready`, then
 * frames arrive on that pty and keys typed into it reach the pane; a claim that lies about
 * the device, or names a pane's own pty, is refused — the peer stays on the relay and the
 * server log says why.
 */
import { readlinkSync, statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import * as pty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_PROTOCOL_VERSION, MSG, MessageReader, message, resizePayload, type DirectClaim } from '../../src/contract/frame-protocol.js';
import { bootId } from '../../src/boot-id.js';
import { TestServer, eventually } from './harness.js';

/** A client that speaks the protocol itself: attach, then binary messages. */
class Peer {
  readonly messages: { type: number; payload: Buffer }[] = [];
  private readonly reader = new MessageReader();
  private constructor(readonly socket: Socket) {}

  static async attach(socketPath: string, size = { cols: 100, rows: 30 }, tty = ''): Promise<Peer> {
    const socket = connect(socketPath);
    await new Promise((resolve, reject) => (socket.once('connect', resolve), socket.once('error', reject)));
    const peer = new Peer(socket);
    const hello = { protocol: CLIENT_PROTOCOL_VERSION, ...size, pid: process.pid, tty, cwd: process.cwd(), term: 'xterm-256color', colorterm: '', capabilities: {} };
    socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'client.attach', params: hello }) + '\n');
    await new Promise<void>((resolve) => {
      let text = Buffer.alloc(0);
      const onData = (chunk: Buffer) => {
        text = Buffer.concat([text, chunk]);
        const newline = text.indexOf(0x0a);
        if (newline === -1) return;
        socket.off('data', onData);
        socket.on('data', (more: Buffer) => peer.messages.push(...peer.reader.push(more)));
        peer.messages.push(...peer.reader.push(text.subarray(newline + 1)));
        resolve();
      };
      socket.on('data', onData);
    });
    return peer;
  }

  send(type: number, payload?: Buffer): void {
    this.socket.write(message(type, payload));
  }

  claim(claim: DirectClaim): void {
    this.send(MSG.claim, Buffer.from(JSON.stringify(claim)));
  }

  output(): string {
    return Buffer.concat(this.messages.filter((m) => m.type === MSG.output).map((m) => m.payload)).toString('utf8');
  }
}

function claimFor(path: string, socketPath: string): DirectClaim {
  const st = statSync(path);
  return { path, dev: st.dev, ino: st.ino, rdev: st.rdev, bootId: bootId(), socketIno: statSync(socketPath).ino };
}

async function clients(server: TestServer): Promise<any[]> {
  const client = await server.connect();
  const result = await client.call('client.list');
  client.close();
  return result.clients;
}

describe.skipIf(process.platform !== 'linux')('direct tty over the real socket', () => {
  let server: TestServer;
  let term: pty.IPty;
  let screen = '';
  beforeEach(async () => {
    server = await new TestServer({ scripting: true }).start();
    // The "terminal": a pty whose master this test reads (what the user would see) and writes (keys).
    term = pty.spawn('/bin/sh', ['-c', 'sleep 120'], { cols: 100, rows: 30 });
    screen = '';
    term.onData((data) => (screen += data));
  });
  afterEach(async () => {
    term.kill('SIGKILL');
    await server.stop();
  });

  it('takes an honest claim: ready, then frames on the tty and keys from it reach the pane', async () => {
    // The hello's tty name is the peer's word, and the log names it: a title-setting escape in it stays text.
    const peer = await Peer.attach(server.socketPath, undefined, '\x1b]0;pwned\x07/dev/pts/x');
    await eventually(() => peer.output().includes('w1:p1'), 20_000);
    peer.claim(claimFor((term as unknown as { ptsName: string }).ptsName, server.socketPath));
    expect(await eventually(() => peer.messages.some((m) => m.type === MSG.ready), 10_000)).toBe(true);
    peer.send(MSG.handed);
    expect(await eventually(() => server.stderr.includes('direct tty'), 10_000)).toBe(true);
    expect(server.stderr).toContain('direct tty ^[]0;pwned^G/dev/pts/x');
    expect(server.stderr).not.toContain('\x1b]0;pwned');
    expect((await clients(server))[0].direct).toBe(true);
    const before = peer.output().length;
    term.write('echo TYPED-$((7*6))\r');
    expect(await eventually(() => screen.includes('TYPED-42'), 10_000)).toBe(true);
    // Nothing of that went through the socket: the server wrote the tty itself.
    expect(peer.output().slice(before)).not.toContain('TYPED-42');
    peer.socket.destroy();
  });

  it('draws a terminal that claims more than 250,000 cells at the bound, its aspect kept, and keeps answering', async () => {
    const peer = await Peer.attach(server.socketPath, { cols: 2000, rows: 2000 });
    await eventually(() => peer.output().includes('w1:p1'), 20_000);
    expect((await clients(server))[0]).toMatchObject({ cols: 500, rows: 500 });
    const panes = (await server.json(['pane', 'list'])).result.panes;
    expect(Math.max(...panes.map((p: any) => p.cols))).toBeLessThanOrEqual(500);
    // A resize past the bound is scaled the same way.
    peer.send(MSG.resize, resizePayload(2000, 500));
    let size: unknown;
    for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      const client = (await clients(server))[0];
      size = { cols: client.cols, rows: client.rows };
      if (client.cols !== 500) break;
    }
    expect(size).toEqual({ cols: 1000, rows: 250 });
    peer.socket.destroy();
  });

  it('keeps serving when the terminal it writes to stops reading (non-blocking writes)', async () => {
    // A large terminal: every frame of the flood carries many long rows, so the buffers fill fast.
    const peer = await Peer.attach(server.socketPath, { cols: 400, rows: 150 });
    await eventually(() => peer.output().includes('w1:p1'), 20_000);
    peer.claim(claimFor((term as unknown as { ptsName: string }).ptsName, server.socketPath));
    expect(await eventually(() => peer.messages.some((m) => m.type === MSG.ready), 10_000)).toBe(true);
    peer.send(MSG.handed);
    expect(await eventually(() => server.stderr.includes('direct tty'), 10_000)).toBe(true);
    // The "terminal" stops reading: the pty's buffer fills and every write to it would block.
    term.pause();
    await server.cli(['pane', 'run', 'w1:p1', `yes FLOOD-LINE-$(printf '%0300d' 0)`]);
    await server.cli(['pane', 'wait-output', 'w1:p1', '--regex', 'FLOOD-LINE', '--timeout', '10000']);
    // A blocking write would hold the event loop in write(2) forever once the pty's buffer and
    // node-pty's (paused, up to its high-water mark) are full: a few seconds of frames. The
    // server still answers throughout.
    const until = Date.now() + 6000;
    while (Date.now() < until) {
      const client = await server.connect();
      const pong = await Promise.race([client.call('system.ping'), new Promise((resolve) => setTimeout(() => resolve('no answer within 5 s'), 5000))]);
      client.close();
      expect(pong).toMatchObject({ pong: true });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    term.resume();
    await server.cli(['pane', 'send-keys', 'w1:p1', 'ctrl+c']).catch(() => {});
    peer.socket.destroy();
  });

  it("refuses a claim whose inode is not the tty's, and one naming a pane's own pty; the peer stays on the relay", async () => {
    const peer = await Peer.attach(server.socketPath);
    await eventually(() => peer.output().includes('w1:p1'), 20_000);
    const honest = claimFor((term as unknown as { ptsName: string }).ptsName, server.socketPath);
    peer.claim({ ...honest, ino: honest.ino + 1 });
    expect(await eventually(() => server.stderr.includes('direct tty refused'), 10_000)).toBe(true);
    expect(server.stderr).toContain('device/inode differ');

    // The pane's shell says its pid; its fd 0 is the pane's pty.
    await server.cli(['pane', 'run', 'w1:p1', 'echo PID=$$']);
    await server.cli(['pane', 'wait-output', 'w1:p1', '--regex', 'PID=\\d+', '--timeout', '10000']);
    const shellPid = Number(/PID=(\d+)/.exec((await server.cli(['pane', 'read', 'w1:p1'])).stdout)![1]);
    const panePty = readlinkSync(`/proc/${shellPid}/fd/0`);
    peer.claim(claimFor(panePty, server.socketPath));
    expect(await eventually(() => server.stderr.includes("own terminal or a pane's pty"), 10_000)).toBe(true);

    expect(peer.messages.some((m) => m.type === MSG.ready)).toBe(false);
    expect((await clients(server))[0].direct).toBe(false);
    // Still served over the socket.
    peer.send(MSG.input, Buffer.from('echo RELAYED-$((5*5))\r'));
    expect(await eventually(() => peer.output().includes('RELAYED-25'), 10_000)).toBe(true);
    peer.socket.destroy();
  });
});
