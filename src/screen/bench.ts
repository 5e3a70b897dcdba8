import xterm from '@xterm/headless';
import { ATTR, paletteColor, rgbColor } from './cell.js';
import { CellGrid } from './cell-grid.js';
import { ClusterTable } from './cluster-table.js';
import { Compositor } from './compositor.js';
import { ManualScheduler } from './frame-scheduler.js';
import { diffFrame } from './frame-writer.js';
import type { CursorState } from './cursor.js';

const { Terminal } = xterm;

/** The screen size the design targets (a large laptop terminal). */
const BENCH_SIZE = { cols: 160, rows: 45 } as const;

export interface DiffBenchmark {
  cols: number;
  rows: number;
  /** Mean microseconds to diff a frame where one cell changed, and the bytes it produced. */
  oneCellUs: number;
  oneCellBytes: number;
  /** Mean microseconds to diff a frame where every cell changed, and the bytes it produced. */
  allChangedUs: number;
  allChangedBytes: number;
}

export interface KeystrokeBenchmark {
  /** Mean microseconds for one echo: read the dirty pane row, compose, diff, hand bytes to write. */
  renderUs: number;
  /** Median bytes written for one echoed character. */
  bytes: number;
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
  return { cols, rows, oneCellUs, oneCellBytes, allChangedUs, allChangedBytes };
}

/** Times the compositor's whole path for a keystroke echo into a full 160×45 pane. */
export async function benchmarkKeystroke(iterations = 200): Promise<KeystrokeBenchmark> {
  const { cols, rows } = BENCH_SIZE;
  const terminal = new Terminal({ cols, rows, allowProposedApi: true });
  const write = (s: string): Promise<void> => new Promise((resolve) => terminal.write(s, resolve));
  for (let y = 0; y < rows - 1; y++) await write(`\x1b[3${y % 8}m${'lorem ipsum '.repeat(13).slice(0, cols)}\r\n`);
  await write('\x1b[0m$ ');
  const sizes: number[] = [];
  const compositor = new Compositor({ cols, rows, write: (s) => { sizes.push(Buffer.byteLength(s)); }, scheduler: new ManualScheduler() });
  compositor.setPaneLayers([{ id: 'p', terminal, rect: { x: 0, y: 0, cols, rows }, focused: true }]);
  compositor.renderNow();
  let total = 0;
  for (let i = 0; i < iterations; i++) {
    await write(i % 100 === 99 ? '\r\x1b[K$ ' : 'x');
    const start = performance.now();
    compositor.markPaneDirty('p', [terminal.buffer.active.cursorY]);
    compositor.renderNow();
    total += performance.now() - start;
  }
  compositor.dispose();
  terminal.dispose();
  // Median: every hundredth keystroke clears the line, which is not an echo.
  const echoes = sizes.slice(1).sort((a, b) => a - b);
  return { renderUs: (total * 1000) / iterations, bytes: echoes[echoes.length >> 1] ?? 0 };
}
