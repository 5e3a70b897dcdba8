/**
 * The compact rows of one pane's older scrollback, in a ring, numbered by absolute row
 * (the same numbers `endLine` uses): rows `first … end - 1`. Appending and dropping the
 * oldest row are O(1), so a flood costs the same per row however full the store is.
 */
import { CompactRow } from './compact-row.js';

/** The row kept for one that was lost (it cannot happen, but numbering must survive it). */
const EMPTY_ROW = new CompactRow('', null, null, null, null, false);

export class RowStore {
  private ring: Array<CompactRow | undefined> = new Array(16);
  private head = 0;
  private count = 0;
  private _first = 0;

  /** Absolute number of the oldest stored row. */
  get first(): number {
    return this._first;
  }

  /** Absolute number one past the newest stored row. */
  get end(): number {
    return this._first + this.count;
  }

  get size(): number {
    return this.count;
  }

  /** The row with absolute number `abs`, or undefined outside `first … end - 1`. */
  get(abs: number): CompactRow | undefined {
    const i = abs - this._first;
    if (i < 0 || i >= this.count) return undefined;
    return this.ring[(this.head + i) % this.ring.length];
  }

  /** Appends the row numbered `end`. */
  push(row: CompactRow): void {
    if (this.count === this.ring.length) this.grow();
    this.ring[(this.head + this.count) % this.ring.length] = row;
    this.count++;
  }

  /** Appends empty rows so the store ends at `abs` (rows that were never seen). */
  padTo(abs: number, maxRows: number): void {
    if (abs - this.end > maxRows) this.reset(abs - maxRows);
    while (this.end < abs) this.push(EMPTY_ROW);
  }

  /** Drops rows numbered below `abs`. */
  dropBefore(abs: number): void {
    let drop = Math.min(this.count, abs - this._first);
    if (drop <= 0) return;
    this._first += drop;
    this.count -= drop;
    while (drop-- > 0) {
      this.ring[this.head] = undefined;
      this.head = (this.head + 1) % this.ring.length;
    }
    if (this.count === 0) this.head = 0;
  }

  /** Drops rows numbered `abs` and above. */
  dropFrom(abs: number): void {
    const keep = Math.max(0, abs - this._first);
    while (this.count > keep) {
      this.count--;
      this.ring[(this.head + this.count) % this.ring.length] = undefined;
    }
  }

  /** Empties the store; the next row appended is numbered `abs`. */
  reset(abs: number): void {
    this.ring = new Array(16);
    this.head = 0;
    this.count = 0;
    this._first = abs;
  }

  /** Every stored row, oldest first (for measuring). */
  *rows(): Iterable<CompactRow> {
    for (let i = 0; i < this.count; i++) yield this.ring[(this.head + i) % this.ring.length]!;
  }

  private grow(): void {
    const next = new Array<CompactRow | undefined>(this.ring.length * 2);
    for (let i = 0; i < this.count; i++) next[i] = this.ring[(this.head + i) % this.ring.length];
    this.ring = next;
    this.head = 0;
  }
}
