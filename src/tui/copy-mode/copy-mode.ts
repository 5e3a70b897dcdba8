/**
 * Copy mode as a pure state machine: (state, key) → (new state, actions). The state is a
 * cursor and a view over a frozen source, an optional selection, search prompt and search
 * results; actions are what the TUI must do outside (leave the mode, copy text, start a
 * search, show a message). Every key is consumed — nothing typed in copy mode reaches the
 * pane, including the keys that leave it.
 *
 * Keys (vi and emacs at once, as far as they do not collide; ctrl+b stays the prefix):
 * h j k l / arrows / ctrl+n ctrl+p move; w b e / alt+f alt+b words; 0 ^ $ / Home End
 * ctrl+a ctrl+e line; g G / alt+< alt+> top and bottom; H M L view top, middle, bottom;
 * ctrl+u ctrl+d half pages; PageUp PageDown ctrl+f alt+v ctrl+v pages; / ? (ctrl+s ctrl+r)
 * search, n N next/previous; v (space, ctrl+space) select, V select lines; y Enter alt+w
 * ctrl+w copy and leave; q Esc ctrl+c ctrl+g leave.
 */
import type { CopySource } from './copy-source.js';
import { MatchList } from './copy-search.js';
import { comparePos, ordered, type Pos } from './positions.js';

/** The read side of a source that movement and copying need. */
export type CopyText = Pick<CopySource, 'lineCount' | 'cells' | 'wrapped'>;

export interface CopySearch {
  pattern: string;
  backward: boolean;
  matches: MatchList;
  /** Index of the match the cursor is on (-1: none yet). */
  current: number;
  complete: boolean;
  truncated: boolean;
}

export interface CopyState {
  rows: number;
  cols: number;
  lineCount: number;
  /** First line shown. */
  top: number;
  cursor: Pos;
  /** The column vertical moves aim for (vi's "curswant"). */
  wantCol: number;
  selection: { anchor: Pos; lines: boolean } | null;
  /** A search being typed. */
  prompt: { backward: boolean; text: string } | null;
  search: CopySearch | null;
  /** Entered with the mouse wheel: leaves again when scrolled back to the bottom. */
  byWheel: boolean;
  /** Where a mouse press landed, until the drag that may follow. */
  pressAt: Pos | null;
}

export type CopyAction =
  | { kind: 'exit' }
  | { kind: 'copy'; text: string }
  | { kind: 'search'; pattern: string; backward: boolean; from: Pos }
  | { kind: 'message'; text: string; error?: boolean };

export interface CopyResult {
  state: CopyState;
  actions: CopyAction[];
}

/** A new copy mode with the cursor at `cursor` (the pane's cursor) and the view ending at `bottom`. */
export function enterCopyMode(text: CopyText, view: { rows: number; cols: number }, cursor: Pos, options: { byWheel?: boolean; top?: number } = {}): CopyState {
  const lineCount = Math.max(1, text.lineCount);
  const line = clamp(cursor.line, 0, lineCount - 1);
  const state: CopyState = {
    rows: Math.max(1, view.rows),
    cols: Math.max(1, view.cols),
    lineCount,
    top: 0,
    cursor: { line, col: clamp(cursor.col, 0, view.cols - 1) },
    wantCol: cursor.col,
    selection: null,
    prompt: null,
    search: null,
    byWheel: options.byWheel ?? false,
    pressAt: null,
  };
  state.top = clamp(options.top ?? line - state.rows + 1, 0, maxTop(state));
  return follow(state);
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.max(lo, Math.min(hi, n));
}

function maxTop(s: Pick<CopyState, 'lineCount' | 'rows'>): number {
  return Math.max(0, s.lineCount - s.rows);
}

/** Scrolls the view just enough to show the cursor. */
function follow(s: CopyState): CopyState {
  let top = s.top;
  if (s.cursor.line < top) top = s.cursor.line;
  if (s.cursor.line >= top + s.rows) top = s.cursor.line - s.rows + 1;
  top = clamp(top, 0, maxTop(s));
  return top === s.top ? s : { ...s, top };
}

function moveTo(s: CopyState, pos: Pos, keepWant = false): CopyState {
  const line = clamp(pos.line, 0, s.lineCount - 1);
  const col = clamp(pos.col, 0, s.cols - 1);
  return follow({ ...s, cursor: { line, col }, wantCol: keepWant ? s.wantCol : col });
}

/** Vertical move keeping the wanted column, landing on a character's first cell. */
function moveLines(s: CopyState, text: CopyText, delta: number): CopyState {
  const line = clamp(s.cursor.line + delta, 0, s.lineCount - 1);
  return moveTo(s, { line, col: leadCell(text.cells(line), s.wantCol) }, true);
}

/** The first cell of the character covering `col` (a wide character's right half → its left). */
function leadCell(cells: readonly string[], col: number): number {
  let c = col;
  while (c > 0 && cells[c] === '') c--;
  return c;
}

/** Last cell with something on it (0 on an empty line). */
function lineEnd(cells: readonly string[]): number {
  let c = cells.length - 1;
  while (c > 0 && (cells[c] === ' ' || cells[c] === '')) c--;
  return Math.max(0, leadCell(cells, c));
}

function firstNonBlank(cells: readonly string[]): number {
  const c = cells.findIndex((ch) => ch !== ' ' && ch !== '');
  return c < 0 ? 0 : c;
}

/** Character classes for word motions: blank, word (letters, digits, _), other punctuation. */
function charClass(ch: string | undefined): 0 | 1 | 2 {
  if (ch === undefined || ch === ' ' || ch === '') return 0;
  return /^[\p{L}\p{N}\p{M}_]/u.test(ch) ? 1 : 2;
}

/**
 * The cells after (or before) `from`, in reading order, with their word class. Wide
 * characters' right halves are skipped; a hard line break reads as one blank (so a word
 * never runs across lines), a soft wrap as nothing.
 */
function* walk(text: CopyText, from: Pos, forward: boolean): Generator<{ pos: Pos; cls: 0 | 1 | 2 }> {
  let { line, col } = from;
  let cells = text.cells(line);
  for (;;) {
    col += forward ? 1 : -1;
    if (forward && col >= cells.length) {
      if (line + 1 >= text.lineCount) return;
      line++;
      cells = text.cells(line);
      col = -1;
      if (!text.wrapped(line)) yield { pos: { line, col: 0 }, cls: 0 };
      continue;
    }
    if (!forward && col < 0) {
      if (line === 0) return;
      const soft = text.wrapped(line);
      line--;
      cells = text.cells(line);
      col = cells.length;
      if (!soft) yield { pos: { line, col: Math.max(0, cells.length - 1) }, cls: 0 };
      continue;
    }
    if (cells[col] === '') continue;
    yield { pos: { line, col }, cls: charClass(cells[col]) };
  }
}

/** vi `w`: start of the next word. */
function nextWordStart(text: CopyText, from: Pos): Pos {
  const startClass = charClass(text.cells(from.line)[from.col]);
  let leaving = startClass !== 0;
  for (const { pos, cls } of walk(text, from, true)) {
    if (leaving && cls === startClass) continue;
    leaving = false;
    if (cls !== 0) return pos;
  }
  return lastCell(text);
}

/** vi `e` (forward) and `b` (backward): the far end of this or the next word in that direction. */
function wordEdge(text: CopyText, from: Pos, forward: boolean): Pos {
  let cls = 0;
  let edge: Pos | null = null;
  for (const token of walk(text, from, forward)) {
    if (cls === 0) {
      if (token.cls === 0) continue;
      cls = token.cls;
      edge = token.pos;
      continue;
    }
    if (token.cls !== cls) break;
    edge = token.pos;
  }
  return edge ?? (forward ? lastCell(text) : { line: 0, col: 0 });
}

function lastCell(text: CopyText): Pos {
  const line = Math.max(0, text.lineCount - 1);
  return { line, col: lineEnd(text.cells(line)) };
}

/** The selected text: rows joined by newlines, except where a row continues on the next by soft wrap. */
export function selectedText(s: CopyState, text: CopyText): string {
  if (!s.selection) return '';
  const [a, b] = ordered(s.selection.anchor, s.cursor);
  const lines = s.selection.lines;
  let out = '';
  for (let line = a.line; line <= b.line; line++) {
    const cells = text.cells(line);
    const from = lines || line > a.line ? 0 : a.col;
    // Inclusive of the cell under the cursor, and of a wide character's right half.
    let to = lines || line < b.line ? cells.length : b.col + 1;
    while (to < cells.length && cells[to] === '') to++;
    const part = cells.slice(from, to).join('');
    const continues = line < b.line && text.wrapped(line + 1);
    out += continues ? part : part.replace(/ +$/u, '');
    if (line < b.line && !continues) out += '\n';
  }
  return out;
}

/** Keys as the outer terminal sends them. */
const KEY = {
  left: ['h', '\x1b[D', '\x1bOD'],
  right: ['l', '\x1b[C', '\x1bOC'],
  down: ['j', '\x1b[B', '\x1bOB', '\x0e'],
  up: ['k', '\x1b[A', '\x1bOA', '\x10'],
  wordNext: ['w', '\x1bf'],
  wordPrev: ['b', '\x1bb'],
  wordEnd: ['e'],
  lineStart: ['0', '\x01', '\x1b[H', '\x1bOH', '\x1b[1~'],
  firstNonBlank: ['^'],
  lineEnd: ['$', '\x05', '\x1b[F', '\x1bOF', '\x1b[4~'],
  top: ['g', '\x1b<'],
  bottom: ['G', '\x1b>'],
  viewTop: ['H'],
  viewMiddle: ['M'],
  viewBottom: ['L'],
  halfUp: ['\x15'],
  halfDown: ['\x04'],
  pageUp: ['\x1b[5~', '\x1bv'],
  pageDown: ['\x1b[6~', '\x06', '\x16'],
  searchForward: ['/', '\x13'],
  searchBackward: ['?', '\x12'],
  searchNext: ['n'],
  searchPrev: ['N'],
  select: ['v', ' ', '\x00'],
  selectLines: ['V'],
  copy: ['y', '\r', '\x1bw', '\x17'],
  exit: ['q', '\x1b', '\x03', '\x07'],
} as const;

type KeyName = keyof typeof KEY;
const KEY_NAMES = new Map<string, KeyName>();
for (const [name, keys] of Object.entries(KEY) as [KeyName, readonly string[]][]) for (const k of keys) KEY_NAMES.set(k, name);

const done = (state: CopyState, ...actions: CopyAction[]): CopyResult => ({ state, actions });

/** Handles one key (a whole key from `splitFirstKey`). */
export function copyKey(s: CopyState, key: string, text: CopyText): CopyResult {
  if (s.prompt) return promptKey(s, key);
  const name = KEY_NAMES.get(key);
  if (name === undefined) {
    // Esc and a key typed fast after it arrive together as "alt+key": that was Esc, then the key.
    if (key.length === 2 && key[0] === '\x1b') return done(s, { kind: 'exit' });
    return done(s);
  }
  const c = s.cursor;
  switch (name) {
    case 'left':
      return done(moveTo(s, { line: c.line, col: leadCell(text.cells(c.line), Math.max(0, c.col - 1)) }));
    case 'right': {
      const cells = text.cells(c.line);
      let col = c.col + 1;
      while (col < cells.length && cells[col] === '') col++;
      return done(col < Math.max(1, cells.length) ? moveTo(s, { line: c.line, col }) : s);
    }
    case 'down':
      return done(moveLines(s, text, 1));
    case 'up':
      return done(moveLines(s, text, -1));
    case 'wordNext':
      return done(moveTo(s, nextWordStart(text, c)));
    case 'wordPrev':
      return done(moveTo(s, wordEdge(text, c, false)));
    case 'wordEnd':
      return done(moveTo(s, wordEdge(text, c, true)));
    case 'lineStart':
      return done(moveTo(s, { line: c.line, col: 0 }));
    case 'firstNonBlank':
      return done(moveTo(s, { line: c.line, col: firstNonBlank(text.cells(c.line)) }));
    case 'lineEnd':
      return done(moveTo(s, { line: c.line, col: lineEnd(text.cells(c.line)) }));
    case 'top':
      return done(moveTo(s, { line: 0, col: 0 }));
    case 'bottom':
      return done(moveTo(s, lastCell(text)));
    case 'viewTop':
    case 'viewMiddle':
    case 'viewBottom': {
      const shown = Math.min(s.rows, s.lineCount - s.top);
      const offset = name === 'viewTop' ? 0 : name === 'viewMiddle' ? Math.floor((shown - 1) / 2) : shown - 1;
      const line = s.top + offset;
      return done(moveTo(s, { line, col: firstNonBlank(text.cells(line)) }));
    }
    case 'halfUp':
    case 'halfDown':
    case 'pageUp':
    case 'pageDown': {
      const half = Math.max(1, Math.floor(s.rows / 2));
      const page = Math.max(1, s.rows - 1);
      const delta = { halfUp: -half, halfDown: half, pageUp: -page, pageDown: page }[name];
      // The view scrolls by the same amount as the cursor, as in vi and tmux.
      const moved = moveLines({ ...s, top: clamp(s.top + delta, 0, maxTop(s)) }, text, delta);
      return done(moved);
    }
    case 'searchForward':
    case 'searchBackward':
      return done({ ...s, prompt: { backward: name === 'searchBackward', text: '' } });
    case 'searchNext':
    case 'searchPrev':
      return searchStep(s, name === 'searchPrev');
    case 'select':
      return done({ ...s, selection: s.selection && !s.selection.lines ? null : { anchor: s.selection?.anchor ?? c, lines: false } });
    case 'selectLines':
      return done({ ...s, selection: s.selection?.lines ? null : { anchor: s.selection?.anchor ?? c, lines: true } });
    case 'copy': {
      // With nothing selected, y copies the cursor's line (vi's yy); Enter just leaves.
      if (!s.selection && key === '\r') return done(s, { kind: 'exit' });
      const target = s.selection ? s : { ...s, selection: { anchor: c, lines: true } };
      return done(s, { kind: 'copy', text: selectedText(target, text) }, { kind: 'exit' });
    }
    case 'exit':
      return done(s, { kind: 'exit' });
  }
}

/** Typing a search pattern: printable text, backspace, ctrl+u; Enter searches, Esc cancels. */
function promptKey(s: CopyState, key: string): CopyResult {
  const prompt = s.prompt!;
  if (key === '\r') {
    const pattern = prompt.text !== '' ? prompt.text : s.search?.pattern ?? '';
    const state = { ...s, prompt: null };
    if (pattern === '') return done(state);
    return done(
      { ...state, search: { pattern, backward: prompt.backward, matches: MatchList.empty, current: -1, complete: false, truncated: false } },
      { kind: 'search', pattern, backward: prompt.backward, from: s.cursor },
    );
  }
  if (key === '\x1b' || key === '\x03' || key === '\x07') return done({ ...s, prompt: null });
  if (key === '\x7f' || key === '\b') {
    if (prompt.text === '') return done({ ...s, prompt: null });
    return done({ ...s, prompt: { ...prompt, text: [...prompt.text].slice(0, -1).join('') } });
  }
  if (key === '\x15') return done({ ...s, prompt: { ...prompt, text: '' } });
  if (key.startsWith('\x1b') || key < ' ') return done(s);
  return done({ ...s, prompt: { ...prompt, text: prompt.text + key } });
}

/** Pasted text goes into the search prompt (one line); elsewhere in copy mode it is dropped. */
export function copyPaste(s: CopyState, pasted: string): CopyState {
  if (!s.prompt) return s;
  return { ...s, prompt: { ...s.prompt, text: s.prompt.text + pasted.replace(/[\x00-\x1f\x7f]+/g, ' ') } };
}

/** n / N: the next match in the search's direction (N: the other way), wrapping around. */
function searchStep(s: CopyState, reverse: boolean): CopyResult {
  const search = s.search;
  if (!search) return done(s, { kind: 'message', text: 'no search yet: / or ? starts one' });
  if (search.matches.length === 0) {
    return done(s, { kind: 'message', text: search.complete ? `no match for ${JSON.stringify(search.pattern)}` : 'still searching…' });
  }
  const backward = search.backward !== reverse;
  const index = search.matches.next(s.cursor, backward);
  const moved = moveTo(s, search.matches.start(index));
  return done({ ...moved, search: { ...search, current: index } });
}

/** Results from the search the state asked for (`pattern` guards against a stale search). */
export function applySearch(
  s: CopyState,
  pattern: string,
  progress: { matches: MatchList; first: number; complete: boolean; truncated: boolean; literal: boolean },
): CopyResult {
  const search = s.search;
  if (!search || search.pattern !== pattern) return done(s);
  // Indices change as more matches come in: the current match keeps its place in the text.
  const current = search.current >= 0 ? progress.matches.at(search.matches.start(search.current)) : -1;
  let state: CopyState = { ...s, search: { ...search, current, matches: progress.matches, complete: progress.complete, truncated: progress.truncated } };
  const actions: CopyAction[] = [];
  if (search.current < 0 && progress.first >= 0) {
    state = moveTo(state, progress.matches.start(progress.first));
    state = { ...state, search: { ...state.search!, current: progress.first } };
  }
  if (progress.complete) {
    if (progress.matches.length === 0) actions.push({ kind: 'message', text: `no match for ${JSON.stringify(pattern)}`, error: true });
    else if (progress.literal) actions.push({ kind: 'message', text: `not a regex, searched as text: ${JSON.stringify(pattern)}` });
  }
  return { state, actions };
}

/** Mouse wheel: scrolls the view (the cursor stays on screen); a wheel-entered mode leaves at the bottom. */
export function copyScroll(s: CopyState, lines: number, text: CopyText): CopyResult {
  const top = clamp(s.top + lines, 0, maxTop(s));
  if (lines > 0 && s.byWheel && !s.selection && !s.prompt && top === maxTop(s) && s.top === top) return done(s, { kind: 'exit' });
  const line = clamp(s.cursor.line, top, top + s.rows - 1);
  const state = { ...s, top };
  if (line === s.cursor.line) return done(state);
  return done({ ...state, cursor: { line, col: leadCell(text.cells(line), s.wantCol) } });
}

/** Mouse press, drag and release at a view cell: press places the cursor, drag selects, release copies. */
export function copyPointer(s: CopyState, kind: 'press' | 'drag' | 'release', at: { row: number; col: number }, text: CopyText): CopyResult {
  const line = clamp(s.top + at.row, 0, s.lineCount - 1);
  const pos = { line, col: leadCell(text.cells(line), clamp(at.col, 0, s.cols - 1)) };
  switch (kind) {
    case 'press':
      return done({ ...moveTo(s, pos), selection: null, pressAt: pos });
    case 'drag': {
      const anchor = s.selection?.anchor ?? s.pressAt ?? s.cursor;
      return done({ ...moveTo(s, pos), selection: { anchor, lines: false }, pressAt: null });
    }
    case 'release':
      if (!s.selection || comparePos(s.selection.anchor, s.cursor) === 0) return done({ ...s, pressAt: null });
      return done({ ...s, pressAt: null }, { kind: 'copy', text: selectedText(s, text) }, { kind: 'exit' });
  }
}

/** The view got a new size (pane resized or zoomed). */
export function resizeCopyView(s: CopyState, rows: number, cols: number): CopyState {
  if (rows === s.rows && cols === s.cols) return s;
  const state = { ...s, rows: Math.max(1, rows), cols: Math.max(1, cols) };
  return moveTo({ ...state, top: clamp(state.top, 0, maxTop(state)) }, state.cursor, true);
}

/** `[line/total]` and the search's tally, for the view's corner. */
export function positionLabel(s: CopyState): string {
  let label = `[${s.cursor.line + 1}/${s.lineCount}]`;
  const search = s.search;
  if (search) {
    const tally = search.matches.length === 0
      ? (search.complete ? 'no match' : 'searching…')
      : `${search.current >= 0 ? search.current + 1 : '-'}/${search.matches.length}${search.truncated ? '+' : ''}${search.complete ? '' : '…'}`;
    label = `${search.backward ? '?' : '/'}${search.pattern} ${tally} ${label}`;
  }
  return label;
}
