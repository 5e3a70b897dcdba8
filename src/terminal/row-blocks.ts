/**
 * The encoded part of a pane's store: `CompactRow`s in blocks of `BLOCK_ROWS`. Only the newest
 * block holds row objects; a full block is packed (row-codec.ts) and compressed with raw
 * deflate into one buffer, because an object and a string per row cost ~150 bytes on the heap
 * for a 70-character line (20 panes × 10,000 rows: ~30 MB) while a compressed block of such
 * rows costs ~15 bytes a row. Reads inflate a block back into rows, keeping the last two
 * blocks read, so a read of consecutive rows (search, copy mode, `pane.read`) inflates each
 * block once.
 *
 * Rows are numbered 0 … length - 1 from the oldest; dropping the oldest rows moves the start
 * inside the first block and frees a block once all its rows are gone.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import type { CompactRow } from './compact-row.js';
import { rowBytes } from './compact-row.js';
import { packRows, packable, unpackRows } from './row-codec.js';

export const BLOCK_ROWS = 256;

/** A full block: its rows packed and compressed, plus the rows the bytes cannot hold. */
interface SealedBlock {
  /** The compressed bytes as a Latin-1 string (see seal). */
  readonly data: string;
  readonly kept: Map<number, CompactRow> | null;
  readonly shape: BlockShape;
}

/** What a resize needs to know of a block's rows without unpacking them (Scrollback.restoreRows). */
export interface BlockShape {
  /** The widest row's stored cells. */
  readonly maxCells: number;
  /** Some row continues the one above it. */
  readonly anyWrapped: boolean;
  /** The first row (of those left) continues the one above it. */
  readonly firstWrapped: boolean;
}

function shapeOf(rows: readonly CompactRow[], from = 0): BlockShape {
  let maxCells = 0;
  let anyWrapped = false;
  for (let i = from; i < rows.length; i++) {
    maxCells = Math.max(maxCells, rows[i]!.cells);
    anyWrapped ||= rows[i]!.wrapped;
  }
  return { maxCells, anyWrapped, firstWrapped: rows[from]?.wrapped ?? false };
}

type Block = SealedBlock | CompactRow[];

/** Fast and still ~5× smaller on terminal text; level 9 saves a few percent for 2–3× the time. */
const DEFLATE_LEVEL = 1;
const CACHED_BLOCKS = 2;

function seal(rows: CompactRow[]): SealedBlock {
  let kept: Map<number, CompactRow> | null = null;
  rows.forEach((row, i) => {
    if (!packable(row)) (kept ??= new Map()).set(i, row);
  });
  // Kept as a one-byte string, on V8's heap, rather than as a Buffer (malloc'd): a Buffer from
  // zlib pins its 16 KB output chunk (20 panes: +12 MB), and thousands of small long-lived C
  // allocations among a flood's large transient ones (the raw rings) keep the allocator from
  // returning the flood's memory to the system.
  return { data: deflateRawSync(packRows(rows), { level: DEFLATE_LEVEL }).toString('latin1'), kept, shape: shapeOf(rows) };
}

function unseal(block: SealedBlock, rows: number): CompactRow[] {
  return unpackRows(inflateRawSync(Buffer.from(block.data, 'latin1')), rows, (i) => block.kept!.get(i)!);
}

export class RowBlocks {
  private blocks: Block[] = [];
  /** Rows already dropped from the front of blocks[0]. */
  private skip = 0;
  private count = 0;
  /** The blocks read last, newest first. */
  private cache: Array<{ block: SealedBlock; rows: CompactRow[] }> = [];

  constructor(
    /** Rows per block (small in tests, to cross block boundaries). */
    private readonly blockRows = BLOCK_ROWS,
  ) {}

  get length(): number {
    return this.count;
  }

  get(i: number): CompactRow | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const j = this.skip + i;
    const block = this.blocks[Math.floor(j / this.blockRows)]!;
    const k = j % this.blockRows;
    return Array.isArray(block) ? block[k] : this.rowsOf(block)[k];
  }

  /**
   * Rows `i … end - 1` are the rest of row i's block; `shape` covers them (a sealed block's
   * covers its rows already dropped too, so it may be wider than the rows left, and its
   * `firstWrapped` is its first row's, dropped or not: ask only of a block that starts at `i`).
   */
  blockAt(i: number): { end: number; shape: BlockShape } | undefined {
    if (i < 0 || i >= this.count) return undefined;
    const j = this.skip + i;
    const index = Math.floor(j / this.blockRows);
    const block = this.blocks[index]!;
    const end = Math.min(this.count, (index + 1) * this.blockRows - this.skip);
    return { end, shape: Array.isArray(block) ? shapeOf(block, j % this.blockRows) : block.shape };
  }

  push(row: CompactRow): void {
    let last = this.blocks.at(-1);
    if (!Array.isArray(last)) {
      last = [];
      this.blocks.push(last);
    }
    last.push(row);
    this.count++;
    if (last.length === this.blockRows) this.blocks[this.blocks.length - 1] = seal(last);
  }

  /**
   * Drops the `n` oldest rows. Runs once per row a full pane scrolls out, through a flood, and
   * while a flood lasts the rows are still raw (RawRows) and this part is empty: dropping
   * nothing must cost nothing, not even the fresh arrays `clear` would make (a quarter of a
   * flood's garbage, bench/profile/flood-alloc.mjs). A block freed goes with a `shift`, not a
   * `splice` (which returns a new array of what it removed).
   */
  dropFront(n: number): void {
    n = Math.min(n, this.count);
    if (n <= 0) return;
    this.count -= n;
    if (this.count === 0) return this.clear();
    this.skip += n;
    while (this.skip >= this.blockRows) {
      this.forget(this.blocks.shift()!);
      this.skip -= this.blockRows;
    }
  }

  /** Drops the `n` newest rows. */
  dropBack(n: number): void {
    n = Math.min(n, this.count);
    if (n === 0) return;
    this.count -= n;
    if (this.count === 0) return this.clear();
    const end = this.skip + this.count;
    const lastIndex = Math.floor((end - 1) / this.blockRows);
    for (const block of this.blocks.splice(lastIndex + 1)) this.forget(block);
    const last = this.blocks[lastIndex]!;
    // A block left full stays as it is (only the newest block may be open, and never full).
    if (end - lastIndex * this.blockRows === this.blockRows) return;
    const rows = Array.isArray(last) ? last : this.rowsOf(last).slice();
    if (!Array.isArray(last)) this.forget(last);
    rows.length = end - lastIndex * this.blockRows;
    this.blocks[lastIndex] = rows;
  }

  clear(): void {
    // Emptied in place: new arrays here were garbage made on every call.
    this.blocks.length = 0;
    this.skip = 0;
    this.count = 0;
    this.cache.length = 0;
  }

  /** Approximate bytes held. */
  bytes(): number {
    const BLOCK_OVERHEAD = 96;
    let total = 0;
    for (const block of this.blocks) {
      if (Array.isArray(block)) for (const row of block) total += rowBytes(row);
      else {
        total += BLOCK_OVERHEAD + block.data.length;
        for (const row of block.kept?.values() ?? []) total += rowBytes(row);
      }
    }
    return total;
  }

  private rowsOf(block: SealedBlock): CompactRow[] {
    const hit = this.cache.find((c) => c.block === block);
    if (hit) return hit.rows;
    const rows = unseal(block, this.blockRows);
    this.cache.unshift({ block, rows });
    this.cache.length = Math.min(this.cache.length, CACHED_BLOCKS);
    return rows;
  }

  private forget(block: Block): void {
    if (Array.isArray(block)) return;
    const at = this.cache.findIndex((c) => c.block === block);
    if (at !== -1) this.cache.splice(at, 1);
  }
}
