/**
 * Holding one client's input while a pane it pastes into is not reading (issue 27): the pane's
 * input queue is bounded (src/pty/pane-input.ts), so the rest of the paste — and every key typed
 * after it, which comes behind it in the same stream — must wait in the client's terminal, not
 * in the server. `hold` asks the input's source to stop (the server stops reading a direct
 * client's tty; a relaying client is told to stop reading its terminal); what was already on its
 * way is kept here, in order, and handed on first at `release`. Nothing read is dropped.
 */

/** Where a client's input comes from, as far as holding it goes. */
export interface HeldSource {
  /** Stop reading the terminal (or ask the client to). */
  pause(): void;
  resume(): void;
  /** The source kept sending past `pause` for a while (a client that does not know `hold`): stop reading it outright. */
  stop(): void;
}

/** Input still arriving after a hold: what was in flight is a read or two; more means the client ignores it. */
const IN_FLIGHT_MAX_BYTES = 1024 * 1024;

export class InputHold {
  private held = false;
  /** `release` is handing kept input on: that input is not kept again. */
  private replaying = false;
  private sourcePaused = false;
  private stopped = false;
  private kept: Buffer[] = [];
  private keptBytes = 0;

  constructor(
    private readonly source: HeldSource,
    /** Where input goes when it is not held (the client's usual input handling). */
    private readonly deliver: (chunk: Buffer) => void,
  ) {}

  get isHeld(): boolean {
    return this.held;
  }

  /** Input arrived: true when it is kept for later (the hold is on), false when the caller handles it now. */
  keep(chunk: Buffer): boolean {
    if (this.replaying || (!this.held && this.kept.length === 0)) return false;
    this.kept.push(chunk);
    this.keptBytes += chunk.length;
    if (this.keptBytes > IN_FLIGHT_MAX_BYTES && !this.stopped) {
      this.stopped = true;
      this.source.stop();
    }
    return true;
  }

  /** Stop taking this client's input (idempotent). */
  hold(): void {
    this.held = true;
    if (this.sourcePaused) return;
    this.sourcePaused = true;
    this.source.pause();
  }

  /** Take input again: what was kept first, in order; stops if that input holds again. */
  release(): void {
    if (!this.held) return;
    this.held = false;
    this.replaying = true;
    try {
      while (this.kept.length > 0 && !this.held) {
        const chunk = this.kept.shift()!;
        this.keptBytes -= chunk.length;
        this.deliver(chunk);
      }
    } finally {
      this.replaying = false;
    }
    if (this.held || !this.sourcePaused) return;
    this.sourcePaused = false;
    this.stopped = false;
    this.source.resume();
  }
}
