import { ATTR, paletteColor, rgbColor } from '../../src/screen/cell.js';
import { CellGrid } from '../../src/screen/cell-grid.js';
import { ClusterTable } from '../../src/screen/cluster-table.js';
import { diffFrame } from '../../src/screen/frame-writer.js';
import type { CursorState } from '../../src/screen/cursor.js';

/** The screen size the design targets (a large laptop terminal). */
export const BENCH_SIZE = { cols: 160, rows: 45 } as const;

export interface DiffBenchmark {
  cols: number;
  rows: number;
  /** Mean microseconds to diff a frame where one cell changed, and the bytes it produced. */
  oneCellUs: number;
  oneCellBytes: number;
  /** Mean microseconds to diff a frame where every cell changed, and the bytes it produced. */
  allChangedUs: number;
  allChangedBytes: number;
  /** The same all-changed frame written for a 256-colour terminal (24-bit colours mapped, cached). */
  allChanged256Us: number;
  allChanged256Bytes: number;
}

function styledGrid(cols: number, rows: number, salt: number, clusters: ClusterTable): CellGrid {
  const grid = new CellGrid(cols, rows, clusters);
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < cols; x++) {
      const k = x + y + salt;
      grid.set(x, y, {
        char: letters[k % letters.length],
        fg: k % 3 === 0 ? paletteColor(k % 16) : rgbColor(k & 255, (k * 7) & 255, (k * 13) & 255),
        attrs: (k >> 3) % 4 === 0 ? ATTR.bold : 0,
      });
    }
  }
  return grid;
}

function timeUs(iterations: number, fn: () => void): number {
  for (let i = 0; i < Math.min(20, iterations); i++) fn();
  const start = performance.now();
  for (let i = 0; i < iterations; i++) fn();
  return ((performance.now() - start) * 1000) / iterations;
}

/** Times diffFrame on a 160×45 screen: one changed cell, and every cell changed. */
export function benchmarkDiff(iterations = 200): DiffBenchmark {
  const { cols, rows } = BENCH_SIZE;
  // One cluster table for all grids, as in the compositor: cells compare as plain numbers.
  const clusters = new ClusterTable();
  const before = styledGrid(cols, rows, 0, clusters);
  const oneCell = styledGrid(cols, rows, 0, clusters);
  oneCell.set(80, 22, { char: 'Z' });
  const allChanged = styledGrid(cols, rows, 1, clusters);
  const cursor: CursorState = { x: 81, y: 22, visible: true, shape: 'default', blink: false };
  const shownCursor: CursorState = { ...cursor, x: 80 };
  let oneCellBytes = 0;
  let allChangedBytes = 0;
  const oneCellUs = timeUs(iterations, () => {
    oneCellBytes = Buffer.byteLength(diffFrame(before, oneCell, cursor, { shownCursor }));
  });
  const allChangedUs = timeUs(Math.max(1, iterations >> 2), () => {
    allChangedBytes = Buffer.byteLength(diffFrame(before, allChanged, cursor, { shownCursor }));
  });
  let allChanged256Bytes = 0;
  const allChanged256Us = timeUs(Math.max(1, iterations >> 2), () => {
    allChanged256Bytes = Buffer.byteLength(diffFrame(before, allChanged, cursor, { shownCursor, colors: 256 }));
  });
  return { cols, rows, oneCellUs, oneCellBytes, allChangedUs, allChangedBytes, allChanged256Us, allChanged256Bytes };
}
