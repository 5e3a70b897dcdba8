/**
 * The server's checks on a direct-tty claim (src/tui/direct-tty.ts, docs/clients.md): a peer
 * on the socket must not make the server open anything but the caller's own terminal. Each
 * case is a way an attacker would bend the claim; a real pty (node-pty) is the honest terminal.
 */
import { mkdtempSync, rmSync, statSync, symlinkSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readClaim, type DirectClaim } from '../../src/contract/frame-protocol.js';
import { bootId } from '../../src/boot-id.js';
import { DirectTty, controllingTty, openClaim, type ClaimContext } from '../../src/tui/direct-tty.js';

describe.skipIf(process.platform !== 'linux')('direct tty claim checks', () => {
  let term: pty.IPty;
  let path: string;
  let honest: DirectClaim;
  let dir: string;
  const SOCKET_INO = 4242;
  const context = (over: Partial<ClaimContext> = {}): ClaimContext => ({
    bootId: bootId(),
    socketIno: SOCKET_INO,
    uid: process.getuid!(),
    forbiddenRdevs: () => [],
    ...over,
  });
  const refused = (claim: DirectClaim, ctx = context()): string => {
    const result = openClaim(claim, ctx);
    if (result.ok) {
      closeSync(result.fds.read);
      closeSync(result.fds.write);
      throw new Error(`accepted ${JSON.stringify(claim)}`);
    }
    return result.reason;
  };

  beforeAll(() => {
    term = pty.spawn('/bin/sh', ['-c', 'sleep 60'], { cols: 80, rows: 24 });
    path = (term as unknown as { ptsName: string }).ptsName;
    const st = statSync(path);
    honest = { path, dev: st.dev, ino: st.ino, rdev: st.rdev, bootId: bootId(), socketIno: SOCKET_INO };
    dir = mkdtempSync(join(tmpdir(), 'corral-direct-'));
  });
  afterAll(() => {
    term.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens the honest claim: two fds on the terminal', () => {
    expect(path).toMatch(/^\/dev\/pts\/\d+$/);
    const result = openClaim(honest, context());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    for (const fd of [result.fds.read, result.fds.write]) {
      // The tty the claim named, not something else.
      expect(statSync(`/proc/self/fd/${fd}`).rdev).toBe(honest.rdev);
      closeSync(fd);
    }
  });

  it('refuses a symlink to a terminal, and any path outside /dev/pts', () => {
    const link = join(dir, 'tty-link');
    symlinkSync(path, link);
    expect(refused({ ...honest, path: link })).toMatch(/not a \/dev\/pts\/N path/);
    expect(refused({ ...honest, path: `/dev/pts/../pts/${path.split('/').pop()}` })).toMatch(/not a \/dev\/pts\/N path/);
    expect(refused({ ...honest, path: '/etc/passwd' })).toMatch(/not a \/dev\/pts\/N path/);
    expect(refused({ ...honest, path: '/dev/null' })).toMatch(/not a \/dev\/pts\/N path/);
    // The multiplexer device is under /dev/pts but opening it would allocate a new pty.
    expect(refused({ ...honest, path: '/dev/pts/ptmx' })).toMatch(/not a \/dev\/pts\/N path/);
  });

  it('refuses when the device, inode or terminal number is not what the client has open', () => {
    expect(refused({ ...honest, ino: honest.ino + 1 })).toMatch(/device\/inode differ/);
    expect(refused({ ...honest, rdev: honest.rdev + 1 })).toMatch(/device\/inode differ/);
    expect(refused({ ...honest, dev: honest.dev + 1 })).toMatch(/device\/inode differ/);
  });

  it('refuses another machine or boot, another socket, another user, and no boot id at all', () => {
    expect(refused({ ...honest, bootId: '00000000-0000-0000-0000-000000000000' })).toMatch(/boot id/);
    expect(refused(honest, context({ bootId: '' }))).toMatch(/boot id/);
    expect(refused({ ...honest, socketIno: SOCKET_INO + 1 })).toMatch(/socket/);
    expect(refused(honest, context({ socketIno: null }))).toMatch(/socket/);
    expect(refused(honest, context({ uid: process.getuid!() + 1 }))).toMatch(/belongs to uid/);
  });

  it("refuses the server's own terminal and a pane's pty (read from the pane process's controlling tty)", async () => {
    // node-pty's child takes the pty as its controlling terminal: the pane check reads exactly that.
    const deadline = Date.now() + 5000;
    while (controllingTty(term.pid) !== honest.rdev && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(controllingTty(term.pid)).toBe(honest.rdev);
    expect(refused(honest, context({ forbiddenRdevs: () => [controllingTty(term.pid)!] }))).toMatch(/own terminal or a pane's pty/);
  });

  it('reads only well-formed claims', () => {
    expect(readClaim(Buffer.from(JSON.stringify(honest)))).toEqual(honest);
    expect(readClaim(Buffer.from('not json'))).toBeNull();
    expect(readClaim(Buffer.from(JSON.stringify({ ...honest, ino: -1 })))).toBeNull();
    expect(readClaim(Buffer.from(JSON.stringify({ ...honest, path: 7 })))).toBeNull();
    expect(readClaim(Buffer.from('null'))).toBeNull();
  });

  it('writes everything in order: at once while nothing is queued, behind the queue once the terminal stops reading', async () => {
    const result = openClaim(honest, context());
    if (!result.ok) throw new Error(result.reason);
    let drained = 0;
    const tty = new DirectTty(result.fds, () => {}, () => drained++);
    let received = '';
    const listener = term.onData((data) => (received += data));
    try {
      // The reader (node-pty's end) stops reading: the kernel's buffer fills, write(2) meets
      // EAGAIN, and what follows must wait behind what was queued.
      term.pause();
      // Frames come as strings, other output as bytes; '─' is three bytes, so a string the
      // kernel takes only part of must be cut by bytes, not by characters.
      // The first is a frame larger than the kernel's buffer: written in part at once, the rest queued.
      const chunks = [`<${'─x'.repeat(60_000)}>`, ...Array.from({ length: 400 }, (_, i) => `[${String(i).padStart(4, '0')}${'x─'.repeat(125)}]`)];
      chunks.forEach((chunk, i) => tty.write(i % 2 === 0 ? chunk : Buffer.from(chunk)));
      expect(tty.backlog).toBeGreaterThan(0);
      term.resume();
      const expected = chunks.join('');
      const deadline = Date.now() + 10_000;
      while (received.length < expected.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      expect(received).toBe(expected);
      expect(drained).toBeGreaterThan(0);
    } finally {
      listener.dispose();
      tty.destroy();
    }
  });
});
