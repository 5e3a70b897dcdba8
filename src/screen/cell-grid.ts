import {
  BLANK,
  CLUSTER_BIT,
  FLAGS,
  WIDE_CONTINUATION,
  packFlags,
  widthOf,
  type Cell,
  type CellInput,
} from './cell.js';
import { clusterWidth } from './graphemes.js';
import { ClusterTable } from './cluster-table.js';
import { intersectRect, type Rect } from '../contract/rect.js';

const BLANK_TRANSPARENT_FLAGS = BLANK.flags | FLAGS.transparent;

/**
 * A rectangle of cells in four parallel typed arrays (row-major), so diffing a 200×60
 * screen is four integer compares per cell and copying a row is four `set` calls.
 *
 * Invariant kept by `set`, `copyRegion` and `repairRow`: a width-2 cell is always followed
 * by a width-0 continuation, and a continuation always follows a width-2 cell — never
 * half a wide character.
 */
export class CellGrid {
  cols: number;
  rows: number;
  /** Code point, `CLUSTER_BIT + id`, or 0 for a wide continuation. */
  chars: Uint32Array;
  fg: Uint32Array;
  bg: Uint32Array;
  /** Attributes, width and transparency (see FLAGS). */
  flags: Uint16Array;
  readonly clusters: ClusterTable;

  constructor(cols: number, rows: number, clusters: ClusterTable = new ClusterTable()) {
    this.cols = Math.max(0, cols);
    this.rows = Math.max(0, rows);
    this.clusters = clusters;
    const n = this.cols * this.rows;
    this.chars = new Uint32Array(n).fill(BLANK.char);
    this.fg = new Uint32Array(n);
    this.bg = new Uint32Array(n);
    this.flags = new Uint16Array(n).fill(BLANK.flags);
  }

  /** The array index of cell (x, y). */
  index(x: number, y: number): number {
    return y * this.cols + x;
  }

  /** Writes raw cell values at an index with no invariant checks (hot paths only). */
  setRaw(i: number, char: number, fg: number, bg: number, flags: number): void {
    this.chars[i] = char;
    this.fg[i] = fg;
    this.bg[i] = bg;
    this.flags[i] = flags;
  }

  /** Writes one cell, splitting no wide character: halves it would cut become spaces. */
  set(x: number, y: number, input: CellInput): void {
    if (x < 0 || y < 0 || x >= this.cols || y >= this.rows) return;
    const fg = input.fg ?? BLANK.fg;
    const bg = input.bg ?? BLANK.bg;
    const attrs = input.attrs ?? 0;
    let width: number = input.width ?? (input.char === '' ? 1 : clusterWidth(input.char));
    let code = input.char === '' ? BLANK.char : this.clusters.codeFor(input.char);
    // A control character would act on the real terminal instead of printing.
    if (code < 0x20 || (code >= 0x7f && code < 0xa0)) code = BLANK.char;
    if (width === 0) width = 1;
    // A wide character that does not fit in the last column shows as a space, like a terminal.
    if (width === 2 && x === this.cols - 1) {
      width = 1;
      code = BLANK.char;
    }
    const i = this.index(x, y);
    this.setRaw(i, code, fg, bg, packFlags(attrs, width));
    if (width === 2) this.setRaw(i + 1, WIDE_CONTINUATION, fg, bg, packFlags(attrs, 0));
    this.repairRow(y, x - 1, x + width + 1);
  }

  /** Decodes the cell at (x, y). */
  get(x: number, y: number): Cell {
    const i = this.index(x, y);
    const flags = this.flags[i];
    return {
      char: this.clusters.stringFor(this.chars[i]),
      width: widthOf(flags),
      fg: this.fg[i],
      bg: this.bg[i],
      attrs: flags & FLAGS.attrMask,
      transparent: (flags & FLAGS.transparent) !== 0,
    };
  }

  /** The character at (x, y) ('' for a wide continuation). */
  charAt(x: number, y: number): string {
    return this.clusters.stringFor(this.chars[this.index(x, y)]);
  }

  /** Fills a rectangle (default: everything) with one cell; wide fills step by two. */
  fill(input: CellInput, rect: Rect = { x: 0, y: 0, cols: this.cols, rows: this.rows }): void {
    const r = intersectRect(rect, { x: 0, y: 0, cols: this.cols, rows: this.rows });
    if (!r) return;
    const width = input.width ?? clusterWidth(input.char);
    for (let y = r.y; y < r.y + r.rows; y++) {
      for (let x = r.x; x < r.x + r.cols; x += width === 2 ? 2 : 1) {
        this.set(x, y, width === 2 && x + 1 >= r.x + r.cols ? { ...input, char: ' ', width: 1 } : input);
      }
    }
  }

  /** Resets every cell to a blank (or to transparent blanks, for layer grids). */
  clear(transparent = false): void {
    this.chars.fill(BLANK.char);
    this.fg.fill(BLANK.fg);
    this.bg.fill(BLANK.bg);
    this.flags.fill(transparent ? BLANK_TRANSPARENT_FLAGS : BLANK.flags);
  }

  /** Resets one row to blanks. */
  clearRow(y: number, transparent = false): void {
    const start = y * this.cols;
    const end = start + this.cols;
    this.chars.fill(BLANK.char, start, end);
    this.fg.fill(BLANK.fg, start, end);
    this.bg.fill(BLANK.bg, start, end);
    this.flags.fill(transparent ? BLANK_TRANSPARENT_FLAGS : BLANK.flags, start, end);
  }

  /** Changes the size, keeping the top-left content; new cells are blank. */
  resize(cols: number, rows: number): void {
    const old = { cols: this.cols, rows: this.rows, chars: this.chars, fg: this.fg, bg: this.bg, flags: this.flags };
    this.cols = Math.max(0, cols);
    this.rows = Math.max(0, rows);
    const n = this.cols * this.rows;
    this.chars = new Uint32Array(n).fill(BLANK.char);
    this.fg = new Uint32Array(n);
    this.bg = new Uint32Array(n);
    this.flags = new Uint16Array(n).fill(BLANK.flags);
    const copyCols = Math.min(old.cols, this.cols);
    for (let y = 0; y < Math.min(old.rows, this.rows); y++) {
      const from = y * old.cols;
      const to = y * this.cols;
      this.chars.set(old.chars.subarray(from, from + copyCols), to);
      this.fg.set(old.fg.subarray(from, from + copyCols), to);
      this.bg.set(old.bg.subarray(from, from + copyCols), to);
      this.flags.set(old.flags.subarray(from, from + copyCols), to);
      this.repairRow(y, copyCols - 2, copyCols);
    }
  }

  /**
   * Copies `srcRect` of `src` to (dstX, dstY), clipped to both grids. With
   * `skipTransparent`, transparent source cells leave the destination untouched;
   * without it cells are copied verbatim, transparency included.
   * Wide characters cut by the copy's edges become spaces.
   */
  copyRegion(src: CellGrid, srcRect: Rect, dstX: number, dstY: number, skipTransparent = false): void {
    let { x: sx, y: sy, cols: w, rows: h } = srcRect;
    // Clip against the source grid, then the destination grid, shifting both origins together.
    if (sx < 0) { dstX -= sx; w += sx; sx = 0; }
    if (sy < 0) { dstY -= sy; h += sy; sy = 0; }
    if (dstX < 0) { sx -= dstX; w += dstX; dstX = 0; }
    if (dstY < 0) { sy -= dstY; h += dstY; dstY = 0; }
    w = Math.min(w, src.cols - sx, this.cols - dstX);
    h = Math.min(h, src.rows - sy, this.rows - dstY);
    if (w <= 0 || h <= 0) return;
    const sameTable = src.clusters === this.clusters;
    for (let row = 0; row < h; row++) {
      const si = (sy + row) * src.cols + sx;
      const di = (dstY + row) * this.cols + dstX;
      if (!skipTransparent && sameTable) {
        this.chars.set(src.chars.subarray(si, si + w), di);
        this.fg.set(src.fg.subarray(si, si + w), di);
        this.bg.set(src.bg.subarray(si, si + w), di);
        this.flags.set(src.flags.subarray(si, si + w), di);
      } else {
        for (let k = 0; k < w; k++) {
          const flags = src.flags[si + k];
          if (skipTransparent && (flags & FLAGS.transparent) !== 0) continue;
          let char = src.chars[si + k];
          if (!sameTable && char >= CLUSTER_BIT) char = this.clusters.codeFor(src.clusters.stringFor(char));
          this.setRaw(di + k, char, src.fg[si + k], src.bg[si + k], flags);
        }
      }
      this.repairRow(dstY + row, dstX - 1, dstX + w + 1);
    }
  }

  /** Copies whole row `y` from a grid of the same width and cluster table. */
  copyRowFrom(src: CellGrid, y: number): void {
    const start = y * this.cols;
    const end = start + this.cols;
    this.chars.set(src.chars.subarray(start, end), start);
    this.fg.set(src.fg.subarray(start, end), start);
    this.bg.set(src.bg.subarray(start, end), start);
    this.flags.set(src.flags.subarray(start, end), start);
  }

  /**
   * Restores the wide-character invariant in columns [from, to) of row y: a lead without
   * its continuation, or a continuation without its lead, becomes a space in its own style.
   */
  repairRow(y: number, from = 0, to = this.cols): void {
    const start = Math.max(0, from);
    const end = Math.min(this.cols, to);
    const base = y * this.cols;
    for (let x = start; x < end; x++) {
      const i = base + x;
      const w = (this.flags[i] & FLAGS.widthMask) >> FLAGS.widthShift;
      if (w === 2) {
        const nextIsCont = x + 1 < this.cols && (this.flags[i + 1] & FLAGS.widthMask) === 0;
        if (!nextIsCont) this.blankCell(i);
      } else if (w === 0) {
        const prevIsLead = x > 0 && (this.flags[i - 1] & FLAGS.widthMask) >> FLAGS.widthShift === 2;
        if (!prevIsLead) this.blankCell(i);
      }
    }
  }

  private blankCell(i: number): void {
    this.chars[i] = BLANK.char;
    this.flags[i] = (this.flags[i] & ~FLAGS.widthMask) | (1 << FLAGS.widthShift);
  }

  /** Whether cell i of this grid looks the same as cell j of `other`. */
  cellEquals(i: number, other: CellGrid, j: number): boolean {
    if (this.fg[i] !== other.fg[j] || this.bg[i] !== other.bg[j] || this.flags[i] !== other.flags[j]) return false;
    const a = this.chars[i];
    const b = other.chars[j];
    if (a === b && (a < CLUSTER_BIT || this.clusters === other.clusters)) return true;
    // Different numbers mean different characters unless both are clusters from different tables.
    if (a < CLUSTER_BIT || b < CLUSTER_BIT || this.clusters === other.clusters) return false;
    return this.clusters.stringFor(a) === other.clusters.stringFor(b);
  }

  /** Whether row y is identical in both grids (same width assumed). */
  rowEquals(y: number, other: CellGrid): boolean {
    if (other.cols !== this.cols) return false;
    const start = y * this.cols;
    for (let i = start; i < start + this.cols; i++) {
      if (!this.cellEquals(i, other, i)) return false;
    }
    return true;
  }

  /** Whether both grids have the same size and cells. */
  equals(other: CellGrid): boolean {
    if (other.cols !== this.cols || other.rows !== this.rows) return false;
    for (let y = 0; y < this.rows; y++) if (!this.rowEquals(y, other)) return false;
    return true;
  }

  /** The grid as plain text lines (continuations omitted), for tests and debugging. */
  toLines(): string[] {
    const lines: string[] = [];
    for (let y = 0; y < this.rows; y++) {
      let line = '';
      for (let x = 0; x < this.cols; x++) line += this.charAt(x, y);
      lines.push(line);
    }
    return lines;
  }
}
