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
import type { PaneView } from '../../terminal/pane-view.js';

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

/** A pane's buffer as it is now; lines appended later are not part of it (PaneView.scrollbackReader). */
export function terminalSource(view: Pick<PaneView, 'scrollbackReader'>): CopySource {
  return view.scrollbackReader();
}

/** A line's cells, wide characters and clusters measured as the panes measure them. */
function cellsOf(line: string): string[] {
  const out: string[] = [];
  for (const { s, w } of clustersOf(line)) {
    out.push(s);
    if (w === 2) out.push('');
  }
  return out;
}

/** SGR sequences, the only escapes a styled source holds. */
const SGR = /\x1b\[[0-9;:]*m/g;

/**
 * Lines coloured with SGR sequences and nothing else (a worktree's diff for the review view,
 * its text already made visible): searched and copied as their plain text, drawn in colour.
 */
export function styledSource(lines: readonly string[]): CopySource {
  const plain = lines.map((line) => line.replace(SGR, ''));
  return {
    lineCount: lines.length,
    cells: (i) => cellsOf(plain[i] ?? ''),
    text: (i, trimRight) => (trimRight ? (plain[i] ?? '').trimEnd() : (plain[i] ?? '')),
    wrapped: () => false,
    paint(grid, top) {
      grid.clear();
      // Each line starts from the default pen: a colour never runs on into the next line.
      const shown = lines.slice(Math.max(0, top), Math.max(0, top + grid.rows)).map((line) => `\x1b[0m${line}`);
      drawAnsi(grid, shown.join('\n'), 0, Math.max(0, -top));
    },
  };
}

/** Plain lines (a gathered transcript); wide characters and clusters measured as the panes measure them. */
export function textSource(lines: readonly string[]): CopySource {
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
