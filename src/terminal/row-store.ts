/**
 * One pane's older scrollback, numbered by absolute row (the numbers `endLine` uses): rows
 * `first … end - 1`. The older part is `CompactRow`s, packed and compressed by blocks
 * (`RowBlocks`); the newest part is rows just copied out of xterm, still raw (`RawRows`), until
 * `encodeRaw` encodes them (when the pane is quiet). Appending and dropping the oldest row are O(1), so a flood costs the same per row
 * however full the store is.
 */
import { CompactRow, decodeRowInto, encodeRow } from './compact-row.js';
import { BLOCK_ROWS, RowBlocks, type BlockShape } from './row-blocks.js';
import { RawRows, rawRowBytes } from './raw-rows.js';
import type { CoreBufferLine } from './xterm-internals.js';

/**
 * Raw rows are the cheapest way to take a flood (a copy each), but a row of 160 columns is
 * 1,920 bytes raw against ~100 encoded. One pane's flood fills its ring to `scrollback_lines`
 * rows (19 MB at 160 columns) and encodes them once it is quiet; twenty panes flooding at once
 * held 380 MB raw. When the other panes' rings together hold more than this budget, a pane
 * encodes its oldest raw row for each new one (beyond its newest `minRows`), so no ring grows
 * further: the floods then pay the encoding as they go (~µs a row) instead of the memory. A
 * pane never counts its own ring, so one pane's flood, however wide, never pays.
 */
export const RAW_BUDGET = { bytes: 32 * 1024 * 1024, minRows: 512 } as const;

/** The row kept for one that was lost (it cannot happen, but numbering must survive it). */
const EMPTY_ROW = new CompactRow('', null, null, null, null, false);

export class RowStore {
  /** Encoded rows (the older part). */
  private encoded: RowBlocks;
  private _first = 0;
  private raw: RawRows;

  constructor(
    /** Rows the store will ever hold at once (bounds the raw ring). */
    private readonly maxRows: number,
    /** Rows per encoded block (small in tests, to cross block boundaries). */
    blockRows = BLOCK_ROWS,
    /** Above `bytes` of raw rows in the process, rows beyond this pane's newest `minRows` are encoded as they come. */
    private readonly budget: { bytes: number; minRows: number } = RAW_BUDGET,
  ) {
    this.encoded = new RowBlocks(blockRows);
    this.raw = new RawRows(Math.max(1, maxRows));
  }

  /** Copies `line` in raw, as the newest row (encoding it at once if it does not fit a slot). */
  pushCopy(line: CoreBufferLine): void {
    if (this.raw.push(line)) {
      if (this.raw.size > this.budget.minRows && rawRowBytes() - this.raw.bytes > this.budget.bytes) this.encodeRaw(1);
      return;
    }
    this.encodeRaw(Infinity);
    this.push(encodeRow(line));
  }

  /** Keeps `line` itself as the newest raw row (see RawRows.adopt): the caller lets go of it. */
  adopt(line: CoreBufferLine): void {
    if (this.raw.adopt(line)) return;
    this.encodeRaw(Infinity);
    this.push(encodeRow(line));
  }

  /** Raw row `abs` when it was adopted: the row object itself (to hand back whole). */
  adoptedAt(abs: number): CoreBufferLine | undefined {
    return this.raw.adoptedLine(abs - this._first - this.count);
  }

  /** Rows still raw. */
  get rawSize(): number {
    return this.raw.size;
  }

  /** Encodes up to `limit` raw rows, oldest first; true when none are left. */
  encodeRaw(limit: number): boolean {
    let n = 0;
    while (this.raw.size > 0 && n < limit) {
      const row = encodeRow(this.raw.line(0)!);
      this.raw.dropFront(1);
      this.append(row);
      n++;
    }
    if (this.raw.size > 0) return false;
    this.raw.clear();
    return true;
  }

  /** Rebuilds row `abs` as an xterm row made by `newLine(cells)`; undefined if not stored. */
  readInto(abs: number, newLine: (cells: number) => CoreBufferLine, minCells: number): CoreBufferLine | undefined {
    const row = this.rowAt(abs);
    if (row) {
      const line = newLine(Math.max(minCells, row.cells));
      decodeRowInto(row, line);
      return line;
    }
    const raw = this.raw.line(abs - this._first - this.count);
    if (!raw) return undefined;
    const line = newLine(Math.max(minCells, raw.length));
    line._data.fill(0);
    for (let x = 0; x < line.length; x++) line._data[x * 3] = 1 << 22;
    line._data.set(raw._data);
    line.isWrapped = raw.isWrapped;
    line._combined = { ...raw._combined };
    line._extendedAttrs = { ...raw._extendedAttrs };
    return line;
  }

  /** Approximate bytes held. */
  bytes(): number {
    let total = this.encoded.bytes();
    for (let i = 0; i < this.raw.size; i++) total += this.raw.line(i)!._data.byteLength;
    return total;
  }

  /** Absolute number of the oldest stored row. */
  get first(): number {
    return this._first;
  }

  /** Absolute number one past the newest stored row. */
  get end(): number {
    return this._first + this.count + this.raw.size;
  }

  get size(): number {
    return this.count + this.raw.size;
  }

  /** The rest of encoded row `abs`'s block: rows `abs … end - 1`, and their shape. */
  blockAt(abs: number): { end: number; shape: BlockShape } | undefined {
    const block = this.encoded.blockAt(abs - this._first);
    return block && { end: block.end + this._first, shape: block.shape };
  }

  /** The encoded row with absolute number `abs`, or undefined (also while it is still raw). */
  rowAt(abs: number): CompactRow | undefined {
    return this.encoded.get(abs - this._first);
  }

  /** Absolute number one past the newest encoded row (raw rows, if any, start here). */
  get encodedEnd(): number {
    return this._first + this.count;
  }

  /** Whether stored row `abs` (encoded or raw) continues the one above it; undefined if not stored. */
  wrappedAt(abs: number): boolean | undefined {
    const row = this.rowAt(abs);
    if (row) return row.wrapped;
    return this.raw.line(abs - this._first - this.count)?.isWrapped;
  }

  /** Encoded rows. */
  private get count(): number {
    return this.encoded.length;
  }

  /** Appends an encoded row numbered `end` (raw rows are encoded first, to keep the order). */
  push(row: CompactRow): void {
    if (this.raw.size > 0) this.encodeRaw(Infinity);
    this.append(row);
  }

  /** Appends to the encoded part (which ends where the raw part begins). */
  private append(row: CompactRow): void {
    this.encoded.push(row);
  }

  /** Appends empty rows so the store ends at `abs` (rows that were never seen). */
  padTo(abs: number, maxRows: number): void {
    if (abs - this.end > maxRows) this.reset(abs - maxRows);
    while (this.end < abs) this.push(EMPTY_ROW);
  }

  /** Drops rows numbered below `abs`. */
  dropBefore(abs: number): void {
    const total = Math.min(this.size, abs - this._first);
    if (total <= 0) return;
    const drop = Math.min(this.count, total);
    if (total > drop) {
      this.raw.dropFront(total - drop);
      this._first += total - drop;
    }
    this._first += drop;
    this.encoded.dropFront(drop);
  }

  /** Drops rows numbered `abs` and above. */
  dropFrom(abs: number): void {
    const keep = Math.max(0, abs - this._first);
    if (keep < this.size) this.raw.dropBack(Math.min(this.raw.size, this.size - keep));
    if (this.count > keep) this.encoded.dropBack(this.count - keep);
  }

  /** Numbers the rows anew from `abs` (the oldest), keeping them. */
  renumber(abs: number): void {
    this._first = abs;
  }

  /** Empties the store; the next row appended is numbered `abs`. */
  reset(abs: number): void {
    this.raw.clear();
    this.encoded.clear();
    this._first = abs;
  }
}
