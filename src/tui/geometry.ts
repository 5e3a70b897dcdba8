/**
 * Where the TUI's regions sit on the screen: tab bar on top, status line at the bottom,
 * the sidebar on the left when there is room, panes in the rest. Pure, so the controller,
 * the views and the tests agree on every cell.
 */
import type { Rect } from '../contract/rect.js';

export const GEOMETRY = {
  /** Below this many columns for panes the sidebar is hidden: panes matter more. */
  minMainColsWithSidebar: 40,
  /** A pane's frame takes one cell on each side. */
  frameInset: 1,
} as const;

export interface ScreenGeometry {
  sidebarWidth: number;
  tabBar: Rect;
  main: Rect;
  status: Rect;
}

/** Lays out the screen's regions for a terminal of `cols`×`rows`. */
export function screenGeometry(cols: number, rows: number, sidebarPreference: number): ScreenGeometry {
  const sidebarWidth = cols - sidebarPreference >= GEOMETRY.minMainColsWithSidebar ? sidebarPreference : 0;
  const mainCols = Math.max(1, cols - sidebarWidth);
  return {
    sidebarWidth,
    tabBar: { x: sidebarWidth, y: 0, cols: mainCols, rows: 1 },
    main: { x: sidebarWidth, y: 1, cols: mainCols, rows: Math.max(1, rows - 2) },
    status: { x: 0, y: Math.max(0, rows - 1), cols, rows: 1 },
  };
}

/** The inside of a frame: the pane's own screen. */
export function frameInterior(rect: Rect): Rect {
  const inset = GEOMETRY.frameInset;
  return {
    x: rect.x + inset,
    y: rect.y + inset,
    cols: Math.max(1, rect.cols - 2 * inset),
    rows: Math.max(1, rect.rows - 2 * inset),
  };
}

/** Moves a rect by an offset (layout rects are relative to the main area). */
export function offsetRect(rect: Rect, by: { x: number; y: number }): Rect {
  return { x: rect.x + by.x, y: rect.y + by.y, cols: rect.cols, rows: rect.rows };
}
