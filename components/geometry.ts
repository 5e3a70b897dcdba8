/**
 * Where the TUI's regions sit on the screen: tab bar on top, status line at the bottom,
 * the sidebar on the left when there is room, panes in the rest. Pure, and the only
 * statement of the layout: the controller, the chrome views (components/Chrome.tsx,
 * hit-test.ts) and the tests all place regions with it, so they agree on every cell.
 */
import type { Rect } from '../src/contract/rect.js';

export const GEOMETRY = {
  /** Below this many columns for panes the sidebar is hidden: panes matter more. */
  minMainColsWithSidebar: 40,
  /** A pane's frame takes one cell on each side. */
  frameInset: 1,
} as const;

export interface ScreenGeometry {
  cols: number;
  rows: number;
  /** Columns the sidebar takes, its border column included (0: hidden). */
  sidebarWidth: number;
  /** The sidebar's content, left of its border column. */
  sidebar: Rect;
  tabBar: Rect;
  /** The panes' area (their frames included). */
  main: Rect;
  status: Rect;
}

/**
 * The regions of a `cols`×`rows` screen once the sidebar's width is decided (SPEC §12). On a
 * screen too small for them, regions shrink to nothing rather than overlap.
 */
export function screenRegions(cols: number, rows: number, sidebarWidth: number): ScreenGeometry {
  cols = Math.max(0, cols);
  rows = Math.max(0, rows);
  sidebarWidth = Math.min(Math.max(0, sidebarWidth), cols);
  return {
    cols,
    rows,
    sidebarWidth,
    sidebar: { x: 0, y: 0, cols: Math.max(0, sidebarWidth - 1), rows: Math.max(0, rows - 1) },
    tabBar: { x: sidebarWidth, y: 0, cols: cols - sidebarWidth, rows: rows > 1 ? 1 : 0 },
    main: { x: sidebarWidth, y: 1, cols: cols - sidebarWidth, rows: Math.max(0, rows - 2) },
    status: { x: 0, y: rows - 1, cols, rows: rows > 0 ? 1 : 0 },
  };
}

/** Lays out the screen's regions for a terminal of `cols`×`rows`, deciding whether the sidebar fits. */
export function screenGeometry(cols: number, rows: number, sidebarPreference: number): ScreenGeometry {
  const sidebarWidth = cols - sidebarPreference >= GEOMETRY.minMainColsWithSidebar ? sidebarPreference : 0;
  const regions = screenRegions(cols, rows, sidebarWidth);
  // The core lays panes out in `main`: it needs a cell even on a screen too small to show one.
  const main = { ...regions.main, cols: Math.max(1, regions.main.cols), rows: Math.max(1, regions.main.rows) };
  return { ...regions, main };
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
