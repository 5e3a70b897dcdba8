/**
 * What copy mode reads: a frozen list of lines. Two kinds:
 * - a pane's terminal buffer (colours kept), frozen at entry: new output goes below the
 *   frozen end, and rows trimmed off the top of the scrollback meanwhile read as blank;
 * - plain text lines, for an alternate-screen agent's gathered transcript (SPEC §5).
 * Copy mode and its search see only this interface, so the scrollback store behind it can change.
 */
import type { CellGrid } from '../../screen/cell-grid.js';
import { drawAnsi } from '../../screen/ansi-source.js';
import { clustersOf } from '../../screen/graphemes.js';
import { copyXtermRows } from '../../screen/xterm-source.js';
import type { PaneTerminal } from '../../terminal/pane-terminal.js';
import type { LineBuffer } from '../../terminal/scrollback.js';

export interface CopySource {
  /** Lines in the frozen view. */
  readonly lineCount: number;
  /** Line `i` as text, one string per cell ('' for the right half of a wide character); [] if gone. */
  cells(i: number): readonly string[];
  /** Line `i` as plain text: the cells joined, trailing blanks dropped with `trimRight`. */
  text(i: number, trimRight?: boolean): string;
  /** Whether line `i` continues line `i - 1` (a soft wrap). */
  wrapped(i: number): boolean;
  /** Draws lines `top …` into the whole of `grid` (a grid the size of the view). */
  paint(grid: CellGrid, top: number): void;
}

/** A pane's buffer as it is now; lines appended later are not part of it. */
export function terminalSource(terminal: PaneTerminal): CopySource {
  // The pane's whole scrollback, rows in its compact store included (src/terminal/scrollback.ts).
  const buffer: LineBuffer = terminal.scrollback;
  const alternate = buffer.type === 'alternate';
  const trimmedAtEntry = terminal.trimmedLines;
  // Only the normal buffer has a scrollback that trims; the alternate screen never scrolls into one.
  const shift = (): number => (alternate ? 0 : terminal.trimmedLines - trimmedAtEntry);
  const lineCount = buffer.length;
  const nullCell = buffer.getNullCell();
  const lineAt = (i: number) => {
    const row = i - shift();
    // xterm's getLine wraps negative indices around its ring buffer: a trimmed row must read as gone.
    return i < 0 || i >= lineCount || row < 0 ? undefined : buffer.getLine(row);
  };
  return {
    lineCount,
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
    paint(grid, top) {
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

/** Plain lines (a gathered transcript); wide characters and clusters measured as the panes measure them. */
export function textSource(lines: readonly string[]): CopySource {
  const cellsOf = (line: string): string[] => {
    const out: string[] = [];
    for (const { s, w } of clustersOf(line)) {
      out.push(s);
      if (w === 2) out.push('');
    }
    return out;
  };
  return {
    lineCount: lines.length,
    cells: (i) => cellsOf(lines[i] ?? ''),
    text: (i) => lines[i] ?? '',
    wrapped: () => false,
    paint(grid, top) {
      grid.clear();
      // Control characters never reach the screen: drawAnsi skips them, and the text has no escapes left.
      const shown = lines.slice(Math.max(0, top), Math.max(0, top + grid.rows)).map((l) => l.replace(/\x1b/g, ''));
      drawAnsi(grid, shown.join('\n'), 0, Math.max(0, -top));
    },
  };
}
