/**
 * A small cell canvas for the parts of the chrome drawn with plain string code (pane frame
 * borders, overlay boxes): Ink needs ~10 ms to lay out four absolute boxes on a 160×45
 * screen, this needs well under one. Coordinates are absolute screen cells; the canvas
 * covers `area` and clips everything outside it.
 */
import type { Rect } from '../src/contract/rect.js';
import { paint, type Style } from './paint.js';
import { clean, clusters } from './text-cells.js';

/** A piece of text in one style. */
export interface Segment {
  text: string;
  style?: Style;
}

/** Marks the right half of a wide character. */
const CONTINUATION = '';
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export class Canvas {
  private readonly chars: string[][];
  private readonly styles: (Style | undefined)[][];

  constructor(readonly area: Rect) {
    this.chars = Array.from({ length: Math.max(0, area.rows) }, () => new Array<string>(Math.max(0, area.cols)).fill(' '));
    this.styles = Array.from({ length: Math.max(0, area.rows) }, () => new Array<Style | undefined>(Math.max(0, area.cols)).fill(undefined));
  }

  /** Writes `text` at absolute (x, y), clipped to the area; returns the x after it. */
  put(x: number, y: number, text: string, style?: Style): number {
    const row = y - this.area.y;
    const s = clean(text);
    if (row < 0 || row >= this.area.rows) return x + s.length;
    if (PRINTABLE_ASCII.test(s)) {
      for (let k = 0; k < s.length; k++) this.set(x + k, row, s[k], 1, style);
      return x + s.length;
    }
    for (const c of clusters(s)) {
      if (c.w === 0) continue;
      this.set(x, row, c.s, c.w, style);
      x += c.w;
    }
    return x;
  }

  /** Sets one cell (and its continuation for wide characters), keeping wide characters whole. */
  private set(x: number, row: number, ch: string, width: number, style: Style | undefined): void {
    const col = x - this.area.x;
    const chars = this.chars[row];
    const styles = this.styles[row];
    if (col < 0 || col >= this.area.cols) return;
    // A wide character cut at the right edge cannot be drawn: a space holds its place.
    if (width === 2 && col + 1 >= this.area.cols) {
      ch = ' ';
      width = 1;
    }
    // Half a wide character left behind would misalign the row: blank its other half.
    if (chars[col] === CONTINUATION && col > 0) chars[col - 1] = ' ';
    const last = col + width - 1;
    if (last + 1 < this.area.cols && chars[last + 1] === CONTINUATION) chars[last + 1] = ' ';
    chars[col] = ch;
    styles[col] = style;
    if (width === 2) {
      chars[col + 1] = CONTINUATION;
      styles[col + 1] = style;
    }
  }

  /** Writes segments one after another; returns the x after the last. */
  putSegments(x: number, y: number, segments: readonly Segment[]): number {
    for (const seg of segments) x = this.put(x, y, seg.text, seg.style);
    return x;
  }

  /** The area as ANSI lines, each exactly area.cols cells; runs of one style share one SGR. */
  toLines(): string[] {
    return this.chars.map((chars, row) => {
      const styles = this.styles[row];
      let out = '';
      let start = 0;
      // Continuation cells are '' and vanish in join(), so a run's text is a plain slice.
      for (let col = 1; col <= chars.length; col++) {
        if (col === chars.length || styles[col] !== styles[start]) {
          out += paint(chars.slice(start, col).join(''), styles[start]);
          start = col;
        }
      }
      return out;
    });
  }
}
