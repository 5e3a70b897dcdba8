/**
 * One scrollback row kept outside xterm, at a fraction of xterm's cost. xterm spends 12 bytes
 * on every cell of every row (a 160-column row costs 1.9 KB whatever it shows); a compact row
 * keeps only the cells up to the last one that is not a default blank, as a string of code
 * points (one UTF-16 unit per cell, so one byte per cell for Latin-1 text) plus style runs,
 * and nothing at all for an unstyled row.
 *
 * The encoding is lossless for everything a read can ask for: `decodeRow` rebuilds the exact
 * xterm row (content words, colours, attributes, wide characters, grapheme clusters,
 * underline styles, the wrapped flag), so reads of stored rows run the same code as reads of
 * live rows and cannot differ from them. Rows the string form cannot hold (a code point
 * outside the BMP or a lone surrogate) keep their raw cell words instead.
 */
import type { CoreBufferLine } from './xterm-internals.js';

/** A cell nothing was ever written to: width 1, no code point, default colours. */
const BLANK_CONTENT = 1 << 22;
const CODEPOINT_MASK = 0x1fffff;
/** Content bits above the code point: bit 21 "combined" (a grapheme cluster), bits 22–23 width. */
const KIND_SHIFT = 21;
/** The kind of an ordinary cell: width 1, not combined. */
const PLAIN_KIND = 2;
const COMBINED_FLAG = 1 << 21;
/** bg bit: the cell has extended attributes (underline style/colour, hyperlink). */
const HAS_EXTENDED = 0x10000000;
const WORDS_PER_CELL = 3;
/** Style runs are stored as five 16-bit units: end cell, fg low/high, bg low/high. */
const RUN_UNITS = 5;

/** Side tables of a row, only for rows that have them. */
interface RowExtras {
  combined?: Record<number, string>;
  extended?: Record<number, unknown>;
}

export class CompactRow {
  constructor(
    /** One UTF-16 unit per cell: the cell's code point (0 for an empty cell). '' when `raw`. */
    readonly chars: string,
    /** Per cell, content >>> 21 (width and combined flag); null when every cell is plain. */
    readonly kinds: string | null,
    /** Style runs (see RUN_UNITS); null when every stored cell has default colours and attributes. */
    readonly styles: string | null,
    /** The cells' raw words, for rows `chars` cannot hold. */
    readonly raw: Uint32Array | null,
    readonly extras: RowExtras | null,
    /** The row continues the one above it (a soft wrap). */
    readonly wrapped: boolean,
  ) {}

  /** Cells stored (trailing default blanks are not). */
  get cells(): number {
    return this.raw ? this.raw.length / WORDS_PER_CELL : this.chars.length;
  }
}

/** Reused between calls: encoding runs once per scrolled row during a flood. */
let codes = new Uint16Array(256);
let bytes = Buffer.allocUnsafeSlow(256);
let kinds = new Uint16Array(256);
const runs: number[] = [];

function fromUnits(units: Uint16Array | number[], n: number): string {
  // apply() takes array-likes; chunked so a very wide row never overflows the argument limit.
  const CHUNK = 8192;
  if (n <= CHUNK) return String.fromCharCode.apply(null, (units instanceof Uint16Array ? units.subarray(0, n) : units.slice(0, n)) as unknown as number[]);
  let out = '';
  for (let i = 0; i < n; i += CHUNK) out += fromUnits(units instanceof Uint16Array ? units.subarray(i, Math.min(n, i + CHUNK)) : units.slice(i, Math.min(n, i + CHUNK)), Math.min(CHUNK, n - i));
  return out;
}

/** Number of cells up to the last one that is not a default blank. */
function storedCells(data: Uint32Array, length: number): number {
  let n = length;
  while (n > 0) {
    const i = (n - 1) * WORDS_PER_CELL;
    if (data[i] !== BLANK_CONTENT || data[i + 1] !== 0 || data[i + 2] !== 0) break;
    n--;
  }
  return n;
}

function pushRun(end: number, fg: number, bg: number): void {
  runs.push(end, fg & 0xffff, fg >>> 16, bg & 0xffff, bg >>> 16);
}

/** The compact form of an xterm row. */
export function encodeRow(line: CoreBufferLine): CompactRow {
  const data = line._data;
  const n = storedCells(data, Math.min(line.length, data.length / WORDS_PER_CELL));
  if (codes.length < n) {
    codes = new Uint16Array(n * 2);
    kinds = new Uint16Array(n * 2);
    bytes = Buffer.allocUnsafeSlow(n * 2);
  }
  runs.length = 0;
  let plain = true;
  let narrow = true;
  let rawNeeded = false;
  let styled = false;
  let extras: RowExtras | null = null;
  let anyExtended = false;
  let fg = 0;
  let bg = 0;
  for (let x = 0, i = 0; x < n; x++, i += WORDS_PER_CELL) {
    const content = data[i]!;
    const cp = content & CODEPOINT_MASK;
    const kind = content >>> KIND_SHIFT;
    if (cp >= 0xd800 && (cp < 0xe000 || cp > 0xffff)) rawNeeded = true;
    codes[x] = cp;
    bytes[x] = cp;
    if (cp > 0xff) narrow = false;
    kinds[x] = kind;
    if (kind !== PLAIN_KIND) {
      plain = false;
      if (content & COMBINED_FLAG) {
        extras ??= {};
        (extras.combined ??= {})[x] = line._combined[x] ?? '';
      }
    }
    const f = data[i + 1]!;
    const b = data[i + 2]!;
    if (b & HAS_EXTENDED) anyExtended = true;
    if (f !== fg || b !== bg) {
      if (x > 0) pushRun(x, fg, bg);
      fg = f;
      bg = b;
      styled ||= f !== 0 || b !== 0;
    }
  }
  if (n > 0 && (fg !== 0 || bg !== 0 || runs.length > 0)) pushRun(n, fg, bg);
  if (anyExtended) {
    for (const key in line._extendedAttrs) {
      if (Number(key) >= n) continue;
      extras ??= {};
      (extras.extended ??= {})[Number(key)] = line._extendedAttrs[Number(key)];
    }
  }
  // Run ends are 16-bit units; a row that wide (never, in practice) keeps its raw words.
  if (n > 0xffff) rawNeeded = true;
  // slice: a row kept raw owns its words (a view would pin a whole chunk of copies).
  if (rawNeeded) return new CompactRow('', null, null, data.slice(0, n * WORDS_PER_CELL), extras, line.isWrapped);
  // Latin-1 text (most rows) is built natively as a one-byte string.
  const chars = narrow ? bytes.toString('latin1', 0, n) : fromUnits(codes, n);
  return new CompactRow(chars, plain ? null : fromUnits(kinds, n), styled ? fromUnits(runs, runs.length) : null, null, extras, line.isWrapped);
}

/** The blank row template, grown on demand: BLANK_CONTENT, 0, 0 per cell. */
let blank = new Uint32Array(0);

function blankWords(cells: number): Uint32Array {
  if (blank.length < cells * WORDS_PER_CELL) {
    blank = new Uint32Array(cells * 2 * WORDS_PER_CELL);
    for (let i = 0; i < blank.length; i += WORDS_PER_CELL) blank[i] = BLANK_CONTENT;
  }
  return blank.subarray(0, cells * WORDS_PER_CELL);
}

/** Rebuilds the xterm row in `line` (whose `_data` has room for at least `row.cells` cells). */
export function decodeRowInto(row: CompactRow, line: CoreBufferLine): void {
  const data = line._data;
  data.set(blankWords(line.length));
  line.isWrapped = row.wrapped;
  line._combined = row.extras?.combined ? { ...row.extras.combined } : {};
  line._extendedAttrs = row.extras?.extended ? { ...row.extras.extended } : {};
  if (row.raw) {
    data.set(row.raw);
    return;
  }
  const { chars, kinds: k, styles } = row;
  const n = chars.length;
  for (let x = 0, i = 0; x < n; x++, i += WORDS_PER_CELL) {
    const kind = k === null ? PLAIN_KIND : k.charCodeAt(x);
    data[i] = ((kind << KIND_SHIFT) | chars.charCodeAt(x)) >>> 0;
    data[i + 1] = 0;
    data[i + 2] = 0;
  }
  if (styles === null) return;
  let x = 0;
  for (let r = 0; r < styles.length; r += RUN_UNITS) {
    const end = styles.charCodeAt(r);
    const f = (styles.charCodeAt(r + 1) | (styles.charCodeAt(r + 2) << 16)) >>> 0;
    const b = (styles.charCodeAt(r + 3) | (styles.charCodeAt(r + 4) << 16)) >>> 0;
    for (; x < end; x++) {
      data[x * WORDS_PER_CELL + 1] = f;
      data[x * WORDS_PER_CELL + 2] = b;
    }
  }
}

/** Bytes a row costs, roughly (for the memory figures in docs/bench.md and tests). */
export function rowBytes(row: CompactRow): number {
  const OBJECT = 64;
  const STRING = 16;
  let bytes = OBJECT + STRING + row.chars.length;
  if (row.kinds) bytes += STRING + row.kinds.length;
  if (row.styles) bytes += STRING + row.styles.length * 2;
  if (row.raw) bytes += 64 + row.raw.byteLength;
  return bytes;
}
