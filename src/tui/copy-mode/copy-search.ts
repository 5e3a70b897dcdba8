/**
 * Copy-mode search: every match of a pattern in a frozen source, found with RE2 (the shared
 * pane-regex engine: linear time, so no pattern can stall the server) in short slices. All searches share one
 * `SearchQueue` that runs at most `sliceMs` of search per event-loop turn, round-robin, so
 * twenty panes searching 10,000 lines each at once still leave keystrokes and other clients
 * waiting no longer than one slice. Lines are searched as logical lines (soft wraps joined),
 * so a match that wraps onto the next row is found; a batch of lines goes to RE2 as one
 * string (one call instead of hundreds); the scan goes outward from the cursor in the search
 * direction, so the match to jump to is reported as soon as it is found.
 */
import { compilePaneScanner, type PaneRegexScanner } from '../../terminal/pane-regex.js';
import type { CopySource } from './copy-source.js';
import type { Pos } from './positions.js';
import { comparePos } from './positions.js';

export const SEARCH_TUNING = {
  /** Longest stretch of work between yields to the event loop. */
  sliceMs: 4,
  /** Logical lines handed to RE2 as one string (and between clock checks). */
  batchLines: 64,
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

/** A compiled pattern: case-insensitive unless it has a capital (smartcase), plain text if it is not a valid regex. */
export interface CompiledPattern {
  scanner: PaneRegexScanner;
  /** The pattern was not a valid regex and is searched as plain text. */
  literal: boolean;
}

export function compilePattern(pattern: string): CompiledPattern {
  const ignoreCase = !/\p{Lu}/u.test(pattern);
  try {
    return { scanner: compilePaneScanner(pattern, { ignoreCase }), literal: false };
  } catch {
    return { scanner: compilePaneScanner(pattern.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&'), { ignoreCase }), literal: true };
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

/** A logical line: rows [start, end). */
interface Logical {
  start: number;
  end: number;
}

/** Maps a string offset in a logical line to (row, cell column). */
function locate(source: CopySource, line: Logical, rowStarts: number[], offset: number, cache: Map<number, Pos[]>): Pos {
  let r = rowStarts.length - 1;
  while (r > 0 && rowStarts[r]! > offset) r--;
  const row = line.start + r;
  let map = cache.get(row);
  if (!map) {
    // Unit offset → cell: each cell's string covers its units.
    map = [];
    const cells = source.cells(row);
    for (let col = 0; col < cells.length; col++) {
      for (let k = 0; k < cells[col]!.length; k++) map.push({ line: row, col });
    }
    cache.set(row, map);
  }
  return map[Math.min(offset - rowStarts[r]!, map.length - 1)] ?? { line: row, col: 0 };
}

/**
 * Matches of `re` in a batch of logical lines (in any order), per line in reading order.
 * The lines go to RE2 as one string joined by newlines; a match that would run across two
 * lines is not a match.
 */
function searchBatch(source: CopySource, scanner: PaneRegexScanner, lines: readonly Logical[]): Map<Logical, Found> {
  let text = '';
  const lineStarts: number[] = [];
  const rowStarts: number[][] = [];
  for (const line of lines) {
    lineStarts.push(text.length);
    const starts: number[] = [];
    for (let row = line.start; row < line.end; row++) {
      starts.push(text.length - lineStarts[lineStarts.length - 1]!);
      // Inner rows keep their trailing blanks so offsets stay aligned with cells.
      text += source.text(row, row === line.end - 1);
    }
    rowStarts.push(starts);
    text += '\n';
  }
  const out = new Map<Logical, Found>();
  const columns = new Map<number, Pos[]>();
  let k = 0;
  scanner.forEachMatch(text, (from, to) => {
    while (k + 1 < lineStarts.length && lineStarts[k + 1]! <= from) k++;
    const lineEnd = (k + 1 < lineStarts.length ? lineStarts[k + 1]! : text.length) - 1;
    if (to > lineEnd) return;
    const line = lines[k]!;
    const a = locate(source, line, rowStarts[k]!, from - lineStarts[k]!, columns);
    // The end is exclusive: locate the last unit and step one cell past it.
    const b = locate(source, line, rowStarts[k]!, to - 1 - lineStarts[k]!, columns);
    let found = out.get(line);
    if (!found) out.set(line, (found = []));
    found.push(a.line, a.col, b.line, b.col + 1);
  });
  return out;
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

/** Work the queue runs in slices: `step` does one batch and says whether the job is finished. */
interface QueuedJob {
  step(): boolean;
}

/**
 * Runs search jobs round-robin, one batch each in turn, for at most `sliceMs` per event-loop
 * turn however many jobs there are; between turns, I/O (keys, pane output, clients) runs.
 * One queue per TUI.
 */
export class SearchQueue {
  private readonly jobs: QueuedJob[] = [];
  private scheduled = false;

  add(job: QueuedJob): void {
    this.jobs.push(job);
    this.schedule();
  }

  remove(job: QueuedJob): void {
    const at = this.jobs.indexOf(job);
    if (at >= 0) this.jobs.splice(at, 1);
  }

  get pending(): number {
    return this.jobs.length;
  }

  private schedule(): void {
    if (this.scheduled || this.jobs.length === 0) return;
    this.scheduled = true;
    setImmediate(() => this.pump());
  }

  private pump(): void {
    this.scheduled = false;
    const deadline = performance.now() + SEARCH_TUNING.sliceMs;
    let turn = 0;
    while (this.jobs.length > 0 && performance.now() < deadline) {
      const index = turn++ % this.jobs.length;
      const job = this.jobs[index]!;
      if (job.step()) this.remove(job);
    }
    this.schedule();
  }
}

export interface SearchJob {
  cancel(): void;
}

/**
 * Queues a search; `onProgress` gets the sorted matches so far when the match to jump to is
 * found, at most every `publishEveryMs` while running, and once at the end.
 */
export function startSearch(queue: SearchQueue, request: SearchRequest, onProgress: (progress: SearchProgress) => void): SearchJob {
  const { source, backward, from } = request;
  const { scanner, literal } = compilePattern(request.pattern);
  // Found matches by their logical line's first row, merged in order on publish.
  const chunks = new Map<number, Found>();
  let found = 0;
  let truncated = false;
  let first: Pos | null = null;
  let firstPublished = false;
  // A match on the cursor's own line behind the search direction: the wrap-around answer.
  let wrapCandidate: Pos | null = null;
  let lastPublish = performance.now();

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
    lastPublish = performance.now();
    const matches = merge();
    const target = first ?? (complete ? wrapCandidate : null);
    onProgress({ matches, first: target ? matches.at(target) : -1, complete, truncated, literal });
  };

  /** Records one logical line's matches; `home`: the cursor's line, scanned first. */
  const record = (start: number, out: Found, home: boolean): void => {
    const room = SEARCH_TUNING.maxMatches - found;
    if (out.length / 4 > room) {
      out.length = room * 4;
      truncated = true;
    }
    chunks.set(start, out);
    found += out.length / 4;
    if (first) return;
    const n = out.length / 4;
    for (let j = 0; j < n; j++) {
      // Scan order: ascending forward, descending backward.
      const k = (backward ? n - 1 - j : j) * 4;
      const pos = { line: out[k]!, col: out[k + 1]! };
      const ahead = backward ? comparePos(pos, from) < 0 : comparePos(pos, from) > 0;
      if (!home || ahead) {
        first = pos;
        return;
      }
      wrapCandidate ??= pos;
    }
  };

  const total = source.lineCount;
  const home = total === 0 ? 0 : logicalStart(source, Math.min(Math.max(0, from.line), total - 1));
  // Forward: home … end, then 0 … home. Backward: home … 0, then end … home.
  let row = home;
  let wrapped = false;
  let more = total > 0;
  const advance = (): void => {
    if (!backward) {
      row = logicalEnd(source, row);
      if (row >= total && !wrapped) {
        wrapped = true;
        row = 0;
      }
      more = !(wrapped && row >= home);
      return;
    }
    if (row === 0) {
      if (wrapped) {
        more = false;
        return;
      }
      wrapped = true;
      row = logicalStart(source, total - 1);
    } else {
      row = logicalStart(source, row - 1);
    }
    more = !(wrapped && row <= home);
  };

  let finished = false;
  const job: QueuedJob = {
    step() {
      if (finished) return true;
      const batch: Logical[] = [];
      let homeLine: Logical | null = null;
      while (more && batch.length < SEARCH_TUNING.batchLines) {
        const line = { start: row, end: logicalEnd(source, row) };
        if (row === home && !wrapped) homeLine = line;
        batch.push(line);
        advance();
      }
      const results = searchBatch(source, scanner, batch);
      for (const line of batch) {
        const out = results.get(line);
        if (out) record(line.start, out, line === homeLine);
        if (truncated) break;
      }
      if (!more || truncated) {
        finished = true;
        publish(true);
        return true;
      }
      if (first && !firstPublished) {
        firstPublished = true;
        publish(false);
      } else if (performance.now() - lastPublish >= SEARCH_TUNING.publishEveryMs) {
        publish(false);
      }
      return false;
    },
  };
  queue.add(job);
  return {
    cancel() {
      finished = true;
      queue.remove(job);
    },
  };
}
