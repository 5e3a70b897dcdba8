/**
 * One mirrored pane's predicted echo (docs/machines.md "Predicted echo"): the predictor
 * (src/screen/remote-prediction.ts) over the mirror's terminal, the screen the TUI draws
 * (the mirror with the predictions over it), the one timer that underlines a late prediction
 * or judges a key never acknowledged, and the rows to redraw when what is shown changes.
 */
import type { Disposable } from '../contract/disposable.js';
import { CellGrid } from '../screen/cell-grid.js';
import { PredictedScreen } from '../screen/predicted-screen.js';
import { EchoPredictor, type EchoScreen, type PredictMode, type PredictedCell } from '../screen/remote-prediction.js';
import type { PaneTerminal } from '../terminal/pane-terminal.js';

/** The predictor's view of a mirror's terminal: one row copied out to read a cell. */
class MirrorCells implements EchoScreen {
  private readonly row = new CellGrid(1, 1);

  constructor(private readonly terminal: PaneTerminal) {}

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  get bufferType(): 'normal' | 'alternate' {
    return this.terminal.bufferType;
  }

  get baseY(): number {
    return this.terminal.baseY;
  }

  cursor(): { x: number; y: number; visible: boolean } {
    return this.terminal.cursor();
  }

  charAt(x: number, y: number): string {
    if (x < 0 || y < 0 || x >= this.terminal.cols || y >= this.terminal.rows) return '';
    if (this.row.cols !== this.terminal.cols) this.row.resize(this.terminal.cols, 1);
    this.terminal.copyRows(this.row, { x: 0, y: 0, cols: this.terminal.cols, rows: 1 }, { top: this.terminal.baseY + y });
    return this.row.charAt(x, 0) || '';
  }

  printPen() {
    return this.terminal.printPen();
  }
}

export class PanePrediction {
  readonly predictor: EchoPredictor;
  /** What the TUI draws for this pane: the mirror, with the shown predictions over it. */
  readonly screen: PredictedScreen;
  private readonly listeners = new Set<(rows: number[]) => void>();
  private shown: PredictedCell[] = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly stopRevision: Disposable;

  constructor(
    terminal: PaneTerminal,
    mode: PredictMode,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.predictor = new EchoPredictor(new MirrorCells(terminal), mode);
    this.screen = new PredictedScreen(terminal, { cells: () => this.shown, cursor: () => (this.shown.length === 0 ? null : this.predictor.cursor()) });
    // Every parsed batch is a frame of the remote screen: confirm what it shows.
    this.stopRevision = terminal.onRevision(() => this.after(() => this.predictor.frame()));
  }

  /** Input `seq` carrying `data` is being sent (`predict` false: a paste, drawn when echoed). */
  typed(data: string, seq: number, predict = true): void {
    // A paste counts as a key whose effect is unknown (an escape): drawn when echoed.
    this.after(() => this.predictor.typed(predict ? data : '\x1b', seq, this.now()));
  }

  /** The remote took keys up to `seq`; `quiet`: it waited for output that never came. */
  ack(seq: number, quiet = false): void {
    this.after(() => this.predictor.ack(seq, this.now(), quiet));
  }

  linkRtt(ms: number | null): void {
    this.after(() => this.predictor.linkRtt(ms));
  }

  /** Raises a late prediction's underline, judges keys never acknowledged (its timer calls it). */
  tick(): void {
    this.after(() => this.predictor.tick(this.now()));
  }

  /** A snapshot or resize replaced the screen, or the link went: nothing predicted holds. */
  reset(): void {
    this.after(() => this.predictor.reset());
  }

  /** Called with the viewport rows to redraw whenever the shown predictions change. */
  onChange(listener: (rows: number[]) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  dispose(): void {
    this.stopRevision.dispose();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.listeners.clear();
  }

  /** Runs a step of the predictor, then tells listeners which rows it changed on screen. */
  private after(step: () => void): void {
    step();
    const before = this.shown;
    this.shown = this.predictor.cells(this.now());
    if (!sameCells(before, this.shown)) {
      const rows = new Set<number>();
      for (const cell of before) rows.add(cell.y);
      for (const cell of this.shown) rows.add(cell.y);
      for (const listener of this.listeners) listener([...rows]);
    }
    this.schedule();
  }

  private schedule(): void {
    const at = this.predictor.nextDeadline(this.now());
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (at === null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.tick();
    }, Math.max(0, at - this.now()) + 1);
    this.timer.unref();
  }
}

function sameCells(a: readonly PredictedCell[], b: readonly PredictedCell[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as PredictedCell;
    const y = b[i] as PredictedCell;
    if (x.x !== y.x || x.y !== y.y || x.char !== y.char || x.pen.attrs !== y.pen.attrs || x.pen.fg !== y.pen.fg || x.pen.bg !== y.pen.bg) return false;
  }
  return true;
}
