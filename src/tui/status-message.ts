/**
 * The status line's message: shown at once, faded after a while unless a newer one replaced
 * it; a sticky one (a paste waiting on its pane) stays until the next.
 */
import type { UiState } from './chrome-builder.js';

export const MESSAGE_TIMING = {
  /** Status line messages fade after this long. */
  messageMs: 5000,
  /** A config error at start-up is worth reading: it stays longer. */
  startupMessageMs: 15_000,
} as const;

export class StatusMessage {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly ui: UiState,
    private readonly redraw: () => void,
  ) {}

  /** Shows a message; a `sticky` one stays until the next message replaces it. */
  show(text: string, error: boolean, sticky = false): void {
    this.ui.message = { text, error };
    if (sticky) this.stopTimer();
    else this.fadeAfter(MESSAGE_TIMING.messageMs);
    this.redraw();
  }

  /** Clears the message shown now after `ms`, unless a newer message replaced it. */
  fadeAfter(ms: number): void {
    this.stopTimer();
    const message = this.ui.message;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.ui.message !== message) return;
      this.ui.message = null;
      this.redraw();
    }, ms);
    this.timer.unref();
  }

  dispose(): void {
    this.stopTimer();
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
