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

/**
 * `listWindow` for items of different heights (a sidebar agent with a worktree line takes
 * two): which items fit in `capacity` lines with item `keep` (if ≥ 0) in view. When not all
 * fit, one line is left for the "+N more" note.
 */
export function listWindowByHeight(heights: readonly number[], capacity: number, keep = -1): ListWindow {
  const total = heights.reduce((sum, h) => sum + h, 0);
  if (total <= capacity) return { start: 0, end: heights.length, hidden: 0 };
  const room = Math.max(0, capacity - 1);
  const k = Math.min(Math.max(keep, 0), heights.length - 1);
  // From the top, or, when that leaves `keep` out, back from `keep` as far as room allows.
  let start = 0;
  let used = 0;
  let end = 0;
  while (end < heights.length && used + heights[end]! <= room) used += heights[end++]!;
  if (keep >= 0 && k >= end) {
    start = k + 1;
    used = 0;
    while (start > 0 && used + heights[start - 1]! <= room) used += heights[--start]!;
    end = k + 1;
    while (end < heights.length && used + heights[end]! <= room) used += heights[end++]!;
  }
  return { start, end, hidden: heights.length - (end - start) };
}
