/**
 * A pane's screen with predicted cells drawn over it (src/screen/remote-prediction.ts): what
 * the compositor reads of a mirrored pane while keys typed into it wait for their echo. The
 * predictions live only here, in the cells copied out for drawing, never in the pane's
 * terminal: `pane read`, search and copy mode read the mirror as the remote sent it.
 */
import type { Disposable } from '../contract/disposable.js';
import type { Rect } from '../contract/rect.js';
import type { CellGrid } from './cell-grid.js';
import type { PrintPen } from './cell.js';
import type { CursorState } from './cursor.js';
import type { PaneScreen, RowCopyOptions } from './pane-screen.js';
import type { PredictedCell } from './remote-prediction.js';

/** What is drawn over the screen: cells in viewport coordinates, and the cursor after them. */
export interface PredictionOverlay {
  cells(): readonly PredictedCell[];
  cursor(): { x: number; y: number } | null;
}

export class PredictedScreen implements PaneScreen {
  constructor(
    private readonly base: PaneScreen,
    private readonly overlay: PredictionOverlay,
  ) {}

  get cols(): number {
    return this.base.cols;
  }

  get rows(): number {
    return this.base.rows;
  }

  get bufferType(): 'normal' | 'alternate' {
    return this.base.bufferType;
  }

  get baseY(): number {
    return this.base.baseY;
  }

  get viewportY(): number {
    return this.base.viewportY;
  }

  copyRows(grid: CellGrid, rect: Rect, options: RowCopyOptions = {}): number {
    const cells = this.overlay.cells();
    if (cells.length === 0) return this.base.copyRows(grid, rect, options);
    const rows = options.rows === undefined ? undefined : [...options.rows];
    const changed = options.changed ?? new Uint8Array(rect.rows);
    this.base.copyRows(grid, rect, { top: options.top, rows, changed });
    const wanted = rows === undefined ? null : new Set(rows);
    const top = options.top ?? this.base.viewportY;
    for (const cell of cells) {
      const r = this.base.baseY + cell.y - top;
      const gx = rect.x + cell.x;
      const gy = rect.y + r;
      if (r < 0 || r >= rect.rows || cell.x >= rect.cols || gx >= grid.cols || gy >= grid.rows) continue;
      if (wanted !== null && !wanted.has(r)) continue;
      if (sameCell(grid, gx, gy, cell.char, cell.pen)) continue;
      grid.set(gx, gy, { char: cell.char, fg: cell.pen.fg, bg: cell.pen.bg, attrs: cell.pen.attrs });
      changed[r] = 1;
    }
    let count = 0;
    for (let r = 0; r < rect.rows; r++) count += changed[r] ?? 0;
    return count;
  }

  cursor(): CursorState {
    const cursor = this.base.cursor();
    const at = this.overlay.cursor();
    return at === null || at.x >= this.base.cols ? cursor : { ...cursor, x: at.x, y: at.y };
  }

  /**
   * None while predictions are drawn: the compositor's own echo shortcut (Compositor.predictEcho)
   * would write the remote's echo at the drawn cursor, past the predictions, not where it goes.
   */
  printPen(): PrintPen | null {
    return this.overlay.cells().length > 0 ? null : this.base.printPen();
  }

  onScroll(listener: () => void): Disposable {
    return this.base.onScroll(listener);
  }
}

function sameCell(grid: CellGrid, x: number, y: number, char: string, pen: PrintPen): boolean {
  const cell = grid.get(x, y);
  return cell.char === char && cell.fg === pen.fg && cell.bg === pen.bg && cell.attrs === pen.attrs && cell.width === 1;
}
