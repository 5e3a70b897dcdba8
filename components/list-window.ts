/** Which part of a list fits in a number of lines, keeping one item (the focused/selected one) in view. */
export interface ListWindow {
  start: number;
  end: number;
  /** Items not shown; when > 0 one of the `capacity` lines is left for a "+N more" note. */
  hidden: number;
}

/** Fits `count` items into `capacity` lines; item `keep` (if ≥ 0) stays visible. */
export function listWindow(count: number, capacity: number, keep = -1): ListWindow {
  if (count <= capacity) return { start: 0, end: count, hidden: 0 };
  const shown = Math.max(0, capacity - 1);
  if (shown === 0) return { start: 0, end: 0, hidden: count };
  const k = Math.min(Math.max(keep, 0), count - 1);
  const start = k >= shown ? Math.min(k - shown + 1, count - shown) : 0;
  return { start, end: start + shown, hidden: count - shown };
}
