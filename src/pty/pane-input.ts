/**
 * One pane's input (issue 27): every byte any writer sends to the pane's pty — a client's keys,
 * a paste, `send-text`, `send-keys`, flow steps, the headless terminal's replies — goes through
 * this one ordered queue, and only this queue writes the pty.
 *
 * - **Units.** A writer hands over a unit (a key chunk, one send-text, a whole paste) and units
 *   are never interleaved: a unit's bytes reach the pty together, in the order units were
 *   accepted. A paste from a client's terminal is an *open* unit, filled as it arrives (`open`):
 *   units accepted after it wait behind it until it ends, so another client's keys never land
 *   inside it.
 * - **Now when idle.** With nothing queued, a unit is written with write(2) in the call (a
 *   keystroke's latency, docs/compositor.md "The typing express").
 * - **Back-pressure.** What the kernel does not take (EAGAIN, a short write) stays queued and is
 *   retried: on the next loop turn while the program is reading, then on a timer backing off to
 *   `retryMaxMs` while it is not — never a busy loop. At `maxQueuedBytes` a new unit is refused
 *   (`send` returns false: the caller says so) and an open unit's writer is told to pause
 *   (`write` returns false; `whenRoom` says when to go on). Nothing accepted is dropped, except
 *   when the pty itself is gone.
 */
import type { Disposable } from '../contract/disposable.js';

export const PANE_INPUT = {
  /**
   * Input queued for a pane whose program does not read. 8 MiB holds any paste a person
   * makes (a 40,000-line log is ~4 MB) and every script's send-text (64 KiB each) several
   * times over, while a program that never reads costs the server at most this much.
   */
  maxQueuedBytes: 8 * 1024 * 1024,
  /** A paused paste goes on once the queue is down to half: one pause per 4 MiB read, not one per chunk. */
  resumeBelowBytes: 4 * 1024 * 1024,
  /** The first retry after a write the kernel took nothing of (doubling from here). */
  retryFirstMs: 1,
  /** The slowest retry while a program reads nothing: 20 syscalls a second, no CPU to speak of. */
  retryMaxMs: 50,
  /**
   * While the program took bytes this recently it is reading: retry on the next loop turn
   * (setImmediate) rather than a timer, which is ≥ 1 ms. Measured: a 4.3 MB paste into `cat`
   * in 50 ms retrying each turn, 440 ms with 1 ms timers.
   */
  readingWithinMs: 2,
  /**
   * An open unit (a paste) that has had all its bytes written and sent nothing more for this
   * long, while other units wait behind it, yields to them: a terminal that never sends the
   * paste's end must not hold every other writer of the pane forever.
   */
  openUnitStallMs: 2000,
  /** Small pieces queued behind each other are joined up to this size (fewer syscalls, fewer objects). */
  coalesceBytes: 16 * 1024,
} as const;

/** A queue's size as a person reads it in a message: `4.0 MiB`. */
export function mebibytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/**
 * write(2) on the pty master: the number of bytes the kernel took (0: none now, EAGAIN). Throws
 * when the pty is gone (the program exited): the queue is then dropped.
 */
export type WriteSome = (bytes: Uint8Array) => number;

/** When retries run (the real event loop unless a test brings its own). */
export interface InputClock {
  now(): number;
  /** Runs `fn` after `ms`; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
  /** Runs `fn` on the next turn of the event loop; returns a cancel function. */
  nextTurn(fn: () => void): () => void;
}

const EVENT_LOOP: InputClock = {
  now: () => performance.now(),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
  nextTurn: (fn) => {
    const immediate = setImmediate(fn);
    return () => clearImmediate(immediate);
  },
};

/** An open unit: a writer's stream of bytes that nothing else may come between (a paste). */
export interface InputUnit {
  /** Whether bytes written now still join this unit (false once ended, yielded or the pane gone). */
  readonly isOpen: boolean;
  /**
   * Appends bytes to the unit; they are accepted whatever the queue holds. Returns false when
   * the queue is at its bound: the writer should pause until `PaneInput.whenRoom`.
   */
  write(bytes: Uint8Array): boolean;
  /** Ends the unit (with `last`, its final bytes): units behind it may go. */
  end(last?: Uint8Array): void;
}

interface Unit {
  /** Queued pieces, oldest first; the first may be partly written (`PaneInput.headOffset`). */
  readonly chunks: Uint8Array[];
  open: boolean;
  /** An open unit yielding to the ones behind it: its last bytes (a paste's end marker), or null. */
  readonly onYield: (() => Uint8Array | null) | null;
}

export class PaneInput {
  /** Units in order; the first is the one being written. */
  private units: Unit[] = [];
  /** Bytes of the first chunk of the first unit already written. */
  private headOffset = 0;
  private queued = 0;
  private closed = false;
  private cancelRetry: (() => void) | null = null;
  /** The next retry's wait while the program reads nothing (doubling up to `retryMaxMs`). */
  private retryMs: number;
  private lastProgressAt = -Infinity;
  private cancelStall: (() => void) | null = null;
  private roomWaiters: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly writeSome: WriteSome,
    private readonly clock: InputClock = EVENT_LOOP,
    private readonly limits: typeof PANE_INPUT = PANE_INPUT,
  ) {
    this.retryMs = limits.retryFirstMs;
  }

  /** Bytes accepted and not yet taken by the kernel. */
  get queuedBytes(): number {
    return this.queued;
  }

  /** Nothing queued and no unit open: a unit sent now is written in the call. */
  get idle(): boolean {
    return this.units.length === 0;
  }

  /** Whether a new unit would be refused (`send` returns false). */
  get full(): boolean {
    return this.queued >= this.limits.maxQueuedBytes;
  }

  /**
   * Accepts one whole unit behind everything accepted before it and writes what it can now.
   * Returns false, accepting nothing, when the queue is at its bound (`full`).
   */
  send(bytes: Uint8Array): boolean {
    if (this.closed || bytes.length === 0) return true;
    if (this.units.length === 0) return this.sendNow(bytes);
    if (this.full) return false;
    const last = this.units[this.units.length - 1];
    // Closed units next to each other are one unit as far as order goes: joined, no object each.
    if (last !== undefined && !last.open) this.append(last, bytes);
    else this.units.push({ chunks: [bytes], open: false, onYield: null });
    this.queued += bytes.length;
    // Behind a retry: it waits its turn. Behind an open unit with nothing to write: pump
    // starts watching that one for a stall.
    if (this.cancelRetry === null) this.pump();
    return true;
  }

  /**
   * A unit with nothing queued before it (a keystroke, mostly): straight to the pty, and only
   * what the kernel does not take becomes a queued unit — no object, no loop on the way of
   * every key.
   */
  private sendNow(bytes: Uint8Array): boolean {
    const taken = this.take(bytes);
    if (taken === null || taken >= bytes.length) return true;
    this.units.push({ chunks: [bytes.subarray(taken)], open: false, onYield: null });
    this.queued += bytes.length - taken;
    this.scheduleRetry();
    return true;
  }

  /** write(2) of `bytes`: how many the kernel took, or null when the pty is gone (the queue is closed then). */
  private take(bytes: Uint8Array): number | null {
    let taken: number;
    try {
      taken = this.writeSome(bytes);
    } catch {
      // The pty is gone (EIO: its program exited; EBADF: closed): nothing can reach it.
      this.close();
      return null;
    }
    if (taken > 0) {
      this.lastProgressAt = this.clock.now();
      this.retryMs = this.limits.retryFirstMs;
    }
    return taken;
  }

  /** The typing express: `send` only when nothing is queued (so it is written now); false otherwise. */
  sendIfIdle(bytes: Uint8Array): boolean {
    if (this.closed || !this.idle) return false;
    return this.send(bytes);
  }

  /**
   * Opens a unit filled as it arrives (a paste from a client's terminal). `onYield` gives the
   * bytes that close it properly (a paste's end marker) should it have to yield to the units
   * behind it (`openUnitStallMs`); its writer then sees `isOpen` false and opens another.
   */
  open(onYield: (() => Uint8Array | null) | null = null): InputUnit {
    const unit: Unit = { chunks: [], open: !this.closed, onYield };
    if (unit.open) this.units.push(unit);
    const input = this;
    return {
      get isOpen() {
        return unit.open && !input.closed;
      },
      write(bytes) {
        if (!unit.open || input.closed) return true;
        if (bytes.length > 0) input.appendToOpen(unit, bytes);
        return !input.full;
      },
      end(last) {
        if (!unit.open || input.closed) return;
        if (last && last.length > 0) input.appendToOpen(unit, last);
        unit.open = false;
        if (input.units[0] === unit) {
          input.cancelStall?.();
          input.cancelStall = null;
          if (input.cancelRetry === null) input.pump();
        }
      },
    };
  }

  /** Runs `fn` once the queue is down to `resumeBelowBytes` (at once if it is), or the pane is gone. */
  whenRoom(fn: () => void): Disposable {
    if (this.closed || this.queued < this.limits.resumeBelowBytes) {
      fn();
      return { dispose: () => {} };
    }
    this.roomWaiters.push(fn);
    return { dispose: () => void (this.roomWaiters = this.roomWaiters.filter((w) => w !== fn)) };
  }

  /** Resolves once everything accepted so far has been written (or the pane is gone). */
  whenIdle(): Promise<void> {
    if (this.closed || this.idle) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** The pane is gone: drop what is queued, stop retrying, release every waiter. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const unit of this.units) unit.open = false;
    this.units = [];
    this.queued = 0;
    this.headOffset = 0;
    this.cancelRetry?.();
    this.cancelRetry = null;
    this.cancelStall?.();
    this.cancelStall = null;
    this.released();
  }

  private append(unit: Unit, bytes: Uint8Array): void {
    const chunks = unit.chunks;
    const tail = chunks[chunks.length - 1];
    if (tail !== undefined && tail.length + bytes.length <= this.limits.coalesceBytes) {
      // A partly written head keeps its offset: the joined piece starts with the same bytes.
      chunks[chunks.length - 1] = Buffer.concat([tail, bytes]);
    } else {
      chunks.push(bytes);
    }
  }

  private appendToOpen(unit: Unit, bytes: Uint8Array): void {
    this.append(unit, bytes);
    this.queued += bytes.length;
    if (this.units[0] === unit) {
      this.cancelStall?.();
      this.cancelStall = null;
      if (this.cancelRetry === null) this.pump();
    }
  }

  /** Writes queued bytes until the kernel takes no more, the queue is empty, or an open unit has nothing yet. */
  private pump(): void {
    this.cancelRetry = null;
    while (!this.closed) {
      const unit = this.units[0];
      if (unit === undefined) break;
      const chunk = unit.chunks[0];
      if (chunk === undefined) {
        if (unit.open) {
          this.watchStall(unit);
          break;
        }
        this.units.shift();
        continue;
      }
      const rest = this.headOffset === 0 ? chunk : chunk.subarray(this.headOffset);
      const taken = this.take(rest);
      if (taken === null) return;
      this.queued -= taken;
      if (taken >= rest.length) {
        unit.chunks.shift();
        this.headOffset = 0;
        continue;
      }
      this.headOffset += taken;
      this.scheduleRetry();
      break;
    }
    this.released();
  }

  /** The kernel took less than offered: try again soon, sooner while the program is reading. */
  private scheduleRetry(): void {
    const run = () => this.pump();
    if (this.clock.now() - this.lastProgressAt < this.limits.readingWithinMs) {
      this.cancelRetry = this.clock.nextTurn(run);
      return;
    }
    this.cancelRetry = this.clock.after(this.retryMs, run);
    this.retryMs = Math.min(this.retryMs * 2, this.limits.retryMaxMs);
  }

  /** An open unit at the head with nothing left to write: if others wait behind it, it yields after a while. */
  private watchStall(unit: Unit): void {
    if (this.units.length < 2 || this.cancelStall !== null) return;
    this.cancelStall = this.clock.after(this.limits.openUnitStallMs, () => {
      this.cancelStall = null;
      if (this.units[0] === unit && unit.open && unit.chunks.length === 0) {
        const last = unit.onYield?.() ?? null;
        unit.open = false;
        if (last !== null && last.length > 0) {
          unit.chunks.push(last);
          this.queued += last.length;
        }
      }
      // Whatever changed meanwhile, pump looks again (and watches the next open unit, if any).
      if (this.cancelRetry === null) this.pump();
    });
  }

  /** Tells waiters what changed: room below the resume mark, nothing left to write. */
  private released(): void {
    if (this.roomWaiters.length > 0 && (this.closed || this.queued < this.limits.resumeBelowBytes)) {
      const waiters = this.roomWaiters;
      this.roomWaiters = [];
      for (const fn of waiters) fn();
    }
    if (this.idleWaiters.length > 0 && (this.closed || this.units.length === 0)) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
