/**
 * Copy-mode search benchmark (for `npm run bench`, bench/copy-search.mjs): panes with a full
 * 10,000-line scrollback, a search started in every one at once, timed to the first match
 * drawn highlighted in the copy view, to the end of the search, and by the longest stretch the
 * event loop was held (what a keystroke or another client would wait). The baseline is bare
 * node: RE2 over the same lines as plain strings in one blocking loop.
 */
import { compilePaneScanner } from '../../src/terminal/pane-regex.js';
import { CellGrid } from '../../src/screen/cell-grid.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { applySearch, copyKey, enterCopyMode, type CopyState } from '../../src/tui/copy-mode/copy-mode.js';
import { SearchQueue, startSearch } from '../../src/tui/copy-mode/copy-search.js';
import { terminalSource } from '../../src/tui/copy-mode/copy-source.js';
import { renderCopyView } from '../../src/tui/copy-mode/copy-view.js';

export interface CopySearchBenchmark {
  panes: number;
  lines: number;
  /** Per pane, ms from Enter on the pattern to the first match drawn highlighted. */
  firstMatchMs: number[];
  /** ms until every pane's search had found every match. */
  allDoneMs: number;
  /** Gaps between event-loop turns while searching (what a keystroke could wait), ms. */
  stallsMs: number[];
  /** The same gaps over as long with nothing running: the machine's own noise. */
  idleStallsMs: number[];
  matchesPerPane: number;
  /** Bare node: RE2 over the same text, already as strings, in one blocking loop, ms. */
  bareNodeMs: number;
}

const VIEW = { cols: 120, rows: 40 } as const;

/** A log-like line; the needle only in the oldest lines, so a backward search from the bottom scans everything first. */
function line(i: number): string {
  const needle = i < 3 ? ' NEEDLE-found' : '';
  return `2026-12-01T00:${String(i % 60).padStart(2, '0')}:00Z info  worker-${i % 17} handled request ${i} in ${(i * 7) % 311} ms${needle}`;
}

export async function benchmarkCopySearch(panes = 20, lines = 10_000): Promise<CopySearchBenchmark> {
  const terminals: PaneTerminal[] = [];
  const text = Array.from({ length: lines }, (_, i) => line(i));
  const output = text.join('\r\n') + '\r\n';
  for (let p = 0; p < panes; p++) {
    const terminal = new PaneTerminal({ cols: VIEW.cols, rows: VIEW.rows, scrollback: lines });
    await terminal.write(output);
    terminals.push(terminal);
  }
  // Bare node: the same lines and pattern, one loop, nothing else may run meanwhile.
  const bareStart = performance.now();
  const scanner = compilePaneScanner('NEEDLE');
  let bareMatches = 0;
  for (let p = 0; p < panes; p++) {
    for (const l of text) scanner.forEachMatch(l, () => bareMatches++);
  }
  const bareNodeMs = performance.now() - bareStart;

  const stallsMs: number[] = [];
  let last = performance.now();
  let watching = true;
  const watch = (): void => {
    const now = performance.now();
    stallsMs.push(now - last);
    last = now;
    if (watching) setImmediate(watch);
  };
  setImmediate(watch);

  const queue = new SearchQueue();
  const started = performance.now();
  const firstMatchMs: number[] = [];
  let matchesPerPane = 0;
  await Promise.all(
    terminals.map(
      (terminal) =>
        new Promise<void>((resolve) => {
          const source = terminalSource(terminal);
          const buffer = terminal.scrollback;
          let state: CopyState = enterCopyMode(source, VIEW, { line: buffer.baseY + buffer.cursorY, col: 0 }, { top: buffer.baseY });
          for (const key of ['?', ...'NEEDLE', '\r']) state = copyKey(state, key, source).state;
          const grid = new CellGrid(VIEW.cols, VIEW.rows);
          startSearch(queue, { source, pattern: 'NEEDLE', backward: true, from: state.cursor }, (progress) => {
            state = applySearch(state, 'NEEDLE', progress).state;
            if (state.search && state.search.current >= 0 && firstMatchMs.length < panes && !grid.charAt(0, 0).includes('#')) {
              renderCopyView(state, source, grid);
              firstMatchMs.push(performance.now() - started);
              grid.set(0, 0, { char: '#' }); // drawn once per pane
            }
            if (progress.complete) {
              matchesPerPane = progress.matches.length;
              resolve();
            }
          });
        }),
    ),
  );
  const allDoneMs = performance.now() - started;
  watching = false;
  const idleStallsMs = await idleGaps(allDoneMs);
  for (const terminal of terminals) terminal.dispose();
  if (bareMatches !== matchesPerPane * panes) throw new Error(`bare node found ${bareMatches} matches, copy mode ${matchesPerPane * panes}`);
  return { panes, lines, firstMatchMs, allDoneMs, stallsMs, idleStallsMs, matchesPerPane, bareNodeMs };
}

/** Event-loop gaps over `ms` with nothing else to do. */
function idleGaps(ms: number): Promise<number[]> {
  const gaps: number[] = [];
  const end = performance.now() + ms;
  let last = performance.now();
  return new Promise((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      if (now < end) setImmediate(tick);
      else resolve(gaps);
    };
    setImmediate(tick);
  });
}
