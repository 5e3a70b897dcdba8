/**
 * Idle panes give their terminal back (issue 32: an idle pane cost 0.31 MB, tmux's 0.01 MB).
 *
 * Why: a headless xterm costs ~245 KB however little it shows — 138 KB of JavaScript objects
 * (its services, and the parser's handler tables and closures, built per instance) and 107 KB
 * of typed arrays (every screen row at full width, allocated up front, and a 16 KB parse
 * buffer). None of it can be shared between terminals or shrunk without patching xterm.
 *
 * How: a pane that has written little keeps what it wrote, in order with its resizes (the
 * `OutputLog`). Once nothing has touched its terminal for `idleMs` — no output, no read, no
 * resize, no client drawing it — the terminal is disposed and only the log is kept. The next
 * touch builds a fresh terminal at the first size and replays the log through the very same
 * path, chunk by chunk, so the terminal it gets back is the one it had: the same program fed
 * the same bytes, not a copy of its state that could miss a mode, a pen or a saved cursor.
 * A pane whose output outgrew the log (`logLimitBytes`) never hibernates: replaying it would
 * cost more than it saves, and its log is dropped at once.
 *
 * One sweep for all panes looks every `sweepMs` at whether each was touched since the last
 * look; it runs only while some pane could hibernate, so an idle server with nothing left to
 * put to sleep is not woken.
 */
import { released } from './memory-release.js';

export const HIBERNATION = {
  /** Untouched this long, a pane's terminal hibernates. */
  idleMs: 30_000,
  /** How often the sweep looks (at most; a shorter idleMs looks more often). */
  sweepMs: 10_000,
  /** Output kept for replay; a pane that wrote more never hibernates. */
  logLimitBytes: 32 * 1024,
  /** What a hibernated terminal gives back, roughly (for the collection it asks for). */
  terminalBytes: 256 * 1024,
} as const;

/**
 * `CORRAL_HIBERNATE_MS`: the idle time before a terminal hibernates; 0 turns hibernation off.
 * For tests and benchmarks, which cannot wait 30 s; unset, `HIBERNATION.idleMs`.
 */
export function hibernateIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CORRAL_HIBERNATE_MS;
  if (raw === undefined || raw === '') return HIBERNATION.idleMs;
  const ms = Number(raw);
  return Number.isFinite(ms) && ms >= 0 ? ms : HIBERNATION.idleMs;
}

/** One piece of a pane's history: output as it was written, or a resize. */
export type LoggedEntry = string | Uint8Array | { cols: number; rows: number };

/** What a pane wrote and how it was resized, in order, until it outgrows `limitBytes`. */
export class OutputLog {
  private entries: LoggedEntry[] | null = [];
  private bytes = 0;

  constructor(private readonly limitBytes: number = HIBERNATION.logLimitBytes) {}

  /** The log outgrew its limit and was dropped: the pane cannot be rebuilt from it. */
  get overflowed(): boolean {
    return this.entries === null;
  }

  write(data: string | Uint8Array): void {
    if (!this.entries) return;
    this.bytes += data.length;
    if (this.bytes > this.limitBytes) {
      this.entries = null;
      return;
    }
    // A reader may hand over a view of a buffer it reuses: keep a copy of bytes.
    this.entries.push(typeof data === 'string' ? data : Uint8Array.prototype.slice.call(data));
  }

  resize(cols: number, rows: number): void {
    this.entries?.push({ cols, rows });
  }

  /** The entries in order (empty once overflowed). */
  replay(): readonly LoggedEntry[] {
    return this.entries ?? [];
  }
}

/** A terminal the sweep may put to sleep. */
export interface Hibernatable {
  /** Bumped on every use of the terminal; unchanged between two looks means untouched. */
  readonly touches: number;
  /** Disposes the terminal if it still can be rebuilt; false when it cannot (or is asleep). */
  hibernate(): boolean;
  /** False once it can never hibernate (log overflowed, disposed): the sweep forgets it. */
  readonly canHibernate: boolean;
}

interface Watched {
  touches: number;
  quietSince: number;
}

/** The one sweep over every hibernatable terminal. */
export class HibernationSweep {
  private readonly watched = new Map<Hibernatable, Watched>();
  private timer: NodeJS.Timeout | undefined;
  private hibernations = 0;
  private wakes = 0;
  private asleep = 0;

  constructor(
    private readonly idleMs: number = hibernateIdleMs(),
    private readonly now: () => number = Date.now,
  ) {}

  /** Terminals asleep now, and how many times one was put to sleep or woken (`system.stats`). */
  stats(): { asleep: number; hibernations: number; wakes: number } {
    return { asleep: this.asleep, hibernations: this.hibernations, wakes: this.wakes };
  }

  /** Watch a terminal. */
  add(terminal: Hibernatable): void {
    if (this.idleMs <= 0 || this.watched.has(terminal)) return;
    this.watched.set(terminal, { touches: terminal.touches, quietSince: this.now() });
    this.arm();
  }

  /** A terminal that was asleep was just rebuilt: watch it again. */
  woke(terminal: Hibernatable): void {
    this.wakes++;
    this.asleep--;
    this.add(terminal);
  }

  /** A terminal is gone (disposed), asleep or not. */
  remove(terminal: Hibernatable, asleep = false): void {
    if (asleep) this.asleep--;
    this.watched.delete(terminal);
    if (this.watched.size === 0) this.stop();
  }

  /** One look at every watched terminal (the timer's; tests call it directly). */
  sweep(): void {
    const now = this.now();
    let slept = 0;
    for (const [terminal, seen] of this.watched) {
      if (!terminal.canHibernate) {
        this.watched.delete(terminal);
        continue;
      }
      if (terminal.touches !== seen.touches) {
        seen.touches = terminal.touches;
        seen.quietSince = now;
        continue;
      }
      if (now - seen.quietSince < this.idleMs) continue;
      if (terminal.hibernate()) {
        slept++;
        this.watched.delete(terminal);
      }
    }
    this.hibernations += slept;
    this.asleep += slept;
    if (slept > 0) released(slept * HIBERNATION.terminalBytes, true);
    if (this.watched.size === 0) this.stop();
  }

  private arm(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), Math.max(50, Math.min(HIBERNATION.sweepMs, Math.floor(this.idleMs / 3))));
    this.timer.unref();
  }

  private stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

/** The server's sweep (every pane terminal in the process shares it). */
export const SHARED_HIBERNATION = new HibernationSweep();
