/**
 * Copy-mode search: every match of a pattern in a frozen source, found with RE2 (linear
 * time, so no pattern can stall the server) in time-sliced chunks that yield to the event
 * loop between them — a search over a 10,000-line scrollback in twenty panes at once never
 * holds up keystrokes or other clients. Lines are searched as logical lines (soft wraps
 * joined), so a match that wraps onto the next row is found, and it scans outward from the
 * cursor in the search direction, so the match to jump to is reported as soon as it is found.
 */
import RE2 from 're2';
import type { CopySource } from './copy-source.js';
import type { Pos } from './positions.js';
import { comparePos } from './positions.js';

export const SEARCH_TUNING = {
  /** Longest stretch of work between yields to the event loop. */
  sliceMs: 4,
  /** Lines between clock checks within a slice. */
  linesPerCheck: 128,
  /** Matches kept; past this a search reports itself truncated (memory stays bounded). */
  maxMatches: 100_000,
  /** While a long search runs, found matches are published at most this often. */
  publishEveryMs: 50,
} as const;

/** Matches sorted by start, each spanning [start, end) in (line, col) cells. */
export class MatchList {
  readonly startLine: Int32Array;
  readonly startCol: Int32Array;
  readonly endLine: Int32Array;
  readonly endCol: Int32Array;

  constructor(readonly length: number, arrays?: { startLine: Int32Array; startCol: Int32Array; endLine: Int32Array; endCol: Int32Array }) {
    this.startLine = arrays?.startLine ?? new Int32Array(length);
    this.startCol = arrays?.startCol ?? new Int32Array(length);
    this.endLine = arrays?.endLine ?? new Int32Array(length);
    this.endCol = arrays?.endCol ?? new Int32Array(length);
  }

  static readonly empty = new MatchList(0);

  start(i: number): Pos {
    return { line: this.startLine[i]!, col: this.startCol[i]! };
  }

  end(i: number): Pos {
    return { line: this.endLine[i]!, col: this.endCol[i]! };
  }

  /** Index of the first match that ends after line `line` starts (binary search). */
  firstEndingAtOrAfter(line: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.endLine[mid]! < line || (this.endLine[mid] === line && this.endCol[mid] === 0)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The match after `pos` (forward) or before it (backward), wrapping around; -1 with none. */
  next(pos: Pos, backward: boolean): number {
    if (this.length === 0) return -1;
    // First match starting strictly after pos.
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (comparePos(this.start(mid), pos) <= 0) lo = mid + 1;
      else hi = mid;
    }
    if (!backward) return lo < this.length ? lo : 0;
    // Last match starting strictly before pos.
    let before = lo - 1;
    while (before >= 0 && comparePos(this.start(before), pos) === 0) before--;
    return before >= 0 ? before : this.length - 1;
  }

  /** The match containing `pos`, or -1. */
  at(pos: Pos): number {
    const i = this.firstEndingAtOrAfter(pos.line);
    for (let k = i; k < this.length && comparePos(this.start(k), pos) <= 0; k++) {
      if (comparePos(pos, this.end(k)) < 0) return k;
    }
    return -1;
  }
}

/** A compiled pattern: RE2, case-insensitive unless it has a capital (smartcase), plain text if it is not a valid regex. */
export interface CompiledPattern {
  re: RE2;
  /** The pattern was not a valid regex and is searched as plain text. */
  literal: boolean;
}

export function compilePattern(pattern: string): CompiledPattern {
  const flags = /\p{Lu}/u.test(pattern) ? 'gu' : 'giu';
  try {
    return { re: new RE2(pattern, flags), literal: false };
  } catch {
    return { re: new RE2(pattern.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), flags), literal: true };
  }
}

export interface SearchProgress {
  /** Every match found so far, sorted. */
  matches: MatchList;
  /** The match to move to (first after the cursor in the search direction), once found; -1 before, or with none. */
  first: number;
  complete: boolean;
  truncated: boolean;
  literal: boolean;
}

export interface SearchRequest {
  source: CopySource;
  pattern: string;
  backward: boolean;
  from: Pos;
}

/** One logical line's matches, in order: [startLine, startCol, endLine, endCol] × n. */
type Found = number[];

/** Matches of `re` in the logical line made of rows [start, end). */
function searchLogicalLine(source: CopySource, re: RE2, start: number, end: number, out: Found): void {
  let text = '';
  const rowStarts: number[] = [];
  for (let row = start; row < end; row++) {
    rowStarts.push(text.length);
    text += source.text(row);
  }
  if (text.trim() === '') return;
  re.lastIndex = 0;
  let columns: Map<number, { line: number; col: number }[]> | null = null;
  let match: RegExpExecArray | null;
  while ((match = re.exec(text)) !== null) {
    const from = match.index;
    const to = from + match[0].length;
    if (match[0].length === 0) {
      // An empty match (`^`, `x*`) highlights nothing: step past it.
      re.lastIndex = from + 1;
      continue;
    }
    columns ??= new Map();
    const a = locate(source, rowStarts, start, from, columns);
    // The end is exclusive: locate the last unit and step one cell past it.
    const b = locate(source, rowStarts, start, to - 1, columns);
    out.push(a.line, a.col, b.line, b.col + 1);
  }
}

/** Maps a string offset in a logical line to (row, cell column). */
function locate(source: CopySource, rowStarts: number[], start: number, offset: number, cache: Map<number, { line: number; col: number }[]>): Pos {
  let r = rowStarts.length - 1;
  while (r > 0 && rowStarts[r]! > offset) r--;
  const line = start + r;
  let map = cache.get(line);
  if (!map) {
    // Unit offset → cell: each cell's string covers its units.
    map = [];
    const cells = source.cells(line);
    for (let col = 0; col < cells.length; col++) {
      for (let k = 0; k < cells[col]!.length; k++) map.push({ line, col });
    }
    cache.set(line, map);
  }
  const local = offset - rowStarts[r]!;
  return map[Math.min(local, map.length - 1)] ?? { line, col: 0 };
}

/** The first row of the logical line holding `row`. */
function logicalStart(source: CopySource, row: number): number {
  let start = row;
  while (start > 0 && source.wrapped(start)) start--;
  return start;
}

/** One past the last row of the logical line starting at `start`. */
function logicalEnd(source: CopySource, start: number): number {
  let end = start + 1;
  while (end < source.lineCount && source.wrapped(end)) end++;
  return end;
}

export interface SearchJob {
  cancel(): void;
}

/** Waits for the event loop to run everything else that is ready. */
const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs a search in slices; `onProgress` gets the sorted matches so far whenever the match
 * to jump to is found, at most every `publishEveryMs` while running, and once at the end.
 */
export function startSearch(request: SearchRequest, onProgress: (progress: SearchProgress) => void): SearchJob {
  const { source, backward, from } = request;
  const { re, literal } = compilePattern(request.pattern);
  let cancelled = false;
  // Chunks of found matches keyed by their logical line's first row, merged in order on publish.
  const chunks = new Map<number, Found>();
  let found = 0;
  let truncated = false;
  let first: Pos | null = null;
  let firstPublished = false;
  // Matches on the cursor's own line that lie behind the search direction: the wrap-around answer.
  let wrapCandidate: Pos | null = null;

  const merge = (): MatchList => {
    const keys = [...chunks.keys()].sort((a, b) => a - b);
    const list = new MatchList(found);
    let i = 0;
    for (const key of keys) {
      const f = chunks.get(key)!;
      for (let k = 0; k < f.length; k += 4, i++) {
        list.startLine[i] = f[k]!;
        list.startCol[i] = f[k + 1]!;
        list.endLine[i] = f[k + 2]!;
        list.endCol[i] = f[k + 3]!;
      }
    }
    return list;
  };
  const publish = (complete: boolean): void => {
    const matches = merge();
    const target = first ?? (complete ? wrapCandidate : null);
    const index = target ? matches.at(target) : -1;
    onProgress({ matches, first: index, complete, truncated, literal });
  };

  const scanLine = (start: number, end: number, cursorLine: boolean): void => {
    const out: Found = [];
    searchLogicalLine(source, re, start, end, out);
    if (out.length === 0) return;
    const room = SEARCH_TUNING.maxMatches - found;
    if (out.length / 4 > room) {
      out.length = room * 4;
      truncated = true;
    }
    chunks.set(start, out);
    found += out.length / 4;
    if (first) return;
    // Matches in scan order: forward lists them ascending, backward wants the last one first.
    const n = out.length / 4;
    for (let j = 0; j < n; j++) {
      const k = (backward ? n - 1 - j : j) * 4;
      const pos = { line: out[k]!, col: out[k + 1]! };
      const ahead = backward ? comparePos(pos, from) < 0 : comparePos(pos, from) > 0;
      if (!cursorLine || ahead) {
        first = pos;
        return;
      }
      wrapCandidate ??= pos;
    }
  };

  const run = async (): Promise<void> => {
    const total = source.lineCount;
    if (total === 0) return publish(true);
    const home = logicalStart(source, Math.min(Math.max(0, from.line), total - 1));
    // Forward: home … end, then 0 … home. Backward: home … 0, then end … home.
    let row = home;
    let wrapped = false;
    let scanned = 0;
    let lastPublish = performance.now();
    let sliceStart = performance.now();
    const next = (): boolean => {
      if (!backward) {
        row = logicalEnd(source, row);
        if (row >= total && !wrapped) {
          wrapped = true;
          row = 0;
        }
        return !(wrapped && row >= home);
      }
      if (row === 0) {
        if (wrapped) return false;
        wrapped = true;
        row = logicalStart(source, total - 1);
      } else {
        row = logicalStart(source, row - 1);
      }
      return !(wrapped && row <= home);
    };
    let more = true;
    while (more && !truncated) {
      scanLine(row, logicalEnd(source, row), row === home && !wrapped);
      if (first && !firstPublished) {
        firstPublished = true;
        publish(false);
        lastPublish = performance.now();
      }
      more = next();
      if (++scanned % SEARCH_TUNING.linesPerCheck === 0 && performance.now() - sliceStart >= SEARCH_TUNING.sliceMs) {
        if (performance.now() - lastPublish >= SEARCH_TUNING.publishEveryMs) {
          publish(false);
          lastPublish = performance.now();
        }
        await yieldToLoop();
        if (cancelled) return;
        sliceStart = performance.now();
      }
    }
    publish(true);
  };
  void run();
  return {
    cancel() {
      cancelled = true;
    },
  };
}
