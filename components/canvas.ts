/**
 * A small cell canvas for the parts of the chrome drawn with plain string code (pane frame
 * borders, overlay boxes): Ink needs ~10 ms to lay out four absolute boxes on a 160×45
 * screen, this needs well under one. Coordinates are absolute screen cells; the canvas
 * covers `area` and clips everything outside it.
 *
 * The cells are the compositor's own `CellGrid`, so the wide-character rules (never half a
 * glyph, a wide glyph cut at the edge becomes a space) are stated once, in
 * src/screen/cell-grid.ts; `toLines` writes them out as ANSI for the chrome's string path
 * (docs/decisions.md: why the chrome stays ANSI).
 */
import type { Rect } from '../src/contract/rect.js';
import { CellGrid } from '../src/screen/cell-grid.js';
import type { CellInput } from '../src/screen/cell.js';
import { gridRowToAnsi } from '../src/screen/ansi-row.js';
import { cellStyle, type Style } from './paint.js';
import { clean, clusters } from './text-cells.js';

/** A piece of text in one style. */
export interface Segment {
  text: string;
  style?: Style;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export class Canvas {
  private readonly grid: CellGrid;

  constructor(readonly area: Rect) {
    this.grid = new CellGrid(Math.max(0, area.cols), Math.max(0, area.rows));
  }

  /** Writes `text` at absolute (x, y), clipped to the area; returns the x after it. */
  put(x: number, y: number, text: string, style?: Style): number {
    const row = y - this.area.y;
    const s = clean(text);
    if (row < 0 || row >= this.area.rows) return x + s.length;
    // One cell input reused for every character of the text: this runs per chrome cell.
    const cell: CellInput = { char: ' ', width: 1, ...cellStyle(style) };
    if (PRINTABLE_ASCII.test(s)) {
      for (let k = 0; k < s.length; k++) {
        cell.char = s[k]!;
        this.grid.set(x + k - this.area.x, row, cell);
      }
      return x + s.length;
    }
    for (const c of clusters(s)) {
      if (c.w === 0) continue;
      cell.char = c.s;
      cell.width = c.w as 1 | 2;
      this.grid.set(x - this.area.x, row, cell);
      x += c.w;
    }
    return x;
  }

  /** Writes segments one after another; returns the x after the last. */
  putSegments(x: number, y: number, segments: readonly Segment[]): number {
    for (const seg of segments) x = this.put(x, y, seg.text, seg.style);
    return x;
  }

  /** The area as ANSI lines, each exactly area.cols cells; runs of one style share one SGR. */
  toLines(): string[] {
    const lines: string[] = [];
    for (let y = 0; y < this.grid.rows; y++) lines.push(gridRowToAnsi(this.grid, y));
    return lines;
  }
}
