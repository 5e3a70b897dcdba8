/**
 * A screen rectangle in whole terminal cells, origin top-left, zero-based: the one shape the
 * layout (session/layout.ts), the compositor (screen/), the TUI's geometry and the chrome
 * views share, so a pane's rect passes between them without copying.
 */
export interface Rect {
  x: number;
  y: number;
  cols: number;
  rows: number;
}

/** The overlap of two rectangles, or null when they do not overlap. */
export function intersectRect(a: Rect, b: Rect): Rect | null {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const right = Math.min(a.x + a.cols, b.x + b.cols);
  const bottom = Math.min(a.y + a.rows, b.y + b.rows);
  if (right <= x || bottom <= y) return null;
  return { x, y, cols: right - x, rows: bottom - y };
}

/** Whether two rectangles are the same. */
export function sameRect(a: Rect, b: Rect): boolean {
  return a.x === b.x && a.y === b.y && a.cols === b.cols && a.rows === b.rows;
}

/** Whether cell (x, y) lies inside the rectangle. */
export function contains(rect: Rect, x: number, y: number): boolean {
  return x >= rect.x && x < rect.x + rect.cols && y >= rect.y && y < rect.y + rect.rows;
}
