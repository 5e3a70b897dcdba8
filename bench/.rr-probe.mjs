// src/terminal/memory-release.ts
import v8 from "node:v8";
import vm from "node:vm";
var MEMORY_RELEASE = {
  /** Rings smaller than this are not worth a collection. */
  minBytes: 4 * 1024 * 1024,
  /** Wait for other panes' floods to end too. */
  delayMs: 1e3,
  minIntervalMs: 1e4,
  /**
   * How often the idle trim looks at the young generation. V8 judges allocation over the time
   * since its previous collection and at least 5 s back, so a retry must come later than that.
   */
  idleCheckMs: 6e3,
  /** The event loop busy at most this share of the last check's interval: the server is idle. */
  idleUtilization: 0.05,
  /** A young generation (V8's new space) larger than this after a busy spell is trimmed. */
  youngTrimBytes: 4 * 1024 * 1024,
  /** Trims that did not shrink it: after the first retry, each waits twice as long, up to this. */
  maxBackoffMs: 5 * 6e4
};
var collect;
var timer;
var lastRun = 0;
function collector() {
  if (collect !== void 0) return collect;
  try {
    v8.setFlagsFromString("--expose-gc");
    const gc = vm.runInNewContext("gc");
    collect = typeof gc === "function" ? gc : null;
  } catch {
    collect = null;
  }
  return collect;
}
function released(bytes) {
  if (bytes < MEMORY_RELEASE.minBytes || timer) return;
  const wait = Math.max(MEMORY_RELEASE.delayMs, lastRun + MEMORY_RELEASE.minIntervalMs - Date.now());
  timer = setTimeout(() => {
    timer = void 0;
    lastRun = Date.now();
    collector()?.();
  }, wait);
  timer.unref();
}

// src/terminal/raw-rows.ts
var WORDS_PER_CELL = 3;
var FIRST_SLOTS = 16;
var FIRST_WORDS = 4096;
var NO_WORDS = new Uint32Array(0);
var allocatedBytes = 0;
function rawRowBytes() {
  return allocatedBytes;
}
var RawRows = class {
  constructor(maxRows) {
    this.maxRows = maxRows;
  }
  maxRows;
  /** Allocated on the first row: most panes sit idle and never scroll a row out (16 KB each). */
  words = NO_WORDS;
  /** Per slot: first word, cells stored, the row's length, wrapped flag. */
  start = new Int32Array(FIRST_SLOTS);
  stored = new Uint32Array(FIRST_SLOTS);
  lengths = new Uint32Array(FIRST_SLOTS);
  wrapped = new Uint8Array(FIRST_SLOTS);
  /** Per slot: the row's own grapheme-cluster and extended-attribute tables (usually empty). */
  combined = new Array(FIRST_SLOTS);
  extended = new Array(FIRST_SLOTS);
  /** Per slot: a row object handed over whole (`adopt`), which then holds no words here. */
  adopted = new Array(FIRST_SLOTS);
  head = 0;
  count = 0;
  /** Where the next row's words go. */
  tail = 0;
  /** The most words a row pushed since the last `clear` took (bounds `growWords`). */
  widest = 0;
  get size() {
    return this.count;
  }
  /** Bytes this ring holds allocated. */
  get bytes() {
    return this.words.byteLength;
  }
  /** Appends a copy of `line`; false when `maxRows` rows are held already. */
  push(line) {
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
  adopt(line) {
    if (this.count >= this.maxRows) return false;
    if (this.count === this.start.length) this.growSlots();
    const slot = (this.head + this.count) % this.start.length;
    this.start[slot] = this.count === 0 ? this.tail = 0 : this.tail;
    this.stored[slot] = 0;
    this.adopted[slot] = line;
    this.count++;
    return true;
  }
  /** Row `i` if it was adopted (the object itself), else undefined. */
  adoptedLine(i) {
    if (i < 0 || i >= this.count) return void 0;
    return this.adopted[(this.head + i) % this.start.length];
  }
  /** Row `i` (0 = oldest) in xterm's row shape: its words are a view, valid until the next change. */
  line(i) {
    if (i < 0 || i >= this.count) return void 0;
    const slot = (this.head + i) % this.start.length;
    const own = this.adopted[slot];
    if (own) return own;
    const start = this.start[slot];
    return {
      _data: this.words.subarray(start, start + this.stored[slot] * WORDS_PER_CELL),
      length: this.lengths[slot],
      isWrapped: this.wrapped[slot] === 1,
      _combined: this.combined[slot] ?? {},
      _extendedAttrs: this.extended[slot] ?? {}
    };
  }
  /** Drops the `n` oldest rows. */
  dropFront(n) {
    n = Math.min(n, this.count);
    for (let i = 0; i < n; i++) this.forget((this.head + i) % this.start.length);
    this.head = (this.head + n) % this.start.length;
    this.count -= n;
    if (this.count === 0) this.head = this.tail = 0;
  }
  /** Drops the `n` newest rows. */
  dropBack(n) {
    n = Math.min(n, this.count);
    if (n === 0) return;
    const slots = this.start.length;
    for (let i = this.count - n; i < this.count; i++) this.forget((this.head + i) % slots);
    this.tail = this.start[(this.head + this.count - n) % slots];
    this.count -= n;
    if (this.count === 0) this.head = this.tail = 0;
  }
  /** Empties the ring and gives its memory back (after the rows were encoded or dropped). */
  clear() {
    this.head = this.count = this.tail = 0;
    this.widest = 0;
    this.combined.fill(void 0);
    this.extended.fill(void 0);
    this.adopted.fill(void 0);
    if (this.words.length > FIRST_WORDS) {
      released(this.words.byteLength);
      allocatedBytes -= this.words.byteLength;
      this.words = NO_WORDS;
    }
    if (this.start.length > FIRST_SLOTS) this.resizeSlots(FIRST_SLOTS);
  }
  /** Lets go of a dropped slot's side tables. */
  forget(slot) {
    this.combined[slot] = void 0;
    this.extended[slot] = void 0;
    this.adopted[slot] = void 0;
  }
  /** Where `words` free words start (rows never wrap around the end), or -1. */
  place(words) {
    if (this.count === 0) return words <= this.words.length ? 0 : -1;
    const headStart = this.start[this.head];
    if (this.tail >= headStart) {
      if (this.tail + words <= this.words.length) return this.tail;
      return words < headStart ? 0 : -1;
    }
    return this.tail + words < headStart ? this.tail : -1;
  }
  /**
   * Copies the rows, oldest first, into a larger word array. Doubling, but never past what
   * `maxRows` rows as wide as the widest seen need: a flood fills the ring to exactly that, and
   * doubling past it made the last array up to twice too large (160 columns, 10,000 rows:
   * 33.5 MB instead of 19 MB per flooding pane, and 67 MB instead of 53 MB allocated growing).
   */
  growWords(need) {
    let total = need;
    for (let i = 0; i < this.count; i++) total += this.stored[(this.head + i) % this.start.length] * WORDS_PER_CELL;
    const enough = (this.maxRows + 1) * this.widest;
    const doubled = Math.max(FIRST_WORDS, this.words.length * 2, total * 2);
    const words = new Uint32Array(total <= enough ? Math.max(total, Math.min(doubled, enough)) : doubled);
    let at = 0;
    for (let i = 0; i < this.count; i++) {
      const slot = (this.head + i) % this.start.length;
      const from = this.start[slot];
      const n = this.stored[slot] * WORDS_PER_CELL;
      words.set(this.words.subarray(from, from + n), at);
      this.start[slot] = at;
      at += n;
    }
    allocatedBytes += words.byteLength - this.words.byteLength;
    this.words = words;
    this.tail = at;
  }
  growSlots() {
    this.resizeSlots(Math.max(this.count + 1, Math.min(this.maxRows, this.start.length * 2)));
  }
  resizeSlots(slots) {
    const old = { start: this.start, stored: this.stored, lengths: this.lengths, wrapped: this.wrapped, combined: this.combined, extended: this.extended, adopted: this.adopted, n: this.start.length };
    this.start = new Int32Array(slots);
    this.stored = new Uint32Array(slots);
    this.lengths = new Uint32Array(slots);
    this.wrapped = new Uint8Array(slots);
    this.combined = new Array(slots);
    this.extended = new Array(slots);
    this.adopted = new Array(slots);
    for (let i = 0; i < this.count; i++) {
      const from = (this.head + i) % old.n;
      this.start[i] = old.start[from];
      this.stored[i] = old.stored[from];
      this.lengths[i] = old.lengths[from];
      this.wrapped[i] = old.wrapped[from];
      this.combined[i] = old.combined[from];
      this.extended[i] = old.extended[from];
      this.adopted[i] = old.adopted[from];
    }
    this.head = 0;
  }
};
export {
  RawRows,
  rawRowBytes
};
