/**
 * Who reads pane output when: the server's scheduling of pty reads, shared by every pane, so
 * that a keystroke's echo never waits behind another pane's flood (issue 12 §5: echo p95
 * < 16 ms while another visible pane floods).
 *
 * - **A budget per event-loop turn.** libuv reads a readable stream up to 32 times in a row
 *   before it looks at any other file descriptor, and a pty hands out at most 4 KB per read: a
 *   flooding pane kept the server parsing for ~32 × 0.3 ms (far more on a loaded machine) while
 *   a client's keystroke and the echo on another pty waited. Past `budgetMs` of reading in one
 *   turn, a pane yields until the event loop has polled everything else.
 * - **Echo first.** When input goes to a pane (`expectEcho`), every other pane stops reading
 *   until that pane's next output arrives, or `echoWaitMs` passed: the echo is read and drawn
 *   by a server that is not busy parsing a flood, and the flooding program blocks on its full
 *   pty meanwhile, leaving the CPU to the shell that echoes. The wait is a deadline, and a timer
 *   runs only while some pane actually waits: a keystroke typed with nothing else reading (the
 *   usual case) arms and clears no timer — measured ~0.05 ms of each echo on this path
 *   (bench/profile/echo-hops.mjs: the timer list was created on the key and torn down on its echo).
 *
 * Nothing is dropped either way: what was read stays in the stream, the rest in the kernel's
 * pty buffer, and the writer blocks as it would under a slow terminal.
 */

export const READ_TURN = {
  /** Reading time per event-loop turn before panes yield to sockets and other ptys. */
  budgetMs: 2,
  /**
   * Longest that other panes wait for an echo. A shell echoes within a millisecond; a program
   * that echoes nothing (a password prompt) costs the others at most this per keystroke.
   */
  echoWaitMs: 8,
} as const;

export interface ReadTurnClock {
  now(): number;
  /** Runs `fn` once the event loop has polled (the check phase: setImmediate). */
  afterPoll(fn: () => void): void;
  /** Runs `fn` after `ms`; returns a cancel function. */
  after(ms: number, fn: () => void): () => void;
}

const REAL_CLOCK: ReadTurnClock = {
  now: () => performance.now(),
  afterPoll: (fn) => void setImmediate(fn),
  after: (ms, fn) => {
    const timer = setTimeout(fn, ms);
    return () => clearTimeout(timer);
  },
};

export class ReadTurn {
  private startedAt = 0;
  private open = false;
  private echoFrom: object | null = null;
  /** When the awaited echo stops holding the others (the clock's ms). */
  private echoDeadline = 0;
  /** The timer that ends the wait for panes holding their reads; armed only while one does. */
  private cancelEchoWait: (() => void) | null = null;
  private waiting: (() => void)[] = [];

  constructor(
    private readonly clock: ReadTurnClock = REAL_CLOCK,
    readonly limits: { budgetMs: number; echoWaitMs: number } = READ_TURN,
  ) {}

  /** A piece of output from `reader` is about to be handled: the first one opens the turn. */
  enter(reader: object): void {
    if (reader === this.echoFrom) this.endEchoWait();
    if (this.open) return;
    this.open = true;
    this.startedAt = this.clock.now();
    this.clock.afterPoll(() => {
      this.open = false;
    });
  }

  /** Whether this turn's budget is used up (the pane that just read should yield). */
  spent(): boolean {
    return this.open && this.clock.now() - this.startedAt >= this.limits.budgetMs;
  }

  /** Runs `fn` after the event loop has polled every other descriptor. */
  afterPoll(fn: () => void): void {
    this.clock.afterPoll(fn);
  }

  /** Input went to `reader`: the others hold their reads until its output comes (or the wait ends). */
  expectEcho(reader: object): void {
    this.echoFrom = reader;
    this.echoDeadline = this.clock.now() + this.limits.echoWaitMs;
    if (this.cancelEchoWait) {
      // Panes already hold for an earlier key: they now wait for this one, as long as it allows.
      this.cancelEchoWait();
      this.armEchoWait();
    }
  }

  /**
   * Whether `reader` must stop reading while an echo is awaited from another pane; when it
   * must, `resume` runs once the wait ends.
   */
  mustWait(reader: object, resume: () => void): boolean {
    if (this.echoFrom === null || this.echoFrom === reader) return false;
    if (this.clock.now() >= this.echoDeadline) {
      this.endEchoWait();
      return false;
    }
    this.waiting.push(resume);
    if (!this.cancelEchoWait) this.armEchoWait();
    return true;
  }

  private armEchoWait(): void {
    this.cancelEchoWait = this.clock.after(Math.max(0, this.echoDeadline - this.clock.now()), () => {
      this.cancelEchoWait = null;
      this.endEchoWait();
    });
  }

  /** A pane going away stops being waited for. */
  forget(reader: object): void {
    if (reader === this.echoFrom) this.endEchoWait();
  }

  private endEchoWait(): void {
    this.echoFrom = null;
    if (this.cancelEchoWait === null && this.waiting.length === 0) return;
    this.cancelEchoWait?.();
    this.cancelEchoWait = null;
    const waiting = this.waiting;
    this.waiting = [];
    for (const resume of waiting) resume();
  }
}

/** The server's one scheduler: every pane's reads count against it. */
export const SHARED_READ_TURN = new ReadTurn();
