/**
 * The compositor's keystroke-echo path timed end to end with a real xterm behind the pane
 * (`npm run bench`, bench/compositor.mjs): re-read the dirty pane row through the pane's
 * `PaneScreen`, compose, diff, hand the bytes to write. The pure diff bench is bench/src/diff-bench.ts.
 */
import xterm from '@xterm/headless';
import { BENCH_SIZE } from './diff-bench.js';
import { Compositor } from '../../src/screen/compositor.js';
import { ManualScheduler } from '../../src/screen/frame-scheduler.js';
import { XtermScreen } from '../../src/terminal/xterm-screen.js';

const { Terminal } = xterm;

export interface KeystrokeBenchmark {
  /** Mean microseconds for one echo: read the dirty pane row, compose, diff, hand bytes to write. */
  renderUs: number;
  /** Median bytes written for one echoed character. */
  bytes: number;
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
  compositor.setPaneLayers([{ id: 'p', screen: new XtermScreen(terminal), rect: { x: 0, y: 0, cols, rows }, focused: true }]);
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
