/**
 * The server's half of "direct tty" (docs/clients.md): an attached client on the same machine
 * offers its terminal, and the server opens it by path and reads keys from it and writes frames
 * to it itself, as the tmux server does — the keystroke echo then crosses four processes
 * (terminal → server → shell → server → terminal) instead of six through the client.
 *
 * A client is any process of the user that can reach the socket, so the claim is checked as an
 * attacker would bend it: the server must never open an arbitrary file on a peer's word. The
 * path must be `/dev/pts/N` (no symlink: O_NOFOLLOW, and no other directory), the machine and
 * boot the server's (boot id), the socket the server's own (its inode, as the client saw it),
 * the device not the server's own terminal nor any pane's pty, and what opened a character
 * device owned by the server's user whose device, inode and terminal number are the ones the
 * client stat'ed on its own fd 0. Any failure: the client stays on the relay, and the server
 * log says why.
 *
 * Writes go out with write(2) while nothing is queued, else through a non-blocking libuv tty
 * handle: a slow terminal backs up this handle's queue (the compositor then holds frames until
 * drain, as on the socket), never the event loop.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readFileSync, writeSync } from 'node:fs';
import tty from 'node:tty';
import type { DirectClaim } from '../contract/frame-protocol.js';

/** Only a pseudo-terminal of this machine's devpts: no other directory, no `..`, no link. */
const PTS_PATH = /^\/dev\/pts\/\d{1,9}$/;

/** What the server knows of itself, to check a claim against. */
export interface ClaimContext {
  /** The server's boot id ('' when it cannot be read: then nothing is accepted). */
  bootId: string;
  /** The inode of the socket file the server listens on (null: not known, refuse). */
  socketIno: number | null;
  /** The user the tty must belong to. */
  uid: number;
  /** Terminal device numbers the server must never take: its own and the panes' ptys. */
  forbiddenRdevs(): Iterable<number>;
}

export type ClaimResult = { ok: true; fds: { read: number; write: number } } | { ok: false; reason: string };

/** The controlling terminal of `pid` (`tty_nr` in /proc/<pid>/stat, 0 = none), or null when unreadable. */
export function controllingTty(pid: number | 'self'): number | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm may hold ") ": the fields start after the last ')'; tty_nr is the 5th after it (proc(5)).
    const value = Number.parseInt(text.slice(text.lastIndexOf(')') + 1).trim().split(/\s+/)[4] ?? '', 10);
    return Number.isFinite(value) ? value : null;
  } catch {
    return null;
  }
}

/** The terminals the server itself has: its controlling tty and any tty on its fds 0–2. */
export function ownTtys(): number[] {
  const out: number[] = [];
  const own = controllingTty('self');
  if (own) out.push(own);
  for (const fd of [0, 1, 2]) {
    try {
      const st = fstatSync(fd);
      if (st.isCharacterDevice()) out.push(st.rdev);
    } catch {
      // Closed: nothing to protect.
    }
  }
  return out;
}

/** Opens the claimed path once and checks what opened; returns the fd or why not. */
function openChecked(claim: DirectClaim, ctx: ClaimContext): number | string {
  let fd: number;
  try {
    // O_NOCTTY: a server without a controlling terminal must not acquire the client's.
    fd = openSync(claim.path, constants.O_RDWR | constants.O_NOCTTY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return `cannot open ${claim.path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
  try {
    const st = fstatSync(fd);
    let why: string | null = null;
    if (!st.isCharacterDevice()) why = `${claim.path} is not a character device`;
    else if (st.uid !== ctx.uid) why = `${claim.path} belongs to uid ${st.uid}, not the server's ${ctx.uid}`;
    else if (st.dev !== claim.dev || st.ino !== claim.ino || st.rdev !== claim.rdev) why = `${claim.path} is not the terminal the client has open (device/inode differ)`;
    else if (!tty.isatty(fd)) why = `${claim.path} is not a terminal`;
    if (why === null) return fd;
    closeSync(fd);
    return why;
  } catch (error) {
    closeSync(fd);
    return `cannot check ${claim.path}: ${String(error)}`;
  }
}

/**
 * Checks a claim and opens the terminal twice (one fd for the reading handle, one for the
 * writing one: a libuv tty handle is either, and two handles must not share an fd). Pure of
 * any client state: unit-tested on its own (test/unit/direct-tty.test.ts).
 */
export function openClaim(claim: DirectClaim, ctx: ClaimContext): ClaimResult {
  if (process.platform !== 'linux') return { ok: false, reason: 'direct tty needs Linux (/proc)' };
  if (!ctx.bootId || claim.bootId !== ctx.bootId) return { ok: false, reason: 'the client runs on another machine or boot (boot id differs)' };
  if (ctx.socketIno === null || claim.socketIno !== ctx.socketIno) return { ok: false, reason: "the client's socket is not this server's (inode differs)" };
  if (!PTS_PATH.test(claim.path)) return { ok: false, reason: `${JSON.stringify(claim.path)} is not a /dev/pts/N path` };
  try {
    if (lstatSync(claim.path).isSymbolicLink()) return { ok: false, reason: `${claim.path} is a symlink` };
  } catch {
    return { ok: false, reason: `${claim.path} does not exist` };
  }
  for (const rdev of ctx.forbiddenRdevs()) {
    if (rdev === claim.rdev) return { ok: false, reason: `${claim.path} is the server's own terminal or a pane's pty` };
  }
  const read = openChecked(claim, ctx);
  if (typeof read === 'string') return { ok: false, reason: read };
  const write = openChecked(claim, ctx);
  if (typeof write === 'string') {
    closeSync(read);
    return { ok: false, reason: write };
  }
  return { ok: true, fds: { read, write } };
}

/** The fd a tty stream's libuv handle reads or writes (Node's private `_handle.fd`), or null. */
function handleFd(stream: tty.ReadStream | tty.WriteStream): number | null {
  const fd = (stream as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : null;
}

/**
 * Closes `given` when the stream's handle reopened the terminal on an fd of its own, and
 * returns the fd the handle uses (`given` when it did not, or when Node does not say).
 */
function adoptHandleFd(stream: tty.ReadStream | tty.WriteStream, given: number): number {
  const own = handleFd(stream);
  if (own === null || own === given) return given;
  closeSync(given);
  return own;
}

/** How long the server waits for queued frames to reach a terminal it is handing back. */
const FLUSH_TIMEOUT_MS = 500;

/** A client's terminal held by the server: keys in, frames out, non-blocking both ways. */
export class DirectTty {
  private readonly input: tty.ReadStream;
  private readonly output: tty.WriteStream;
  private closed = false;
  private readonly writeFd: number;

  constructor(fds: { read: number; write: number }, onInput: (chunk: Buffer) => void, onDrain: () => void) {
    this.input = new tty.ReadStream(fds.read);
    this.output = new tty.WriteStream(fds.write);
    // libuv opens the terminal again for each handle (uv_tty_init reopens a pty slave by name,
    // so that making it non-blocking touches no other process's file description) and leaves
    // the fd it was given open. Those two are the server's to close, now: left open, every
    // client that ever attached kept its terminal alive in the server, two fds a client.
    this.writeFd = adoptHandleFd(this.output, fds.write);
    adoptHandleFd(this.input, fds.read);
    // tty.WriteStream makes its writes blocking (process.stdout's behaviour); a server must
    // not stall every client and pane on one slow terminal.
    (this.output as unknown as { _handle?: { setBlocking?(on: boolean): number } })._handle?.setBlocking?.(false);
    this.output.on('drain', onDrain);
    // EIO when the terminal closed: the client then hangs up too (SIGHUP) and detaches.
    this.output.on('error', () => this.destroy());
    this.input.on('error', () => this.input.destroy());
    this.input.on('data', (chunk: Buffer) => {
      if (!this.closed) onInput(chunk);
    });
  }

  /** Stops reading keys until `resumeInput` (a pane this client pastes into is not reading). */
  pauseInput(): void {
    if (!this.closed) this.input.pause();
  }

  resumeInput(): void {
    if (!this.closed) this.input.resume();
  }

  /** Bytes queued for the terminal (not yet taken by the kernel). */
  get backlog(): number {
    return this.output.writableLength;
  }

  /**
   * Writes now: with write(2) in this call when nothing is queued (an echo, a small frame —
   * no stream machinery between the pane's output and the screen), and what the terminal did
   * not take, or anything behind queued bytes, through the non-blocking stream, in order.
   */
  write(data: string | Buffer): void {
    if (this.closed || this.output.destroyed) return;
    let written = 0;
    if (this.output.writableLength === 0) {
      try {
        // A frame is a string: write(2) encodes it natively, no Buffer made in JavaScript first.
        // (Two calls only because writeSync's string and buffer overloads take no union.)
        written = typeof data === 'string' ? writeSync(this.writeFd, data) : writeSync(this.writeFd, data);
      } catch {
        // EAGAIN (the terminal is not reading) or EIO (gone): the stream queues it or reports it.
      }
    }
    if (written === 0) this.output.write(data);
    else {
      // Only a terminal that fell behind takes part of a frame: the rest, as bytes, in order.
      const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
      if (written < bytes.length) this.output.write(bytes.subarray(written));
    }
  }

  /**
   * Hands the terminal back: stop reading keys first (the next ones are the client's, or the
   * shell's after it exits), let queued frames reach the terminal (at most FLUSH_TIMEOUT_MS),
   * then close. The client restores its terminal only after this, so a late frame never lands
   * after the restore.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.destroy();
    if (!this.output.destroyed && this.output.writableLength > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, FLUSH_TIMEOUT_MS);
        timer.unref();
        this.output.once('drain', () => {
          clearTimeout(timer);
          resolve();
        });
        this.output.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.output.destroy();
  }

  /** Closes at once (the client is gone; nobody to hand back to). */
  destroy(): void {
    this.closed = true;
    this.input.destroy();
    this.output.destroy();
  }
}
