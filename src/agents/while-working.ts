/**
 * A check that runs on a timer only while some agent works (the stall check, SPEC §4
 * `stalled`): an idle server runs no timer at all.
 */
import type { Clock, ClockTimer } from '../clock.js';

export class WhileWorking {
  private timer: ClockTimer | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly everyMs: number,
    private readonly check: () => void,
  ) {}

  /** Some agent works (the timer runs) or none does (it stops). */
  update(anyWorking: boolean): void {
    if (anyWorking && !this.timer) {
      this.timer = this.clock.setInterval(this.check, this.everyMs);
      this.timer.unref();
    } else if (!anyWorking) this.dispose();
  }

  dispose(): void {
    if (this.timer) this.clock.clear(this.timer);
    this.timer = null;
  }
}
