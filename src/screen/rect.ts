/** A screen rectangle in cells, origin top-left, zero-based. */
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
