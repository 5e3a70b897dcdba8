/**
 * Draws copy mode into a grid the size of the pane's inside, which the compositor shows as
 * a layer over the pane: the frozen lines (with their colours), every search match, the
 * current match, the selection, the copy cursor, the position label and the search prompt.
 * Only the cells of the view are touched, so a redraw costs one pane's worth of cells.
 */
import { drawAnsi } from '../../screen/ansi-source.js';
import { ATTR, FLAGS, paletteColor } from '../../screen/cell.js';
import type { CellGrid } from '../../screen/cell-grid.js';
import { textWidth } from '../../screen/graphemes.js';
import { positionLabel, type CopyState } from './copy-mode.js';
import type { CopySource } from './copy-source.js';
import { ordered } from './positions.js';

/** Highlight colours, from the user's 16-colour palette so they follow the terminal theme (as tmux's defaults do). */
export const COPY_STYLE = {
  match: { fg: paletteColor(0), bg: paletteColor(3) },
  current: { fg: paletteColor(0), bg: paletteColor(13) },
  selection: { fg: paletteColor(15), bg: paletteColor(4) },
  label: '\x1b[30;43m',
  prompt: '\x1b[0m',
} as const;

/** Paints cells [from, to) of a grid row in a style, keeping characters and widths. */
function paint(grid: CellGrid, row: number, from: number, to: number, style: { fg: number; bg: number }): void {
  const end = Math.min(to, grid.cols);
  for (let x = Math.max(0, from); x < end; x++) {
    const i = grid.index(x, row);
    grid.fg[i] = style.fg;
    grid.bg[i] = style.bg;
    // Inverse would swap our colours back; other attributes (bold, underline) stay.
    grid.flags[i] = grid.flags[i]! & ~ATTR.inverse & ~FLAGS.transparent;
  }
}

/** Flips a cell's inverse attribute (the copy cursor), with a wide character's other half. */
function invert(grid: CellGrid, row: number, col: number): void {
  if (col < 0 || col >= grid.cols || row < 0 || row >= grid.rows) return;
  const i = grid.index(col, row);
  grid.flags[i] = grid.flags[i]! ^ ATTR.inverse;
  const wide = ((grid.flags[i]! & FLAGS.widthMask) >> FLAGS.widthShift) === 2;
  if (wide && col + 1 < grid.cols) grid.flags[i + 1] = grid.flags[i + 1]! ^ ATTR.inverse;
}

/** Renders the whole view into `grid` (sized rows × cols of the state). */
export function renderCopyView(state: CopyState, source: CopySource, grid: CellGrid): void {
  source.paint(grid, state.top);
  const { rows, cols, top } = state;
  const search = state.search;
  if (search && search.matches.length > 0) {
    const m = search.matches;
    for (let k = m.firstEndingAtOrAfter(top); k < m.length && m.startLine[k]! < top + rows; k++) {
      const style = k === search.current ? COPY_STYLE.current : COPY_STYLE.match;
      for (let line = Math.max(top, m.startLine[k]!); line <= Math.min(top + rows - 1, m.endLine[k]!); line++) {
        const from = line === m.startLine[k] ? m.startCol[k]! : 0;
        const to = line === m.endLine[k] ? m.endCol[k]! : cols;
        paint(grid, line - top, from, to, style);
      }
    }
  }
  if (state.selection) {
    const [a, b] = ordered(state.selection.anchor, state.cursor);
    for (let line = Math.max(top, a.line); line <= Math.min(top + rows - 1, b.line); line++) {
      const lines = state.selection.lines;
      const from = lines || line > a.line ? 0 : a.col;
      let to = lines || line < b.line ? cols : b.col + 1;
      // A wide character under the selection's end is selected whole.
      if (to < cols && ((grid.flags[grid.index(to, line - top)]! & FLAGS.widthMask) >> FLAGS.widthShift) === 0) to++;
      paint(grid, line - top, from, to, COPY_STYLE.selection);
    }
  }
  invert(grid, state.cursor.line - top, state.cursor.col);
  const label = positionLabel(state);
  const labelWidth = Math.min(cols, textWidth(label));
  drawAnsi(grid, `${COPY_STYLE.label}${label}\x1b[0m`, Math.max(0, cols - labelWidth), 0);
  if (state.prompt) {
    const y = rows - 1;
    grid.clearRow(y);
    const text = `${state.prompt.backward ? '?' : '/'}${state.prompt.text}`;
    // Keep the end of a long pattern in view.
    const overflow = Math.max(0, textWidth(text) + 1 - cols);
    drawAnsi(grid, `${COPY_STYLE.prompt}${[...text].slice(overflow).join('')}`, 0, y);
    invert(grid, y, Math.min(cols - 1, textWidth(text) - overflow));
  }
}
