/**
 * Box borders with labels embedded in them (`┌─ title ──── zoomed ─┐`), drawn on a Canvas.
 * Shared by pane frames and overlay boxes so both truncate and place labels the same way.
 */
import type { Rect } from '../src/contract/rect.js';
import type { Canvas, Segment } from './canvas.js';
import type { Style } from './paint.js';
import { textWidth, truncate } from './text-cells.js';

/** Single-line sets: square for pane frames, round for overlays (so an overlay never reads as a pane). */
export const BOX_CHARS = {
  square: { tl: '┌', tr: '┐', bl: '└', br: '┘', h: '─', v: '│' },
  round: { tl: '╭', tr: '╮', bl: '╰', br: '╯', h: '─', v: '│' },
} as const;

export type BoxKind = keyof typeof BOX_CHARS;

const LABEL = {
  // A label needs at least this many cells of text to be worth showing; `…` alone says nothing.
  minText: 2,
  // Cells around a label: one border dash on the outer side, one space either side of the text.
  padding: 3,
} as const;

/** Total width of segments. */
export function segmentsWidth(segments: readonly Segment[]): number {
  let w = 0;
  for (const s of segments) w += textWidth(s.text);
  return w;
}

/** Cuts segments to `width` cells; the segment that crosses the limit ends in `…`. */
export function truncateSegments(segments: readonly Segment[], width: number): Segment[] {
  const out: Segment[] = [];
  let left = width;
  for (const seg of segments) {
    if (left <= 0) break;
    const w = textWidth(seg.text);
    if (w <= left) {
      out.push(seg);
      left -= w;
    } else {
      out.push({ text: truncate(seg.text, left), style: seg.style });
      break;
    }
  }
  return out;
}

/**
 * Draws one horizontal border row of `width` cells at (x, y): `ends[0]`, dashes, `ends[1]`,
 * with `left` embedded after the first dash and `right` before the last. `right` is kept
 * whole or dropped; `left` is truncated to what is left.
 */
export function borderRow(
  canvas: Canvas,
  x: number,
  y: number,
  width: number,
  ends: readonly [string, string],
  line: string,
  style: Style,
  left: readonly Segment[] = [],
  right: readonly Segment[] = [],
): void {
  if (width <= 0) return;
  if (width === 1) {
    canvas.put(x, y, ends[0], style);
    return;
  }
  canvas.put(x, y, ends[0] + line.repeat(width - 2) + ends[1], style);
  const inner = width - 2;
  const rightWidth = segmentsWidth(right);
  // Leave one dash at the far side of each label so labels never touch a corner.
  const rightFits = rightWidth > 0 && rightWidth + LABEL.padding + 1 <= inner;
  if (rightFits) {
    const start = x + width - 1 - LABEL.padding - rightWidth;
    canvas.put(start, y, ' ', style);
    canvas.putSegments(start + 1, y, right);
    canvas.put(start + 1 + rightWidth, y, ' ', style);
  }
  // Left label, then at least one dash before the right label (or the corner).
  const leftBudget = inner - LABEL.padding - 1 - (rightFits ? rightWidth + LABEL.padding : 0);
  if (left.length > 0 && leftBudget >= LABEL.minText) {
    const shown = truncateSegments(left, leftBudget);
    canvas.put(x + 2, y, ' ', style);
    const end = canvas.putSegments(x + 3, y, shown);
    canvas.put(end, y, ' ', style);
  }
}

export interface BoxOptions {
  kind: BoxKind;
  border: Style;
  /** Embedded at the top left; truncated with `…` to fit. */
  title?: readonly Segment[];
  /** Embedded at the top right, whole or not at all. */
  topRight?: readonly Segment[];
  /** Embedded at the bottom right, whole or not at all. */
  bottomRight?: readonly Segment[];
}

/**
 * Draws a box's border at `rect`. The interior is left alone (a fresh Canvas is blank, and
 * tiled frames never overlap), which halves the cells a full-screen frame render touches.
 * Rects under 2×2 draw what fits.
 */
export function drawBox(canvas: Canvas, rect: Rect, options: BoxOptions): void {
  const { x, y, cols, rows } = rect;
  if (cols <= 0 || rows <= 0) return;
  const c = BOX_CHARS[options.kind];
  borderRow(canvas, x, y, cols, [c.tl, c.tr], c.h, options.border, options.title, options.topRight);
  for (let row = y + 1; row < y + rows - 1; row++) {
    canvas.put(x, row, c.v, options.border);
    if (cols > 1) canvas.put(x + cols - 1, row, c.v, options.border);
  }
  if (rows > 1) borderRow(canvas, x, y + rows - 1, cols, [c.bl, c.br], c.h, options.border, [], options.bottomRight);
}
