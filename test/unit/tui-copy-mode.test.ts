/**
 * Copy mode's state machine, its search and its view, on plain sources: movement (vi and
 * emacs), selection and the copied text, the search prompt, n/N, mouse, and what is drawn.
 */
import { describe, expect, it } from 'vitest';
import { CellGrid } from '../../src/screen/cell-grid.js';
import { ATTR, widthOf } from '../../src/screen/cell.js';
import {
  applySearch,
  copyKey,
  copyPaste,
  copyPointer,
  copyScroll,
  enterCopyMode,
  positionLabel,
  selectedText,
  type CopyAction,
  type CopyState,
} from '../../src/tui/copy-mode/copy-mode.js';
import { MatchList, SearchQueue, startSearch, type SearchProgress } from '../../src/tui/copy-mode/copy-search.js';
import { textSource, type CopySource } from '../../src/tui/copy-mode/copy-source.js';
import { COPY_STYLE, renderCopyView } from '../../src/tui/copy-mode/copy-view.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { terminalSource } from '../../src/tui/copy-mode/copy-source.js';

const LINES = ['first line here', 'foo.bar(baz) qux', '', '  indented words', '中文 wide', 'last'];

/** Presses keys in order; returns the final state and every action. */
function press(state: CopyState, source: CopySource, ...keys: string[]): { state: CopyState; actions: CopyAction[] } {
  const actions: CopyAction[] = [];
  let s = state;
  for (const key of keys) {
    const r = copyKey(s, key, source);
    s = r.state;
    actions.push(...r.actions);
  }
  return { state: s, actions };
}

function start(lines = LINES, view = { rows: 4, cols: 20 }, cursor = { line: lines.length - 1, col: 0 }) {
  const source = textSource(lines);
  return { source, state: enterCopyMode(source, view, cursor) };
}

/** Runs a search to completion. */
function search(source: CopySource, pattern: string, backward: boolean, from = { line: 0, col: 0 }): Promise<SearchProgress[]> {
  return new Promise((resolve) => {
    const seen: SearchProgress[] = [];
    startSearch(new SearchQueue(), { source, pattern, backward, from }, (p) => {
      seen.push(p);
      if (p.complete) resolve(seen);
    });
  });
}

describe('copy mode movement', () => {
  it('starts at the given cursor with the view showing it', () => {
    const { state } = start();
    expect(state.cursor).toEqual({ line: 5, col: 0 });
    expect(state.top).toBe(2);
    expect(positionLabel(state)).toBe('[6/6]');
  });

  it('moves with vi keys, arrows and emacs keys alike', () => {
    const { source, state } = start();
    expect(press(state, source, 'k', 'k').state.cursor.line).toBe(3);
    expect(press(state, source, '\x1b[A', '\x1bOA').state.cursor.line).toBe(3);
    expect(press(state, source, '\x10', '\x10').state.cursor.line).toBe(3);
    expect(press(state, source, 'g').state.cursor).toEqual({ line: 0, col: 0 });
    expect(press(state, source, '\x1b<').state.cursor).toEqual({ line: 0, col: 0 });
    const top = press(state, source, 'g').state;
    expect(top.top).toBe(0);
    expect(press(top, source, 'G').state.cursor).toEqual({ line: 5, col: 3 });
    expect(press(top, source, '$').state.cursor.col).toBe(14);
    expect(press(top, source, '\x05').state.cursor.col).toBe(14);
    expect(press(top, source, '$', '0').state.cursor.col).toBe(0);
    expect(press(top, source, 'l', 'l', 'h').state.cursor.col).toBe(1);
    expect(press(top, source, 'j', 'j', 'j', '^').state.cursor).toEqual({ line: 3, col: 2 });
  });

  it('moves by words across punctuation and line breaks (w b e)', () => {
    const { source, state } = start();
    const top = press(state, source, 'g').state;
    const w = (s: CopyState, n: number) => press(s, source, ...Array(n).fill('w')).state.cursor;
    expect(w(top, 1)).toEqual({ line: 0, col: 6 });
    expect(w(top, 3)).toEqual({ line: 1, col: 0 });
    expect(w(top, 4)).toEqual({ line: 1, col: 3 }); // "." is a word of its own
    expect(w(top, 5)).toEqual({ line: 1, col: 4 });
    expect(press(top, source, 'e').state.cursor).toEqual({ line: 0, col: 4 });
    const onQux = press(top, source, 'j', '$').state;
    expect(press(onQux, source, 'b').state.cursor).toEqual({ line: 1, col: 13 });
    expect(press(onQux, source, 'b', 'b').state.cursor).toEqual({ line: 1, col: 11 });
    expect(press(onQux, source, '\x1bb').state.cursor).toEqual({ line: 1, col: 13 });
  });

  it('keeps the column over short lines (the cursor may sit past the text, as in tmux) and lands on a wide character\u2019s first cell', () => {
    const { source, state } = start();
    const s = press(state, source, 'k', 'k', 'k', 'k', '$').state; // line 1, col 15
    expect(s.cursor).toEqual({ line: 1, col: 15 });
    expect(press(s, source, 'j').state.cursor).toEqual({ line: 2, col: 15 });
    expect(press(s, source, 'j', 'j').state.cursor).toEqual({ line: 3, col: 15 });
    const wide = press(state, source, 'k', 'l').state; // "中文": cells 0-1, 2-3
    expect(wide.cursor).toEqual({ line: 4, col: 2 });
    expect(press(wide, source, 'l').state.cursor).toEqual({ line: 4, col: 4 });
  });

  it('pages and half-pages, scrolling the view with the cursor', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}`);
    const { source, state } = start(lines, { rows: 10, cols: 20 });
    const up = press(state, source, '\x15').state;
    expect(up.cursor.line).toBe(94);
    expect(up.top).toBe(85);
    expect(press(state, source, '\x1b[5~').state.cursor.line).toBe(90);
    expect(press(state, source, '\x1b[5~', '\x1b[6~').state.cursor.line).toBe(99);
    expect(press(state, source, '\x1b[5~', '\x04').state.cursor.line).toBe(95);
    expect(press(state, source, 'H').state.cursor.line).toBe(90);
    expect(press(state, source, 'M').state.cursor.line).toBe(94);
  });
});

describe('copy mode selection and copy', () => {
  it('copies a character selection inclusive of the cursor, then leaves', () => {
    const { source, state } = start();
    const { actions } = press(state, source, 'g', 'w', 'v', 'w', 'e', 'y');
    expect(actions).toEqual([{ kind: 'copy', text: 'line here' }, { kind: 'exit' }]);
  });

  it('copies whole lines with V, across an empty line, trailing blanks dropped', () => {
    const { source, state } = start();
    const { actions } = press(state, source, 'g', 'j', 'V', 'j', 'j', '\r');
    expect(actions[0]).toEqual({ kind: 'copy', text: 'foo.bar(baz) qux\n\n  indented words' });
  });

  it('y without a selection copies the cursor line; Enter without one just leaves', () => {
    const { source, state } = start();
    expect(press(state, source, 'k', 'y').actions[0]).toEqual({ kind: 'copy', text: '中文 wide' });
    expect(press(state, source, '\r').actions).toEqual([{ kind: 'exit' }]);
  });

  it('joins soft-wrapped rows without a newline when copying', () => {
    const pane = new PaneTerminal({ cols: 10, rows: 4 });
    void pane.write('abcdefghijKLMNO\r\nnext');
    const source = terminalSource(pane);
    const state = enterCopyMode(source, { rows: 4, cols: 10 }, { line: 0, col: 0 });
    expect(source.wrapped(1)).toBe(true);
    expect(press(state, source, 'v', 'j', 'j', '$', 'y').actions[0]).toEqual({ kind: 'copy', text: 'abcdefghijKLMNO\nnext' });
    pane.dispose();
  });

  it('leaves on q, Esc, ctrl+c, and on Esc typed together with the next key', () => {
    const { source, state } = start();
    for (const key of ['q', '\x1b', '\x03', '\x1bq']) expect(press(state, source, key).actions).toEqual([{ kind: 'exit' }]);
    // Any other key is consumed and does nothing.
    expect(press(state, source, 'x', 'Z', '\x1b[15~').actions).toEqual([]);
  });

  it('selects with a mouse drag and copies on release', () => {
    const { source, state } = start();
    let s = copyPointer(state, 'press', { row: 1, col: 2 }, source).state; // top is 2 → line 3
    s = copyPointer(s, 'drag', { row: 1, col: 9 }, source).state;
    const done = copyPointer(s, 'release', { row: 1, col: 9 }, source);
    expect(done.actions).toEqual([{ kind: 'copy', text: 'indented' }, { kind: 'exit' }]);
    // A click without a drag copies nothing.
    const click = copyPointer(copyPointer(state, 'press', { row: 0, col: 0 }, source).state, 'release', { row: 0, col: 0 }, source);
    expect(click.actions).toEqual([]);
  });

  it('scrolls with the wheel and leaves a wheel-entered mode at the bottom', () => {
    const lines = Array.from({ length: 50 }, (_, i) => `l${i}`);
    const source = textSource(lines);
    const s = enterCopyMode(source, { rows: 10, cols: 10 }, { line: 49, col: 0 }, { byWheel: true });
    const up = copyScroll(s, -3, source).state;
    expect(up.top).toBe(37);
    expect(up.cursor.line).toBe(46);
    const down = copyScroll(up, 3, source).state;
    expect(down.top).toBe(40);
    expect(copyScroll(down, 3, source).actions).toEqual([{ kind: 'exit' }]);
  });
});

describe('copy mode search', () => {
  const lines = ['alpha', 'beta gamma', 'ALPHA again alpha', 'delta', 'alphabet'];

  it('finds every match (smartcase), in order, with cell columns', async () => {
    const source = textSource(lines);
    const progress = await search(source, 'alpha', false);
    const { matches } = progress.at(-1)!;
    const found = Array.from({ length: matches.length }, (_, i) => [matches.start(i), matches.end(i)]);
    expect(found).toEqual([
      [{ line: 0, col: 0 }, { line: 0, col: 5 }],
      [{ line: 2, col: 0 }, { line: 2, col: 5 }],
      [{ line: 2, col: 12 }, { line: 2, col: 17 }],
      [{ line: 4, col: 0 }, { line: 4, col: 5 }],
    ]);
    // A capital makes it case-sensitive.
    expect((await search(source, 'ALPHA', false)).at(-1)!.matches.length).toBe(1);
  });

  it('reports the first match after the cursor in the search direction, wrapping around', async () => {
    const source = textSource(lines);
    const forward = (await search(source, 'alpha', false, { line: 2, col: 0 })).at(-1)!;
    expect(forward.matches.start(forward.first)).toEqual({ line: 2, col: 12 });
    const backward = (await search(source, 'alpha', true, { line: 2, col: 0 })).at(-1)!;
    expect(backward.matches.start(backward.first)).toEqual({ line: 0, col: 0 });
    const wrap = (await search(source, 'alpha', false, { line: 4, col: 0 })).at(-1)!;
    expect(wrap.matches.start(wrap.first)).toEqual({ line: 0, col: 0 });
    const only = (await search(textSource(['x alpha x']), 'alpha', false, { line: 0, col: 4 })).at(-1)!;
    expect(only.matches.start(only.first)).toEqual({ line: 0, col: 2 });
  });

  it('finds a match that wraps across rows, and maps columns past wide characters', async () => {
    const pane = new PaneTerminal({ cols: 8, rows: 4 });
    void pane.write('1234needle\r\n中文needle');
    const source = terminalSource(pane);
    const { matches } = (await search(source, 'needle', false)).at(-1)!;
    expect([matches.start(0), matches.end(0)]).toEqual([{ line: 0, col: 4 }, { line: 1, col: 2 }]);
    expect([matches.start(1), matches.end(1)]).toEqual([{ line: 2, col: 4 }, { line: 3, col: 2 }]);
    pane.dispose();
  });

  it('takes a pattern that is not a valid regex as plain text and says so', async () => {
    const source = textSource(['call foo( now']);
    const last = (await search(source, 'foo(', false)).at(-1)!;
    expect(last.literal).toBe(true);
    expect(last.matches.length).toBe(1);
  });

  it('never holds the event loop for long on a big source', async () => {
    const lines = Array.from({ length: 60_000 }, (_, i) => `row ${i} some text to scan ${i % 997 === 0 ? 'needle' : ''}`);
    const source = textSource(lines);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    const last = (await search(source, 'needle', true, { line: 59_999, col: 0 })).at(-1)!;
    clearInterval(timer);
    expect(last.matches.length).toBe(61);
    // Timers ran while it searched: it yielded between slices.
    expect(ticks).toBeGreaterThan(2);
  });

  it('drives the state: the prompt, Enter, results, n and N, and the label', () => {
    const source = textSource(lines);
    let { state, actions } = press(enterCopyMode(source, { rows: 5, cols: 20 }, { line: 4, col: 0 }), source, '?', 'a', 'l', 'x', '\x7f', 'p', 'h', 'a', '\r');
    expect(actions).toEqual([{ kind: 'search', pattern: 'alpha', backward: true, from: { line: 4, col: 0 } }]);
    expect(positionLabel(state)).toBe('?alpha searching… [5/5]');
    const matches = new MatchList(2, {
      startLine: Int32Array.from([0, 2]), startCol: Int32Array.from([0, 12]), endLine: Int32Array.from([0, 2]), endCol: Int32Array.from([5, 17]),
    });
    state = applySearch(state, 'alpha', { matches, first: 1, complete: true, truncated: false, literal: false }).state;
    expect(state.cursor).toEqual({ line: 2, col: 12 });
    expect(positionLabel(state)).toBe('?alpha 2/2 [3/5]');
    // n keeps the direction (backward), N reverses it; both wrap.
    expect(press(state, source, 'n').state.cursor).toEqual({ line: 0, col: 0 });
    expect(press(state, source, 'n', 'n').state.cursor).toEqual({ line: 2, col: 12 });
    expect(press(state, source, 'N').state.cursor).toEqual({ line: 0, col: 0 });
    // Later, fuller results keep the cursor's match current (its index moves).
    const more = new MatchList(3, {
      startLine: Int32Array.from([0, 1, 2]), startCol: Int32Array.from([0, 0, 12]), endLine: Int32Array.from([0, 1, 2]), endCol: Int32Array.from([5, 4, 17]),
    });
    expect(applySearch(state, 'alpha', { matches: more, first: 0, complete: true, truncated: false, literal: false }).state.search?.current).toBe(2);
    // A stale result (another pattern) changes nothing.
    expect(applySearch(state, 'beta', { matches: MatchList.empty, first: -1, complete: true, truncated: false, literal: false }).state).toBe(state);
    // Esc in the prompt cancels the prompt only; a paste goes into it without control characters.
    const prompt = press(state, source, '/').state;
    expect(copyPaste(prompt, 'a\nb').prompt?.text).toBe('a b');
    expect(press(prompt, source, '\x1b').state.prompt).toBeNull();
    expect(press(prompt, source, '\x1b').actions).toEqual([]);
  });
});

describe('copy mode view', () => {
  it('highlights every visible match, the current one apart, the selection and the cursor', () => {
    const source = textSource(['one two one', 'two one']);
    let state = enterCopyMode(source, { rows: 3, cols: 40 }, { line: 0, col: 0 });
    state = press(state, source, '/', 'o', 'n', 'e', '\r').state;
    const matches = new MatchList(3, {
      startLine: Int32Array.from([0, 0, 1]), startCol: Int32Array.from([0, 8, 4]), endLine: Int32Array.from([0, 0, 1]), endCol: Int32Array.from([3, 11, 7]),
    });
    state = applySearch(state, 'one', { matches, first: 1, complete: true, truncated: false, literal: false }).state;
    const grid = new CellGrid(40, 3);
    renderCopyView(state, source, grid);
    const bg = (x: number, y: number) => grid.get(x, y).bg;
    expect(bg(0, 0)).toBe(COPY_STYLE.match.bg);
    expect(bg(3, 0)).not.toBe(COPY_STYLE.match.bg);
    expect(bg(8, 0)).toBe(COPY_STYLE.current.bg);
    expect(bg(4, 1)).toBe(COPY_STYLE.match.bg);
    // The cursor is on the current match, drawn inverse.
    expect(grid.get(8, 0).attrs & ATTR.inverse).toBeTruthy();
    // The label sits in the top-right corner.
    expect(grid.toLines()[0]).toMatch(/\/one 2\/3 \[1\/2\]$/);
    // A selection is painted over everything else.
    const selected = press(state, source, 'v', 'l').state;
    renderCopyView(selected, source, grid);
    expect(bg(8, 0)).toBe(COPY_STYLE.selection.bg);
    expect(bg(9, 0)).toBe(COPY_STYLE.selection.bg);
    expect(bg(10, 0)).toBe(COPY_STYLE.current.bg);
  });

  it('draws wide characters whole and the search prompt on the bottom row', () => {
    const source = textSource(['A😀B|']);
    const state = press(enterCopyMode(source, { rows: 2, cols: 20 }, { line: 0, col: 0 }), source, '/', 'x').state;
    const grid = new CellGrid(20, 2);
    renderCopyView(state, source, grid);
    expect(grid.charAt(1, 0)).toBe('😀');
    expect(widthOf(grid.flags[grid.index(1, 0)]!)).toBe(2);
    expect(grid.charAt(3, 0)).toBe('B');
    expect(grid.toLines()[1]).toMatch(/^\/x/);
  });
});

describe('copy mode sources', () => {
  it('stay frozen while output continues and the scrollback trims its oldest rows', async () => {
    const pane = new PaneTerminal({ cols: 20, rows: 5, scrollback: 20 });
    await pane.write(Array.from({ length: 30 }, (_, i) => `old-${i}`).join('\r\n'));
    const source = terminalSource(pane);
    const frozen = Array.from({ length: source.lineCount }, (_, i) => source.text(i, true));
    expect(frozen.at(-1)).toBe('old-29');
    await pane.write('\r\n' + Array.from({ length: 8 }, (_, i) => `new-${i}`).join('\r\n'));
    expect(pane.trimmedLines).toBeGreaterThan(0);
    // Rows still in the buffer read as they did; rows trimmed meanwhile read blank; new rows are not part of it.
    const now = Array.from({ length: source.lineCount }, (_, i) => source.text(i, true));
    const trimmed = pane.trimmedLines - (30 - frozen.length);
    for (let i = 0; i < frozen.length; i++) expect(now[i]).toBe(i < trimmed ? '' : frozen[i]);
    expect(now.join()).not.toContain('new-');
    // The view draws the same: blank rows where trimmed rows were (row 0 holds the label).
    const grid = new CellGrid(20, 10);
    const view = enterCopyMode(source, { rows: 10, cols: 20 }, { line: 0, col: 0 });
    renderCopyView(view, source, grid);
    expect(grid.toLines().map((l) => l.trim()).slice(trimmed, 10)).toEqual(frozen.slice(trimmed, 10));
    expect(grid.toLines().slice(1, trimmed).every((l) => l.trim() === '')).toBe(true);
    pane.dispose();
  });
});

describe('selectedText', () => {
  it('is empty without a selection', () => {
    const { source, state } = start();
    expect(selectedText(state, source)).toBe('');
  });
});
