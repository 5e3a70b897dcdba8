/**
 * One pane's child process on a pty (node-pty): output as raw bytes, input written with
 * write(2) on the master (queued and ordered above, in `PaneInput`), flow control hooks and a
 * kill that takes the whole session down, TERM first and KILL after a grace period. Habits
 * from VS Code's terminalProcess.ts.
 */
import { readSync, writeSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import * as pty from 'node-pty';
import { Emitter } from '../terminal/emitter.js';
import type { Disposable } from '../contract/disposable.js';
import { readStat, sessionProcesses } from './foreground.js';
import { isolatedCommand } from './isolated-exec.js';
import { lineModeOf, type LineMode } from './line-mode.js';
import { ECHO_TRACE, HOP } from '../screen/echo-trace.js';

/** Process-ending policy. */
export const KILL = {
  /** Time for SIGHUP/SIGTERM handlers (save state, restore the terminal) before SIGKILL. */
  graceMs: 1500,
  /** Liveness poll while waiting for the session to die; only runs during a kill. */
  pollMs: 50,
  /** After SIGKILL, stop waiting on stragglers (unreapable zombies, D-state) after this long. */
  afterKillMs: 2000,
} as const;

/** Reading what is left in the pty after libuv reported end-of-file (see drainAfterEof). */
const EOF_DRAIN = {
  /** Read size; the kernel's pty buffers hold far less, so one or two reads empty them. */
  chunkBytes: 65_536,
  /** Upper bound so a misbehaving fd can never spin the event loop. */
  maxBytes: 1_048_576,
} as const;

export interface SpawnOptions {
  file: string;
  args?: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  cols: number;
  rows: number;
}

export interface ExitInfo {
  /** The exit status, or null when a signal ended the process. */
  exitCode: number | null;
  /** The signal that ended the process (`SIGKILL`), or null when it exited by itself. */
  signal: string | null;
}

/** `SIGKILL` for 9; the number as `SIG<n>` for a signal Node has no name for. */
export function signalName(signal: number): string {
  const entry = Object.entries(osConstants.signals).find(([, value]) => value === signal);
  return entry ? entry[0] : `SIG${signal}`;
}

/**
 * A piece of pane output: raw bytes (xterm decodes UTF-8 itself, including sequences split
 * across reads), or text if node-pty could not be switched to bytes (see `readRawBytes`).
 */
export type PtyOutput = Buffer | string;

/** The parts of node-pty's UnixTerminal corral reaches into; any of them may be missing. */
interface NodePtyInternals {
  /** The tty.ReadStream over the pty master. */
  _socket?: NodeJS.EventEmitter & { _readableState?: { decoder?: unknown; encoding?: unknown } };
  fd?: number;
}

function ptyInternals(ptyProcess: pty.IPty): NodePtyInternals {
  return ptyProcess as unknown as NodePtyInternals;
}

/** Terminal type announced to pane processes (SPEC §1). */
const TERM_NAME = 'xterm-256color';

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // Already gone (ESRCH) or not ours (EPERM): nothing left to do for this group.
  }
}

/** Live (non-zombie) processes of a session, by process group. */
function liveSessionGroups(sid: number): Set<number> {
  return new Set(sessionProcesses(sid).filter((p) => p.state !== 'Z').map((p) => p.pgrp));
}

let warnedNotIsolated = false;

/** Without bash, panes start without the fd-closing step; say so once, in the server's log. */
function warnNotIsolatedOnce(): void {
  if (warnedNotIsolated) return;
  warnedNotIsolated = true;
  process.stderr.write('corral: bash not found; panes start with the server\'s other open file descriptors (see docs/security.md)\n');
}

/**
 * What a PaneHost drives of its child: PaneProcess on a real pty, or a scripted stand-in in
 * unit tests of what sits above the pty (the core).
 */
export interface PtyChild {
  readonly pid: number;
  readonly exited: boolean;
  onData(listener: (data: PtyOutput) => void): Disposable;
  waitForExit(): Promise<ExitInfo>;
  /**
   * Writes to the pty now, as far as it takes: the number of bytes taken (0 when it takes
   * none now: EAGAIN). Throws once the pty is gone. Only `PaneInput` calls it, which keeps
   * everything not taken in order (see src/pty/pane-input.ts).
   */
  writeSome(bytes: Uint8Array): number;
  resize(cols: number, rows: number): void;
  /** How the terminal takes input now (src/pty/line-mode.ts); null when it cannot be read. */
  lineMode(): LineMode | null;
  pause(): void;
  resume(): void;
  kill(): Promise<void>;
  dispose(): void;
}

/** A child process running on its own pty. */
export class PaneProcess implements PtyChild {
  private readonly dataEmitter = new Emitter<PtyOutput>();
  private readonly exitEmitter = new Emitter<ExitInfo>();
  private readonly ptyDisposables: Disposable[] = [];
  /** node-pty closed the pty's fd (its socket closed): its number may be another file's now. */
  private fdClosed = false;
  private _exit: ExitInfo | null = null;
  private readonly exitPromise: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;
  private killing: Promise<void> | null = null;
  private disposed = false;
  /** Output arrives as Buffers (see readRawBytes). */
  private rawBytes = false;

  private constructor(private readonly ptyProcess: pty.IPty) {
    this.exitPromise = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.readRawBytes();
    this.ptyDisposables.push(
      ptyProcess.onData((chunk: PtyOutput) => this.onPtyData(chunk)),
      ptyProcess.onExit(({ exitCode, signal }) => this.onPtyExit(exitCode, signal)),
    );
    this.installEofDrain();
  }

  /**
   * Start `file` on a new pty; its session and process group id equal its pid. It starts with
   * only its own terminal open (fds 0–2): no other pane's pty, no socket of the server.
   */
  static spawn(options: SpawnOptions): PaneProcess {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(options.env)) if (value !== undefined) env[key] = value;
    // node-pty puts these into the environment it spawns with; the program must see them too.
    env.PWD = options.cwd;
    env.TERM = TERM_NAME;
    const command = isolatedCommand(options.file, options.args ?? [], env);
    if (!command.isolated) warnNotIsolatedOnce();
    const child = pty.spawn(command.file, command.args, {
      name: TERM_NAME,
      cols: options.cols,
      rows: options.rows,
      cwd: options.cwd,
      env: command.env,
    });
    return new PaneProcess(child);
  }

  get pid(): number {
    return this.ptyProcess.pid;
  }

  get exited(): boolean {
    return this._exit !== null;
  }

  /** The exit code, or null while running. */
  get exitCode(): number | null {
    return this._exit?.exitCode ?? null;
  }

  /** How the process ended, or null while running. */
  get exitInfo(): ExitInfo | null {
    return this._exit;
  }

  /**
   * Output, one piece per read(2), delivered at once. Not batched: measured (bench/throughput)
   * a 1–4 ms coalescing window left the parser idle while the pty refilled, and coalescing per
   * event-loop turn gained nothing, since the kernel's pty buffer holds about one read.
   */
  onData(listener: (data: PtyOutput) => void): Disposable {
    return this.dataEmitter.on(listener);
  }

  /** Fires once, after the last output was delivered. */
  onExit(listener: (info: ExitInfo) => void): Disposable {
    return this.exitEmitter.on(listener);
  }

  /** Resolves with the exit info once the process ended (at once if it already has). */
  waitForExit(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  /** Stop reading output; the kernel buffer fills and the writer blocks (flow control). */
  pause(): void {
    if (!this.exited) this.ptyProcess.pause();
  }

  /** Resume reading after `pause`. */
  resume(): void {
    if (!this.exited) this.ptyProcess.resume();
  }

  lineMode(): LineMode | null {
    if (this.exited || this.disposed || this.fdClosed) return null;
    const fd = ptyInternals(this.ptyProcess).fd;
    return typeof fd === 'number' ? lineModeOf(fd) : null;
  }

  /**
   * See PtyChild.writeSome. write(2) on the master, non-blocking, in this call — not node-pty's
   * `write`, which goes through `fs.write` on libuv's thread pool (a thread hand-off and a second
   * wake-up of the event loop per keystroke, ~0.5 ms of echo p50 on a loaded 2-core machine:
   * docs/bench.md, "Echo through an attached client") and retries EAGAIN with a setImmediate
   * loop that spins a core while the program reads nothing. Uses node-pty's private `fd`;
   * without it, node-pty writes (and queues) everything.
   */
  writeSome(bytes: Uint8Array): number {
    if (this.exited || this.disposed || this.fdClosed) throw new Error('the pty is closed');
    const fd = ptyInternals(this.ptyProcess).fd;
    if (typeof fd !== 'number') {
      this.ptyProcess.write(Buffer.from(bytes));
      return bytes.length;
    }
    let taken: number;
    try {
      taken = writeSync(fd, bytes);
    } catch (error) {
      // EAGAIN: the pty's input buffer is full (the program is not reading); anything else
      // (EIO: its last process exited) means the pty cannot take input any more.
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') return 0;
      throw error;
    }
    ECHO_TRACE?.mark(HOP.ptyWritten);
    return taken;
  }

  /** Resize the pty (SIGWINCH to the foreground job); ignored once exited. */
  resize(cols: number, rows: number): void {
    if (this.exited || this.disposed) return;
    if (!Number.isInteger(cols) || !Number.isInteger(rows) || cols < 1 || rows < 1) return;
    try {
      this.ptyProcess.resize(cols, rows);
    } catch {
      // The pty can close between the exit check and the ioctl; the exit event follows.
    }
  }

  /**
   * End everything in the pane's session: SIGHUP + SIGTERM to every process group in it (the
   * shell, its foreground job, background jobs), SIGKILL to what is left after the grace period.
   * Resolves once the process exited and no live process remains in its session.
   */
  kill(): Promise<void> {
    if (!this.killing) this.killing = this.terminateSession();
    return this.killing;
  }

  /** Stop listening and timers; kills the process if it still runs (without waiting). */
  dispose(): void {
    if (this.disposed) return;
    if (!this.exited) void this.kill();
    this.disposed = true;
    this.dataEmitter.clear();
    this.exitEmitter.clear();
  }

  /**
   * node-pty decodes output to strings when spawned with `encoding: 'utf8'`, and only that
   * spawn sets the pty's IUTF8 flag (line editing of multibyte characters in cooked mode).
   * So spawn with utf8 and then take the decoder off its socket: xterm parses bytes directly,
   * which saves a UTF-8 → UTF-16 → UTF-32 round trip per byte (bench/throughput: ~9 % of a
   * flood). Uses node-pty's private `_socket` and the stream's `_readableState`; if either
   * is missing, output simply stays text.
   */
  private readRawBytes(): void {
    const state = ptyInternals(this.ptyProcess)._socket?._readableState;
    if (!state || !('decoder' in state) || !('encoding' in state)) return;
    state.decoder = null;
    state.encoding = null;
    this.rawBytes = true;
  }

  /**
   * libuv treats a short read after POLLHUP as end-of-file (libuv#4992), so when the pane's
   * last process exits right after writing, up to a kernel buffer of output is still unread
   * when node-pty closes the pty (node-pty#726; seen here as lost `seq` tails). Before the
   * socket closes its fd on 'end', read the rest synchronously: the fd is non-blocking and
   * every slave is closed, so this ends with EIO (or EAGAIN) after a read or two.
   * Uses node-pty's private `_socket`; without it we only lose the fix, not the pane.
   */
  private installEofDrain(): void {
    const internals = ptyInternals(this.ptyProcess);
    const socket = internals._socket;
    const fd = internals.fd;
    if (!socket || typeof socket.prependListener !== 'function' || typeof fd !== 'number') return;
    socket.prependListener('end', () => this.drainAfterEof(fd));
    // The socket closes the fd: from then on its number may name another file, never to be written.
    socket.prependListener('close', () => {
      this.fdClosed = true;
    });
  }

  private drainAfterEof(fd: number): void {
    const buffer = Buffer.allocUnsafe(EOF_DRAIN.chunkBytes);
    // Same kind of output as the socket delivers; a decoder keeps split characters whole.
    const decoder = this.rawBytes ? null : new TextDecoder('utf-8');
    let total = 0;
    while (total < EOF_DRAIN.maxBytes) {
      let n: number;
      try {
        n = readSync(fd, buffer, 0, buffer.length, null);
      } catch {
        break; // EIO: drained and the other side is gone; EAGAIN: nothing more right now.
      }
      if (n <= 0) break;
      total += n;
      const bytes = Buffer.from(buffer.subarray(0, n));
      if (!decoder) this.onPtyData(bytes);
      else {
        const text = decoder.decode(bytes, { stream: true });
        if (text) this.onPtyData(text);
      }
    }
    const rest = decoder?.decode();
    if (rest) this.onPtyData(rest);
  }

  private onPtyData(chunk: PtyOutput): void {
    ECHO_TRACE?.mark(HOP.ptyRead);
    if (!this.disposed) this.dataEmitter.fire(chunk);
  }

  private onPtyExit(exitCode: number, signal: number | undefined): void {
    if (this._exit) return;
    // node-pty reports exit after its socket closed, so every byte has been read and delivered.
    // node-pty reports a signalled process as exit code 0 plus the signal; 0 would read as success.
    this._exit = signal ? { exitCode: null, signal: signalName(signal) } : { exitCode, signal: null };
    for (const d of this.ptyDisposables) d.dispose();
    this.exitEmitter.fire(this._exit);
    this.resolveExit(this._exit);
  }

  private groupsToSignal(): Set<number> {
    const groups = liveSessionGroups(this.pid);
    if (!this.exited) {
      // The shell leads its session, so its pgid is its pid; its tpgid is the foreground job.
      groups.add(this.pid);
      const tpgid = readStat(this.pid)?.tpgid ?? -1;
      if (tpgid > 0) groups.add(tpgid);
    }
    return groups;
  }

  private sessionEnded(): boolean {
    return this.exited && liveSessionGroups(this.pid).size === 0;
  }

  private async waitUntilEnded(ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    while (!this.sessionEnded()) {
      if (Date.now() >= deadline) return false;
      await sleep(KILL.pollMs);
    }
    return true;
  }

  private async terminateSession(): Promise<void> {
    if (this.sessionEnded()) return;
    // SIGHUP is what a closing terminal sends: interactive shells ignore SIGTERM but on SIGHUP
    // exit and pass the hangup on to their jobs.
    for (const pgid of this.groupsToSignal()) {
      signalGroup(pgid, 'SIGHUP');
      signalGroup(pgid, 'SIGTERM');
    }
    if (await this.waitUntilEnded(KILL.graceMs)) return;
    for (const pgid of this.groupsToSignal()) signalGroup(pgid, 'SIGKILL');
    await this.waitUntilEnded(KILL.afterKillMs);
    // Whatever else is left, the exit itself must be observed before kill() resolves.
    await this.exitPromise;
  }
}
