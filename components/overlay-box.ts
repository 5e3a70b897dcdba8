/** Placing an overlay: a centred rect, and a rounded box around content rendered by Ink. */
import type { ReactNode } from 'react';
import type { Rect } from '../src/contract/rect.js';
import { BOX_CHARS, borderRow } from './box.js';
import { Canvas, type Segment } from './canvas.js';
import { paint } from './paint.js';
import { renderBlock } from './render-block.js';
import { THEME } from './theme.js';

export const OVERLAY = {
  // Cells left free on each side when the screen is big enough, so the box reads as floating.
  margin: 1,
  // Below this the margin is dropped: a cramped box beats no box.
  marginFrom: { cols: 20, rows: 6 },
  // A border plus one line of content.
  min: { cols: 3, rows: 3 },
} as const;

/** What renderOverlay returns: the box as ANSI lines and where it goes. */
export interface OverlayRender {
  /** `rect.rows` lines joined by `\n`, each exactly `rect.cols` cells. */
  text: string;
  /** Absolute position and size on the screen. */
  rect: Rect;
  /** Where a text cursor belongs (absolute), for overlays with an input line. */
  cursor?: { x: number; y: number };
}

/** The largest box size the screen allows. */
export function overlayLimits(cols: number, rows: number): { cols: number; rows: number } {
  return {
    cols: cols >= OVERLAY.marginFrom.cols ? cols - 2 * OVERLAY.margin : cols,
    rows: rows >= OVERLAY.marginFrom.rows ? rows - 2 * OVERLAY.margin : rows,
  };
}

/** A rect of (at most) the wanted size, centred on the screen; null if the screen is too small. */
export function centredRect(screenCols: number, screenRows: number, wantCols: number, wantRows: number): Rect | null {
  const limits = overlayLimits(screenCols, screenRows);
  const cols = Math.min(Math.max(wantCols, OVERLAY.min.cols), limits.cols);
  const rows = Math.min(Math.max(wantRows, OVERLAY.min.rows), limits.rows);
  if (cols < OVERLAY.min.cols || rows < OVERLAY.min.rows) return null;
  return { x: Math.floor((screenCols - cols) / 2), y: Math.floor((screenRows - rows) / 2), cols, rows };
}

export interface BoxedOptions {
  title?: readonly Segment[];
  footer?: readonly Segment[];
}

/** Renders `content` (an Ink element sized to the interior) inside a rounded box at `rect`. */
export function renderBoxed(rect: Rect, content: ReactNode, options: BoxedOptions = {}): string {
  const c = BOX_CHARS.round;
  const innerCols = rect.cols - 2;
  const inner = renderBlock(content, innerCols, rect.rows - 2);
  const edge = (ends: readonly [string, string], left: readonly Segment[], right: readonly Segment[]): string => {
    const canvas = new Canvas({ x: 0, y: 0, cols: rect.cols, rows: 1 });
    borderRow(canvas, 0, 0, rect.cols, ends, c.h, THEME.overlayBorder, left, right);
    return canvas.toLines()[0];
  };
  const side = paint(c.v, THEME.overlayBorder);
  const lines = [edge([c.tl, c.tr], options.title ?? [], [])];
  for (const line of inner) lines.push(side + line + side);
  lines.push(edge([c.bl, c.br], [], options.footer ?? []));
  return lines.join('\n');
}
