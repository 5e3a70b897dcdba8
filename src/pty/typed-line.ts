/**
 * A command line corral typed into a pane (`pane run`, an up file's or a flow's `command`, a
 * submitted send) that the shell may not have taken yet.
 *
 * Why: text sent next is framed as a bracketed paste when the pane's program has that mode on,
 * and a shell at its prompt has it on — but a line typed ahead is read by the shell first, and
 * the text after it by the command that line starts (`cat > out`), which never asked for
 * paste markers and gets them verbatim. Readline, zle and fish leave paste mode (`CSI ? 2004 l`)
 * as they accept a line, so that sequence in the output says the line was taken. A shell that
 * never turns paste mode on needs no wait: its mode is off, and text goes unframed anyway.
 */
import type { Clock, ClockTimer } from '../clock.js';

/** How long text waits for a typed line to be taken: far past a starting shell's first prompt. */
export const TYPED_LINE_WAIT_MS = 2000;

/** Bracketed paste mode off: what a line editor writes as it accepts a line. */
const PASTE_OFF = '\x1b[?2004l';

export class TypedLine {
  /** Until when a typed line counts as not yet taken (0: none pending). */
  private pendingUntil = 0;
  private readonly waiters = new Set<() => void>();

  constructor(private readonly clock: Clock) {}

  /** Corral just typed a line ending in Enter. */
  typed(): void {
    this.pendingUntil = this.clock.now() + TYPED_LINE_WAIT_MS;
  }

  /** A line is typed and not seen taken, and its wait has not run out. */
  get pending(): boolean {
    return this.pendingUntil !== 0 && this.clock.now() < this.pendingUntil;
  }

  /** The pane's output, as it is read (cheap unless a line is pending). */
  output(data: Buffer | string): void {
    if (this.pendingUntil === 0) return;
    if (data.includes(PASTE_OFF)) this.taken();
  }

  /** The line is taken, or can never be (the pane exited). */
  taken(): void {
    this.pendingUntil = 0;
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves once no typed line is pending: taken, or its wait ran out. */
  settled(): Promise<void> {
    if (!this.pending) return Promise.resolve();
    return new Promise((resolve) => {
      let timer: ClockTimer | null = null;
      const done = (): void => {
        if (timer !== null) this.clock.clear(timer);
        this.waiters.delete(done);
        resolve();
      };
      this.waiters.add(done);
      timer = this.clock.setTimeout(done, Math.max(0, this.pendingUntil - this.clock.now()));
    });
  }
}
