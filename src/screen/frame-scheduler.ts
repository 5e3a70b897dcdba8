/** Frame pacing: at most one frame per interval, so a flood of output is rate-limited. */
export const FRAME = {
  // ~60 fps: smooth to the eye, and a flood costs at most 60 diffs a second.
  intervalMs: 16,
  /**
   * A frame that took long holds the next paced (non-urgent) one back for this many times its
   * own cost, so drawing a flood never takes more than about a ninth of the event loop: on a
   * loaded machine every frame costs more wall time, and at a fixed 60 a second the frames
   * of a flood would take the CPU its parse needs (a slower flood, more frames, slower still).
   * A frame of ~1–2 ms, the usual cost, keeps the 16 ms interval.
   */
  costFactor: 8,
  /** …but never fewer than 10 frames a second: output must still look live. */
  maxIntervalMs: 100,
} as const;

/** The clock and timers the compositor uses; swap in `ManualScheduler` for tests. */
export interface FrameScheduler {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Runs `fn` after `delayMs` (0: on the next turn of the event loop); returns a canceller. */
  schedule(fn: () => void, delayMs: number): () => void;
}

/** The real scheduler: setImmediate for "now", setTimeout otherwise. */
export const realScheduler: FrameScheduler = {
  now: () => performance.now(),
  schedule(fn, delayMs) {
    if (delayMs <= 0) {
      const handle = setImmediate(fn);
      return () => clearImmediate(handle);
    }
    const handle = setTimeout(fn, delayMs);
    return () => clearTimeout(handle);
  },
};

/** A scheduler whose clock only moves when told, for deterministic tests. */
export class ManualScheduler implements FrameScheduler {
  private time = 0;
  private seq = 0;
  private tasks: { at: number; seq: number; fn: () => void }[] = [];

  now(): number {
    return this.time;
  }

  schedule(fn: () => void, delayMs: number): () => void {
    const task = { at: this.time + Math.max(0, delayMs), seq: this.seq++, fn };
    this.tasks.push(task);
    return () => {
      this.tasks = this.tasks.filter((t) => t !== task);
    };
  }

  /** How many tasks are waiting. */
  get pending(): number {
    return this.tasks.length;
  }

  /** Moves the clock forward by `ms`, running every task that falls due, in order. */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = this.tasks.filter((t) => t.at <= until).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.tasks = this.tasks.filter((t) => t !== due);
      this.time = Math.max(this.time, due.at);
      due.fn();
    }
    this.time = until;
  }
}
