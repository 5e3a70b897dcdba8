/**
 * Where a caller stands relative to the panes (src/pty/peer-place.ts), on made-up /proc trees:
 * every way a process can be tied to a pane, a person's terminal, and the cases that must fail
 * closed (gone, unreadable, another user). Plus the kernel's own answer on a real socket
 * (src/pty/peer-cred.ts), including a peer that exits before it is placed.
 */
import { spawn } from 'node:child_process';
import { createServer, type Socket } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { placeProcess, type FdKind, type PaneProcess, type PeerProcfs } from '../../src/pty/peer-place.js';
import { PeerCred } from '../../src/pty/peer-cred.js';
import type { ProcStat } from '../../src/pty/foreground.js';

const ME = 1000;
const SERVER = 50;
/** /dev/pts/N as a device number (major 136), as the kernel encodes it for small N. */
const pts = (n: number) => (136 << 8) | n;

interface Proc {
  ppid: number;
  session?: number;
  ttyNr?: number;
  uid?: number;
  fd0?: FdKind | null;
  masters?: number[];
}

class FakeProcfs implements PeerProcfs {
  readonly procs = new Map<number, Proc>();
  constructor(entries: Record<number, Proc>) {
    for (const [pid, proc] of Object.entries(entries)) this.procs.set(Number(pid), proc);
  }
  stat(pid: number): ProcStat | null {
    const p = this.procs.get(pid);
    return p ? { pid, comm: 'x', state: 'S', ppid: p.ppid, pgrp: pid, session: p.session ?? pid, ttyNr: p.ttyNr ?? 0, tpgid: -1 } : null;
  }
  uid(pid: number): number | null {
    const p = this.procs.get(pid);
    return p ? (p.uid ?? ME) : null;
  }
  fd(pid: number): FdKind | null {
    const p = this.procs.get(pid);
    if (!p) return null;
    return p.fd0 === undefined ? { kind: 'other' } : p.fd0;
  }
  ptyMasters(pid: number): number[] | null {
    const p = this.procs.get(pid);
    if (!p) return null;
    return (p.uid ?? ME) === ME ? (p.masters ?? []) : null;
  }
  pids(): number[] {
    return [...this.procs.keys()];
  }
}

/** Pane 7's shell is pid 101, leading its session on /dev/pts/3. */
const PANES: PaneProcess[] = [{ surfaceId: 7, pid: 101, ttyRdev: pts(3) }];
const tty = (n: number): FdKind => ({ kind: 'tty', rdev: pts(n), pts: n });

/** The common base: init, the server, pane 7's shell, and a person's terminal emulator (300) with a shell (400) on /dev/pts/5. */
function world(extra: Record<number, Proc>): FakeProcfs {
  return new FakeProcfs({
    1: { ppid: 0 },
    [SERVER]: { ppid: 1, masters: [3] },
    101: { ppid: SERVER, ttyNr: pts(3), fd0: tty(3) },
    300: { ppid: 1, masters: [5] },
    400: { ppid: 300, ttyNr: pts(5), fd0: tty(5) },
    ...extra,
  });
}

const place = (procfs: PeerProcfs, pid: number, followTerminal = true) => placeProcess(pid, PANES, procfs, { followTerminal, serverPid: SERVER, uid: ME });

describe('placeProcess', () => {
  it('a client run from a person’s terminal is outside every pane, with a terminal', () => {
    expect(place(world({ 500: { ppid: 400, session: 400, ttyNr: pts(5), fd0: tty(5) } }), 500)).toEqual({ kind: 'outside', terminal: true });
  });

  it('a client with a pipe for input is outside but has no terminal', () => {
    expect(place(world({ 500: { ppid: 400, session: 400, ttyNr: pts(5), fd0: { kind: 'other' } } }), 500)).toEqual({ kind: 'outside', terminal: false });
  });

  it('a descendant of a pane’s shell is in that pane, whatever else it has', () => {
    const procfs = world({ 600: { ppid: 101, session: 101, ttyNr: pts(3), fd0: tty(3) }, 601: { ppid: 600, session: 601, fd0: tty(5) } });
    expect(place(procfs, 600)).toEqual({ kind: 'pane', surfaceId: 7, link: 'process-tree' });
    // `setsid` without a fork: a new session, no terminal, the ancestry intact.
    expect(place(procfs, 601)).toEqual({ kind: 'pane', surfaceId: 7, link: 'process-tree' });
  });

  it('an orphan is still placed by its session, its controlling terminal or its input', () => {
    expect(place(world({ 700: { ppid: 1, session: 101 } }), 700)).toEqual({ kind: 'pane', surfaceId: 7, link: 'session' });
    expect(place(world({ 700: { ppid: 1, session: 700, ttyNr: pts(3) } }), 700)).toEqual({ kind: 'pane', surfaceId: 7, link: 'terminal' });
    expect(place(world({ 700: { ppid: 1, session: 700, fd0: tty(3) } }), 700)).toEqual({ kind: 'pane', surfaceId: 7, link: 'terminal' });
  });

  it('a terminal whose master a process inside a pane holds (script, pty.spawn) is that pane’s', () => {
    // 900 (`script`, in pane 7) made /dev/pts/9; 800 is a client on it whose ancestry was cut.
    const procfs = world({ 900: { ppid: 101, session: 101, ttyNr: pts(3), masters: [9] }, 800: { ppid: 1, session: 800, ttyNr: pts(9), fd0: tty(9) } });
    expect(place(procfs, 800)).toEqual({ kind: 'pane', surfaceId: 7, link: 'terminal-master' });
    // A hook's check does not follow terminals: that orphan is outside for it.
    expect(place(procfs, 800, false)).toEqual({ kind: 'outside', terminal: true });
  });

  it('a terminal nested through a chain of masters is followed to the pane', () => {
    // 900 in pane 7 holds pts/9; 910 (an orphan on pts/9) holds pts/11; 800 is on pts/11.
    const procfs = world({
      900: { ppid: 101, masters: [9] },
      910: { ppid: 1, session: 910, fd0: tty(9), masters: [11] },
      800: { ppid: 1, session: 800, fd0: tty(11) },
    });
    expect(place(procfs, 800)).toEqual({ kind: 'pane', surfaceId: 7, link: 'terminal-master' });
  });

  it('fails closed: a process gone before it is read, another user’s, one whose input cannot be read, a terminal of the server’s own', () => {
    expect(place(world({}), 999)).toEqual({ kind: 'unknown', why: 'process 999 is gone' });
    expect(place(world({ 500: { ppid: 400, uid: 0, fd0: tty(5) } }), 500)).toMatchObject({ kind: 'unknown', why: 'process 500 belongs to uid 0' });
    expect(place(world({ 500: { ppid: 400, fd0: null } }), 500)).toMatchObject({ kind: 'unknown' });
    expect(place(world({ 500: { ppid: 1, session: 500, fd0: tty(12) }, [SERVER]: { ppid: 1, masters: [3, 12] } }), 500)).toMatchObject({ kind: 'unknown' });
  });

  it('finds a master outside the ancestry by a scan of this user’s processes only', () => {
    // The emulator (300) is not an ancestor (the client was double-forked); another user's process is skipped.
    const procfs = world({ 500: { ppid: 1, session: 500, fd0: tty(5) }, 301: { ppid: 1, uid: 0, masters: [5] } });
    expect(place(procfs, 500)).toEqual({ kind: 'outside', terminal: true });
    const inPane = world({ 500: { ppid: 1, session: 500, fd0: tty(5) }, 300: { ppid: 101, masters: [5] } });
    expect(place(inPane, 500)).toEqual({ kind: 'pane', surfaceId: 7, link: 'terminal-master' });
  });

  it('stops on an ancestry loop', () => {
    expect(place(world({ 500: { ppid: 501, fd0: { kind: 'other' } }, 501: { ppid: 500 } }), 500)).toEqual({ kind: 'outside', terminal: false });
  });
});

describe('PeerCred: the kernel’s word on a real socket', () => {
  it('names the connecting process, and knows once it is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'corral-peer-'));
    const path = join(dir, 's.sock');
    const accepted = new Promise<Socket>((resolve) => {
      const server = createServer((socket) => {
        server.close();
        resolve(socket);
      }).listen(path);
    });
    // The child connects, waits for one byte, then exits (and is reaped by this process).
    const child = spawn(process.execPath, ['-e', `const s = require('net').connect(${JSON.stringify(path)}); s.on('data', () => process.exit(0));`]);
    const socket = await accepted;
    const peer = PeerCred.of(socket)!;
    expect(peer.pid).toBe(child.pid);
    expect(peer.uid).toBe(process.getuid!());
    expect(peer.stillThere()).toBe(true);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    socket.write('x');
    await exited;
    expect(peer.stillThere()).toBe(false);
    peer.release();
    socket.destroy();
    rmSync(dir, { recursive: true, force: true });
  });
});
