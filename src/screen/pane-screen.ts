/**
 * What the compositor reads of a pane: the live buffer's geometry, its rows copied into a
 * cell grid, the cursor, and whether plain ASCII would print plainly (echo prediction).
 *
 * The compositor knows panes only through this interface, never through xterm: the pane's
 * terminal implements it (src/terminal/xterm-screen.ts), so the TUI, tests and remote
 * clients hand the compositor whatever the core's `PaneView` gives them. Every member is
 * cheap and allocation-free except `cursor()`, which returns one small object per frame.
 */
import type { Disposable } from '../contract/disposable.js';
import type { Rect } from '../contract/rect.js';
import type { PrintPen } from './cell.js';
import type { CellGrid } from './cell-grid.js';
import type { CursorState } from './cursor.js';

export interface RowCopyOptions {
  /** Buffer line shown in the rect's first row (default: `viewportY`). */
  top?: number;
  /** Rect-relative rows to copy (default: all rows of the rect). */
  rows?: Iterable<number>;
  /** Receives a 1 for every rect row whose cells changed (length ≥ rect.rows). */
  changed?: Uint8Array;
}

export interface PaneScreen {
  /** Screen size in cells. */
  readonly cols: number;
  readonly rows: number;
  /** The active buffer: full-screen applications switch to the alternate one. */
  readonly bufferType: 'normal' | 'alternate';
  /** Buffer line of the live screen's top row; the lines above it are scrollback. */
  readonly baseY: number;
  /** Buffer line of the viewport's top row (equals `baseY`: corral never scrolls xterm's viewport). */
  readonly viewportY: number;
  /**
   * Copies buffer lines `top + r` into rows `rect.y + r` of `grid`, columns from 0, clipped to
   * the rect and the grid. Cells are stored only when they differ and changed rows are
   * reported, so a caller can re-copy a whole pane and still learn what moved. A wide
   * character cut by the rect's right edge becomes a space. Returns the changed-row count.
   */
  copyRows(grid: CellGrid, rect: Rect, options?: RowCopyOptions): number;
  /** The cursor in viewport coordinates, with the visibility and shape the application set. */
  cursor(): CursorState;
  /**
   * The pen printable ASCII would get at the cursor, when the terminal would print it cell by
   * cell as any terminal does; null when it would not (insert mode, another character set, a
   * pen the cells cannot carry).
   */
  printPen(): PrintPen | null;
  /** Called whenever the buffer's lines shift (a scroll), even when `baseY` stays the same. */
  onScroll(listener: () => void): Disposable;
}

/** The first buffer line to show for a pane scrolled back `scrollOffset` lines (undefined: the viewport). */
export function topLineFor(screen: Pick<PaneScreen, 'baseY' | 'viewportY'>, scrollOffset?: number): number {
  if (scrollOffset === undefined) return screen.viewportY;
  return Math.max(0, screen.baseY - Math.max(0, scrollOffset));
}
