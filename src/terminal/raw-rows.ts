/**
 * Rows just moved out of xterm, still in xterm's own cell words, packed one after another in
 * a single growing ring of words. This is the hot path of a flood — one row per scrolled
 * line — so a row costs one native copy of its words and two pointer stores, nothing more:
 * no allocation (a typed array per row, or even a view, cost about as much as xterm's parsing
 * of the row), no loop in JavaScript (scanning for the trailing blanks, or asking whether
 * the row's side tables are empty, each cost more than the copy). Rows leave from the front,
 * to be encoded as compact `CompactRow`s (trailing blanks dropped) once the pane is quiet, or
 * dropped when the scrollback is full — most rows of a flood are never encoded. While a flood
 * lasts, the ring costs what xterm's own scrollback did; after it, what the text needs.
 */
import { released } from './memory-release.js';
import type { CoreBufferLine } from './xterm-internals.js';

const WORDS_PER_CELL = 3;
const FIRST_SLOTS = 16;
const FIRST_WORDS = 4096;
const NO_WORDS = new Uint32Array(0);

/** Bytes of raw rings allocated in this process, every pane's together (see RowStore's budget). */
let allocatedBytes = 0;

/**
 * The last large ring given up, kept for the next flood for a while. Fresh memory costs its
 * page faults as a flood first writes it — 19 MB of ring, ~80 ms on the reference machine, as
 * much as the doubling copies — and a flood often follows another (a build, a test run, the
 * next `cat`). Kept `SPARE_KEEP_MS` after it was last given up, then let go for the collector.
 */
let spare: Uint32Array<ArrayBuffer> | null = null;
let spareTimer: NodeJS.Timeout | undefined;
export const SPARE_KEEP_MS = 20_000;

function keepSpare(words: Uint32Array<ArrayBuffer>): void {
  if (spare !== null && spare.length >= words.length) {
    released(words.byteLength);
    return;
  }
  if (spare !== null) released(spare.byteLength);
  spare = words;
  clearTimeout(spareTimer);
  spareTimer = setTimeout(() => {
    if (spare !== null) released(spare.byteLength);
    spare = null;
  }, SPARE_KEEP_MS);
  spareTimer.unref?.();
}

/** The spare ring when it holds `min` words and no more than `max` (and gives it up), else null. */
function takeSpare(min: number, max: number): Uint32Array<ArrayBuffer> | null {
  if (spare === null || spare.length < min || spare.length > max) return null;
  const taken = spare;
  spare = null;
  return taken;
}

/** What every pane's raw ring holds allocated now. */
export function rawRowBytes(): number {
  return allocatedBytes;
}

/** xterm never mutates a row's side tables once the row has left it (it gives a reused row new ones). */
type Combined = CoreBufferLine['_combined'] | undefined;
type Extended = CoreBufferLine['_extendedAttrs'] | undefined;

export class RawRows {
  /** Allocated on the first row: most panes sit idle and never scroll a row out (16 KB each). */
  private words = NO_WORDS;
  /** Per slot: first word, cells stored, the row's length, wrapped flag. */
  private start = new Int32Array(FIRST_SLOTS);
  private stored = new Uint32Array(FIRST_SLOTS);
  private lengths = new Uint32Array(FIRST_SLOTS);
  private wrapped = new Uint8Array(FIRST_SLOTS);
  /** Per slot: the row's own grapheme-cluster and extended-attribute tables (usually empty). */
  private combined: Combined[] = new Array<Combined>(FIRST_SLOTS);
  private extended: Extended[] = new Array<Extended>(FIRST_SLOTS);
  /** Per slot: a row object handed over whole (`adopt`), which then holds no words here. */
  private adopted: (CoreBufferLine | undefined)[] = new Array<CoreBufferLine | undefined>(FIRST_SLOTS);
  private head = 0;
  private count = 0;
  /** Where the next row's words go. */
  private tail = 0;
  /** The most words a row pushed since the last `clear` took (bounds `growWords`). */
  private widest = 0;

  constructor(
    /** The ring never holds more rows than this. */
    private readonly maxRows: number,
  ) {}

  get size(): number {
    return this.count;
  }

  /** Bytes this ring holds allocated. */
  get bytes(): number {
    return this.words.byteLength;
  }

  /** Appends a copy of `line`; false when `maxRows` rows are held already. */
  push(line: CoreBufferLine): boolean {
    if (this.count >= this.maxRows) return false;
    if (this.count === this.start.length) this.growSlots();
    const data = line._data;
    const words = data.length;
    if (words > this.widest) this.widest = words;
    let at = this.place(words);
    if (at < 0) {
      this.growWords(words);
      at = this.tail;
    }
    this.words.set(data, at);
    const slot = (this.head + this.count) % this.start.length;
    this.start[slot] = at;
    this.stored[slot] = words / WORDS_PER_CELL;
    this.lengths[slot] = line.length;
    this.wrapped[slot] = line.isWrapped ? 1 : 0;
    this.combined[slot] = line._combined;
    this.extended[slot] = line._extendedAttrs;
    this.tail = at + words;
    this.count++;
    return true;
  }

  /**
   * Appends `line` itself, not a copy: for a row object nothing else holds any more (the rows a
   * resize spills out of xterm, which xterm drops), so keeping it costs no copy at all. False
   * when `maxRows` rows are held already.
   */
  adopt(line: CoreBufferLine): boolean {
    if (this.count >= this.maxRows) return false;
    if (this.count === this.start.length) this.growSlots();
    const slot = (this.head + this.count) % this.start.length;
    this.start[slot] = this.count === 0 ? (this.tail = 0) : this.tail;
    this.stored[slot] = 0;
    this.adopted[slot] = line;
    this.count++;
    return true;
  }

  /** Row `i` if it was adopted (the object itself), else undefined. */
  adoptedLine(i: number): CoreBufferLine | undefined {
    if (i < 0 || i >= this.count) return undefined;
    return this.adopted[(this.head + i) % this.start.length];
  }

  /** Row `i` (0 = oldest) in xterm's row shape: its words are a view, valid until the next change. */
  line(i: number): CoreBufferLine | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const slot = (this.head + i) % this.start.length;
    const own = this.adopted[slot];
    if (own) return own;
    const start = this.start[slot]!;
    return {
      _data: this.words.subarray(start, start + this.stored[slot]! * WORDS_PER_CELL),
      length: this.lengths[slot]!,
      isWrapped: this.wrapped[slot] === 1,
      _combined: this.combined[slot] ?? {},
      _extendedAttrs: this.extended[slot] ?? {},
    };
  }

  /** Drops the `n` oldest rows. */
  dropFront(n: number): void {
    n = Math.min(n, this.count);
    for (let i = 0; i < n; i++) this.forget((this.head + i) % this.start.length);
    this.head = (this.head + n) % this.start.length;
    this.count -= n;
    if (this.count === 0) this.head = this.tail = 0;
  }

  /** Drops the `n` newest rows. */
  dropBack(n: number): void {
    n = Math.min(n, this.count);
    if (n === 0) return;
    const slots = this.start.length;
    for (let i = this.count - n; i < this.count; i++) this.forget((this.head + i) % slots);
    this.tail = this.start[(this.head + this.count - n) % slots]!;
    this.count -= n;
    if (this.count === 0) this.head = this.tail = 0;
  }

  /** Empties the ring and gives its memory back (after the rows were encoded or dropped). */
  clear(): void {
    this.head = this.count = this.tail = 0;
    this.widest = 0;
    this.combined.fill(undefined);
    this.extended.fill(undefined);
    this.adopted.fill(undefined);
    if (this.words.length > FIRST_WORDS) {
      keepSpare(this.words);
      allocatedBytes -= this.words.byteLength;
      // No new array until the next row: a small array allocated now, while a flood's large
      // ones are still live, lands above them in the C heap and pins it — it cannot shrink
      // below a live allocation (measured: most of 20 panes' floods stayed resident).
      this.words = NO_WORDS;
    }
    if (this.start.length > FIRST_SLOTS) this.resizeSlots(FIRST_SLOTS);
  }

  /** Lets go of a dropped slot's side tables. */
  private forget(slot: number): void {
    this.combined[slot] = undefined;
    this.extended[slot] = undefined;
    this.adopted[slot] = undefined;
  }

  /** Where `words` free words start (rows never wrap around the end), or -1. */
  private place(words: number): number {
    if (this.count === 0) return words <= this.words.length ? 0 : -1;
    const headStart = this.start[this.head]!;
    // tail === headStart only when every row from the head on is empty: nothing is in use.
    if (this.tail >= headStart) {
      if (this.tail + words <= this.words.length) return this.tail;
      return words < headStart ? 0 : -1;
    }
    // The tail wrapped: free space runs up to the oldest row.
    return this.tail + words < headStart ? this.tail : -1;
  }

  /**
   * Copies the rows, oldest first, into a larger word array. Doubling, but never past what
   * `maxRows` rows as wide as the widest seen need: a flood fills the ring to exactly that, and
   * doubling past it made the last array up to twice too large (160 columns, 10,000 rows:
   * 33.5 MB instead of 19 MB per flooding pane, and 67 MB instead of 53 MB allocated growing).
   */
  private growWords(need: number): void {
    let total = need;
    for (let i = 0; i < this.count; i++) total += this.stored[(this.head + i) % this.start.length]! * WORDS_PER_CELL;
    // One row spare: rows never wrap round the end, so a full ring of equal rows needs it.
    const enough = (this.maxRows + 1) * this.widest;
    const doubled = Math.max(FIRST_WORDS, this.words.length * 2, total * 2);
    const size = total <= enough ? Math.max(total, Math.min(doubled, enough)) : doubled;
    // A flood after another takes the last one's ring whole: its pages are already faulted in.
    const words = takeSpare(size, Math.max(size, enough)) ?? new Uint32Array(size);
    let at = 0;
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % this.start.length;
      const from = this.start[slot]!;
      const n = this.stored[slot]! * WORDS_PER_CELL;
      words.set(this.words.subarray(from, from + n), at);
      this.start[slot] = at;
      at += n;
    }
    allocatedBytes += words.byteLength - this.words.byteLength;
    this.words = words;
    this.tail = at;
  }

  private growSlots(): void {
    this.resizeSlots(Math.max(this.count + 1, Math.min(this.maxRows, this.start.length * 2)));
  }

  private resizeSlots(slots: number): void {
    const old = { start: this.start, stored: this.stored, lengths: this.lengths, wrapped: this.wrapped, combined: this.combined, extended: this.extended, adopted: this.adopted, n: this.start.length };
    this.start = new Int32Array(slots);
    this.stored = new Uint32Array(slots);
    this.lengths = new Uint32Array(slots);
    this.wrapped = new Uint8Array(slots);
    this.combined = new Array<Combined>(slots);
    this.extended = new Array<Extended>(slots);
    this.adopted = new Array<CoreBufferLine | undefined>(slots);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) % old.n;
      this.start[i] = old.start[from]!;
      this.stored[i] = old.stored[from]!;
      this.lengths[i] = old.lengths[from]!;
      this.wrapped[i] = old.wrapped[from]!;
      this.combined[i] = old.combined[from];
      this.extended[i] = old.extended[from];
      this.adopted[i] = old.adopted[from];
    }
    this.head = 0;
  }
}
