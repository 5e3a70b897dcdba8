/**
 * A frozen read of a pane's buffer (`PaneView.scrollbackReader`): the rows as they are when
 * taken, wherever they live (xterm's window or the compact store, src/terminal/scrollback.ts).
 * New output goes below the frozen end, and rows trimmed off the top of the scrollback
 * meanwhile read as blank.
 */
import type { CellGrid } from '../screen/cell-grid.js';
import type { ScrollbackReader } from './pane-view.js';
import type { LineBuffer } from './scrollback.js';
import { copyXtermRows } from './xterm-screen.js';

/**
 * `trimmedLines()` counts rows dropped off the top of the normal buffer for good, so a row
 * read later can be found again after the scrollback moved on.
 */
export function freezeScrollback(buffer: LineBuffer, cols: number, trimmedLines: () => number): ScrollbackReader {
  const alternate = buffer.type === 'alternate';
  const trimmedAtEntry = trimmedLines();
  // Only the normal buffer has a scrollback that trims; the alternate screen never scrolls into one.
  const shift = (): number => (alternate ? 0 : trimmedLines() - trimmedAtEntry);
  const lineCount = buffer.length;
  const nullCell = buffer.getNullCell();
  const lineAt = (i: number) => {
    const row = i - shift();
    // xterm's getLine wraps negative indices around its ring buffer: a trimmed row must read as gone.
    return i < 0 || i >= lineCount || row < 0 ? undefined : buffer.getLine(row);
  };
  return {
    lineCount,
    screenTop: buffer.baseY,
    cursor: { line: buffer.baseY + buffer.cursorY, col: Math.min(buffer.cursorX, cols - 1) },
    cells(i) {
      const line = lineAt(i);
      if (!line) return [];
      const out: string[] = [];
      for (let x = 0; x < line.length; x++) {
        line.getCell(x, nullCell);
        out.push(nullCell.getWidth() === 0 ? '' : nullCell.getChars() || ' ');
      }
      return out;
    },
    text(i, trimRight = false) {
      return lineAt(i)?.translateToString(trimRight) ?? '';
    },
    wrapped(i) {
      return lineAt(i)?.isWrapped ?? false;
    },
    paint(grid: CellGrid, top: number) {
      const first = top - shift();
      const rect = { x: 0, y: 0, cols: grid.cols, rows: grid.rows };
      if (first >= 0) return void copyXtermRows(buffer, grid, rect, { top: first });
      // Rows trimmed off the scrollback since entry show blank.
      grid.clear();
      const rows = [];
      for (let r = -first; r < grid.rows; r++) rows.push(r);
      copyXtermRows(buffer, grid, rect, { top: first, rows });
    },
  };
}
