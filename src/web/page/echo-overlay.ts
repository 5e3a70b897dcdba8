/**
 * Predicted echo on the web view's pane (issue 45): the page's keys take four more process hops
 * to their echo than a key through `corral attach` (page → `corral web` → server → the program
 * → server → `corral web` → page), and a phone on another network adds its own round trip. So
 * a printable key typed at a prompt is drawn at once, by the same engine a machine's mirrored
 * pane uses (src/screen/remote-prediction.ts, mosh's idea), over the page's terminal — as DOM
 * cells laid on top of xterm.js, never written into the terminal, which shows only what the
 * pane sent. The engine confirms a guess when the pane's output draws the same character there,
 * drops every guess when it draws something else, and shows none at a password prompt (no
 * echo ever confirms that epoch) or over a full-screen program.
 *
 * No acknowledgements travel here: a guess no output has confirmed is judged after the
 * engine's answer timeout. The round trip that decides whether guesses show ('adaptive') is
 * the page's ping to `corral web` plus the last echo it saw confirmed.
 */
import type { Terminal } from '@xterm/xterm';
import { EchoPredictor, type EchoScreen, type PredictMode } from '../../screen/remote-prediction.js';
import { ATTR } from '../../screen/cell.js';

/** The page's terminal read the way the engine reads a mirror. */
function screenOf(term: Terminal): EchoScreen {
  const buffer = () => term.buffer.active;
  return {
    get cols() {
      return term.cols;
    },
    get rows() {
      return term.rows;
    },
    get bufferType() {
      return buffer().type;
    },
    get baseY() {
      return buffer().baseY;
    },
    cursor() {
      // xterm.js keeps DECTCEM private; a hidden cursor is rare at a prompt that echoes.
      const hidden = (term as unknown as { _core?: { coreService?: { isCursorHidden?: boolean } } })._core?.coreService?.isCursorHidden === true;
      return { x: buffer().cursorX, y: buffer().cursorY, visible: !hidden };
    },
    charAt(x, y) {
      return buffer().getLine(buffer().baseY + y)?.getCell(x)?.getChars() || ' ';
    },
    // The page cannot read the pen the program prints with: guesses are drawn in the
    // terminal's own colours, and the real cell replaces them when the echo comes.
    printPen() {
      return { fg: 0, bg: 0, attrs: 0 };
    },
  };
}

export class EchoOverlay {
  private readonly predictor: EchoPredictor;
  private readonly layer: HTMLElement;
  private seq = 0;
  /**
   * When the oldest guess still waiting was typed (null when none waits): the echo that confirms
   * a guess is a round-trip sample. Not set by a key that made no guess (Enter, a control key),
   * or a confirmation long after it would count the pause before the next key as the link's.
   */
  private typedAt: number | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private drawn = '';
  /** Predictions drawn so far (tests and the bench read it through `data-predicted`). */
  shown = 0;

  constructor(
    private readonly term: Terminal,
    mode: PredictMode,
  ) {
    this.predictor = new EchoPredictor(screenOf(term), mode);
    this.layer = document.createElement('div');
    this.layer.className = 'echo-overlay';
    this.layer.setAttribute('aria-hidden', 'true');
    // The terminal's own font, so a guess looks like the echo that replaces it.
    this.layer.style.fontFamily = term.options.fontFamily ?? 'monospace';
    this.layer.style.fontSize = `${term.options.fontSize ?? 13}px`;
    term.element?.querySelector('.xterm-screen')?.appendChild(this.layer);
  }

  /** A key the person typed, about to go to the pane. */
  typed(data: string): void {
    const now = performance.now();
    this.predictor.typed(data, ++this.seq, now);
    if (this.predictor.pending > 0) this.typedAt ??= now;
    this.draw();
  }

  /** Output was parsed into the terminal: confirm what it now shows. */
  parsed(): void {
    const before = this.predictor.stats.confirmed;
    this.predictor.frame();
    if (this.predictor.stats.confirmed > before && this.typedAt !== null) {
      this.predictor.linkRtt(performance.now() - this.typedAt);
      this.typedAt = null;
    }
    this.draw();
  }

  /** The page's round trip to `corral web` (its ping). */
  roundTrip(ms: number): void {
    this.predictor.linkRtt(ms);
  }

  /** A snapshot replaced the screen, or it was resized: no guess holds. */
  reset(): void {
    this.predictor.reset();
    this.typedAt = null;
    this.draw();
  }

  private draw(): void {
    const now = performance.now();
    this.predictor.tick(now);
    // Every guess confirmed, dropped or judged: nothing waits for a round trip any more.
    if (this.predictor.pending === 0) this.typedAt = null;
    const buffer = this.term.buffer.active;
    // Scrolled back through the history: the guesses' rows are not on screen.
    const cells = buffer.viewportY === buffer.baseY ? this.predictor.cells(now) : [];
    const key = cells.map((c) => `${c.x},${c.y},${c.char},${c.pen.attrs}`).join(';');
    if (key !== this.drawn) {
      this.drawn = key;
      const screen = this.term.element?.querySelector<HTMLElement>('.xterm-screen');
      const cellWidth = screen ? screen.clientWidth / this.term.cols : 0;
      const cellHeight = screen ? screen.clientHeight / this.term.rows : 0;
      this.layer.replaceChildren(
        ...cells.map((c) => {
          const span = document.createElement('span');
          span.textContent = c.char;
          span.style.left = `${c.x * cellWidth}px`;
          span.style.top = `${c.y * cellHeight}px`;
          span.style.width = `${cellWidth}px`;
          span.style.height = `${cellHeight}px`;
          span.style.lineHeight = `${cellHeight}px`;
          if (c.pen.attrs & ATTR.underline) span.classList.add('flagged');
          return span;
        }),
      );
      this.shown += cells.length;
      this.layer.dataset.predicted = String(cells.length);
    }
    if (this.timer) clearTimeout(this.timer);
    const next = this.predictor.nextDeadline(now);
    this.timer = next === null ? null : setTimeout(() => this.draw(), Math.max(0, next - now) + 1);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    this.layer.remove();
  }
}
