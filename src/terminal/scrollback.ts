/**
 * One pane's rows, scrollback and screen, behind one interface: `normal` reads like xterm's
 * normal buffer (`length`, `baseY`, `getLine`, …), whether a row still lives in xterm or was
 * moved to the pane's compact store. Every read source, search, `endLine` and copy mode
 * (its view and search) read through it, so none of them can tell where a row lives.
 *
 * Why: xterm keeps 12 bytes for every cell of every scrollback row (a 160-column row costs
 * 1.9 KB however short its text), so 10,000 rows of scrollback cost ~19 MB per pane. With the
 * compact store on, xterm keeps only a window of `window` rows above the screen; older rows
 * move, as they scroll out, into a `RowStore` of `CompactRow`s (text plus style runs, trailing
 * blanks dropped), bounded so that the two together hold exactly the `scrollback_lines` rows
 * xterm would have held alone.
 *
 * Moving rows out: xterm overwrites the row it trims (its ring reuses the row object) before
 * it says anything, so a row is copied *before* it can be trimmed. Scrolling is the only thing
 * that trims a full buffer outside of resizes and clears, and it trims one row per scroll event
 * — the top one — so after every scroll of a full buffer the current top row, which the next
 * scroll will trim, is copied (a "shadow" copy: it counts as xterm's until xterm drops it;
 * scrollback rows never change in place). Clearing the scrollback (`CSI 3 J`) and a full reset
 * empty the store too.
 *
 * Positions xterm keeps as indexes into its rows must mean what they would mean in xterm
 * alone: the saved cursor row (`savedY`, which `CSI ? 1049 l` and DECRC restore relative to
 * the top of the screen) is kept shifted by the rows the store holds.
 *
 * A resize puts the store's rows back into xterm, so xterm reflows and trims exactly the rows
 * it would hold alone (same rows, same limit, same cursor and saved cursor), then moves the
 * rows beyond the window out again; rows a reflow leaves as they were keep their encoding.
 *
 * If xterm's internals are not the expected shape, xterm keeps the whole scrollback as before.
 */
import type { IBuffer, IBufferLine, Terminal as XTerminal } from '@xterm/headless';
import type { Disposable } from '../contract/disposable.js';
import { CompactRow, decodeRowInto, encodeRow } from './compact-row.js';
import { TrimmedLineCounter } from './line-counter.js';
import { RowStore } from './row-store.js';
import { scrollbackInternals, type CoreBuffer, type CoreBufferLine, type CoreLines, type ScrollbackInternals } from './xterm-internals.js';

/** What reads need of a buffer; xterm's IBuffer has it, and so does the spanning view. */
export type LineBuffer = Pick<IBuffer, 'type' | 'length' | 'baseY' | 'viewportY' | 'cursorX' | 'cursorY' | 'getLine' | 'getNullCell'>;

/**
 * Rows xterm keeps above the screen when the compact store is on. Reads of the last 80 rows
 * (the `recent` default) and copy mode's first pages stay in xterm; at 160 columns
 * this window costs ~380 KB per pane that ever scrolled.
 */
export const SCROLLBACK_WINDOW = 200;

export interface ScrollbackOptions {
  /** `scrollback_lines`: rows kept above the screen in all. */
  scrollback: number;
  /** Move older rows to the compact store (default true). Off: xterm keeps them all. */
  compact?: boolean;
  /** Rows xterm keeps above the screen when compact (default SCROLLBACK_WINDOW). */
  window?: number;
}

function windowOf(options: ScrollbackOptions): number {
  return Math.max(1, options.window ?? SCROLLBACK_WINDOW);
}

function compactWanted(options: ScrollbackOptions): boolean {
  return (options.compact ?? true) && options.scrollback > windowOf(options);
}

/** The `scrollback` option to create xterm with. */
export function xtermScrollbackFor(options: ScrollbackOptions): number {
  return compactWanted(options) ? windowOf(options) : options.scrollback;
}

/**
 * Rows are copied raw as they scroll out and encoded once the pane has written nothing for
 * this long, in slices, so a flood pays one native copy per row and the encoding only for rows
 * still kept when it ends.
 */
export const COMPACT_TIMING = { quietMs: 150, sliceRows: 2000 } as const;

/** A resize that left the stored rows where they are (see Scrollback.makeRoomForRows). */
const ROWS_KEPT = 'kept';

/** `CSI 3 J` / `CSI ? 3 J`: erase the scrollback. */
const ERASE_SCROLLBACK = 3;

export interface ScrollbackStats {
  compact: boolean;
  /** Rows in the compact store (older than xterm's window). */
  storedRows: number;
  /** Of those, rows still raw (copied, not yet encoded: the pane has not been quiet yet). */
  rawRows: number;
  /** Approximate bytes those rows cost. */
  storedBytes: number;
  /** Rows xterm trimmed before they could be copied (always 0 unless xterm changed behaviour). */
  missedRows: number;
}

export class Scrollback implements Disposable {
  /** The normal buffer, compact store included (see LineBuffer). */
  readonly normal: LineBuffer;
  private readonly internals: ScrollbackInternals | undefined;
  private readonly compact: boolean;
  private readonly window: number;
  /** Rows the store may hold that xterm no longer does. */
  private readonly storeRows: number;
  private readonly store: RowStore;
  private readonly buffers: XTerminal['buffer'];
  private readonly subscriptions: Disposable[] = [];
  private readonly fallbackCounter: TrimmedLineCounter | undefined;
  private buffer: CoreBuffer | undefined;
  private lines: CoreLines | undefined;
  /** `liveRows()` as of the last shift of xterm's saved cursor row (see keepSavedCursor). */
  private live = 0;
  /** A resize is moving rows between xterm and the store: trims are only counted. */
  private resizing = false;
  /**
   * During a width change, the stored rows restoreRows unpacked and sent back as stand-ins, by
   * number: refill needs those the reflow spills again, and reading them from the store would
   * unpack every block a second time.
   */
  private unpackedStandIns = new Map<number, CompactRow>();
  private trimSubscription: Disposable | undefined;
  /** Rows xterm trimmed from the top of its normal buffer since the pane started. */
  private evicted = 0;
  private _scrolls = 0;
  private missed = 0;
  /** Raw copies made so far; the encoder waits until this stops moving. */
  private copies = 0;
  private compactTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly xterm: XTerminal,
    options: ScrollbackOptions,
  ) {
    this.buffers = xterm.buffer;
    this.window = windowOf(options);
    this.storeRows = Math.max(0, options.scrollback - this.window);
    // One more than storeRows: the shadow copy of xterm's top row.
    this.store = new RowStore(this.storeRows + 1);
    this.internals = scrollbackInternals(xterm);
    this.compact = compactWanted(options) && this.internals !== undefined;
    if (compactWanted(options) && !this.compact) xterm.options.scrollback = options.scrollback;
    if (this.internals) this.attach(this.internals.normalBuffer());
    else this.fallbackCounter = new TrimmedLineCounter(xterm);
    this.normal = this.spanningView();
    this.subscriptions.push(
      // One event per scrolled row: counted here once for the whole terminal (damage.ts reads it).
      xterm.onScroll(() => {
        this._scrolls++;
        if (this.compact) this.capture();
      }),
      this.buffers.onBufferChange(() => this.bufferChanged()),
    );
    if (this.compact) {
      const onErase = (params: (number | number[])[]): boolean => {
        if (params[0] === ERASE_SCROLLBACK && this.buffers.active.type === 'normal') this.eraseScrollback();
        return false;
      };
      this.subscriptions.push(
        xterm.parser.registerCsiHandler({ final: 'J' }, onErase),
        xterm.parser.registerCsiHandler({ prefix: '?', final: 'J' }, onErase),
      );
    }
  }

  /** Scroll events seen so far (either buffer), for damage tracking. */
  get scrolls(): number {
    return this._scrolls;
  }

  /** The active buffer: the spanning normal view, or xterm's alternate screen. */
  get active(): LineBuffer {
    return this.buffers.active.type === 'normal' ? this.normal : this.buffers.active;
  }

  /** Absolute number of row 0 of `normal` (rows dropped for good before it). */
  get firstLine(): number {
    if (!this.internals) return this.fallbackCounter!.trimmed;
    return this.evicted - this.liveRows();
  }

  /** Encode every raw row now (tests and benchmarks; normally this happens when the pane is quiet). */
  compactNow(): void {
    this.store.encodeRaw(Infinity);
  }

  stats(): ScrollbackStats {
    return { compact: this.compact, storedRows: this.liveRows(), rawRows: this.store.rawSize, storedBytes: this.store.bytes(), missedRows: this.missed };
  }

  /**
   * Resize exactly as xterm alone would: the store's rows go back into xterm (with xterm's
   * scrollback limit raised to `scrollback_lines`), xterm reflows, trims and moves its cursor
   * and saved cursor over all of them, and the rows beyond the window then move out again.
   *
   * Only rows a reflow to `cols` can change are decoded into real xterm rows: those of lines
   * that wrap, and rows wider than `cols`. Every other stored row goes back as a stand-in that
   * holds no cells (xterm's reflow skips a single-row line that fits, and its resize of a row
   * already `cols` wide does nothing) and keeps its encoding; the few stand-ins xterm keeps
   * (its window and screen) are then decoded. So a resize costs a small object per stored row
   * plus the work on wrapped lines, which xterm alone spends as well.
   */
  resize(cols: number, rows: number): void {
    if (!this.compact) {
      this.xterm.resize(cols, rows);
      return;
    }
    const buffer = this.buffer!;
    // The shadow copy of the top row may no longer match once xterm reflows.
    this.store.dropFrom(this.evicted);
    if (this.store.end < this.evicted) this.trimmed(0);
    this.resizing = true;
    try {
      const standIns = (cols === this.xterm.cols && this.makeRoomForRows(rows)) || this.restoreRows(cols);
      this.xterm.resize(cols, rows);
      const lines = buffer.lines;
      const spill = Math.max(0, lines.length - (rows + this.window));
      if (standIns === ROWS_KEPT) for (let i = 0; i < spill; i++) this.store.push(encodeRow(lines.get(i)!));
      else this.refill(standIns, spill, cols);
      // Back to the window: what xterm does for a smaller `scrollback` option, but without
      // clamping savedY at 0 (it is kept shifted by the rows the store holds, see keepSavedCursor).
      lines.trimStart(spill);
      buffer.ybase -= spill;
      buffer.ydisp = Math.max(0, buffer.ydisp - spill);
      buffer.savedY -= spill;
      this.internals!.setScrollbackQuietly(this.window);
      lines.maxLength = rows + this.window;
      this.live = this.liveRows();
    } finally {
      this.resizing = false;
      this.unpackedStandIns.clear();
    }
    this.capture();
  }

  /**
   * The same resize without moving stored rows, when only the height changes: without a reflow,
   * xterm touches the rows above its screen only to pull the newest down into a taller screen
   * and to trim the oldest when its limit shrinks with the screen. So the store hands xterm just
   * the rows a taller screen may pull down, and drops beforehand the rows xterm alone would trim
   * (counted by replaying its row loop); xterm's limit leaves it nothing to trim itself.
   * Returns undefined when the store cannot give what is needed (then every row goes back).
   */
  private makeRoomForRows(rows: number): typeof ROWS_KEPT | undefined {
    const buffer = this.buffer!;
    const lines = buffer.lines;
    const oldRows = this.xterm.rows;
    let live = this.liveRows();
    if (rows > oldRows) {
      // A taller screen pulls rows down while ybase > 0: give xterm enough that it never runs out first.
      const borrow = Math.min(live, Math.max(0, rows - oldRows - buffer.ybase));
      if (borrow > 0) this.lendRows(borrow);
      live -= borrow;
    } else {
      // Replay xterm's loop for a shorter screen: blank rows below the cursor go, else ybase grows.
      let length = lines.length;
      let ybase = buffer.ybase;
      for (let y = oldRows; y > rows; y--) {
        if (length <= rows + ybase) continue;
        if (length > ybase + buffer.y + 1) length--;
        else ybase++;
      }
      const trim = Math.max(0, live + length - (rows + this.storeRows + this.window));
      if (trim > live) return undefined;
      if (trim > 0) {
        // xterm alone trims its oldest rows and clamps the saved cursor row at 0.
        const saved = buffer.savedY + live;
        this.store.dropBefore(this.store.first + trim);
        live -= trim;
        buffer.savedY = Math.max(0, saved - trim) - live;
      }
    }
    this.internals!.setScrollbackQuietly(this.storeRows + this.window - live);
    lines.maxLength = oldRows + this.storeRows + this.window - live;
    return ROWS_KEPT;
  }

  /** Moves the `count` newest stored rows back into xterm, above its oldest row. */
  private lendRows(count: number): void {
    const buffer = this.buffer!;
    const lines = buffer.lines;
    const from = this.evicted - count;
    this.store.encodeRaw(Infinity);
    const lent: CoreBufferLine[] = [];
    for (let abs = from; abs < this.evicted; abs++) lent.push(this.decode(this.store.rowAt(abs)!, this.xterm.cols));
    const kept: CoreBufferLine[] = [];
    for (let i = 0; i < lines.length; i++) kept.push(lines.get(i)!);
    lines.maxLength = lines.length + count;
    lines.length = 0;
    for (const line of [...lent, ...kept]) lines.push(line);
    buffer.ybase += count;
    buffer.ydisp += count;
    buffer.savedY += count;
    this.store.dropFrom(from);
    this.evicted -= count;
  }

  /**
   * After a resize: the store gets xterm's `spill` oldest rows, and the stand-ins xterm keeps
   * become real rows. The store still holds every stand-in's row (by its old number); the run
   * of spilled stand-ins that are stored rows in their stored order stays where it is (no
   * re-encoding, no re-compressing), the rest is appended after it.
   */
  private refill(standIns: number, spill: number, cols: number): void {
    const lines = this.buffer!.lines;
    const standInOf = (i: number): number | undefined => this.internals!.standInOf(lines.get(i)!);
    for (let i = spill; i < lines.length && standIns > 0; i++) {
      const at = standInOf(i);
      if (at !== undefined) lines.set(i, this.decode(this.store.rowAt(at)!, cols));
    }
    const start = spill > 0 ? standInOf(0) : undefined;
    let run = 0;
    if (start !== undefined) while (run < spill && standInOf(run) === start + run) run++;
    // The rest go in raw, encoded once the pane is quiet (as a flood's rows are): a width change
    // of soft-wrapped output spills thousands of new rows, and encoding and compressing them
    // at once cost the resize several times what xterm's reflow does.
    const rest: (CoreBufferLine | CompactRow)[] = [];
    for (let i = run; i < spill; i++) {
      const at = standInOf(i);
      rest.push(at !== undefined ? (this.unpackedStandIns.get(at) ?? this.store.rowAt(at)!) : lines.get(i)!);
    }
    this.unpackedStandIns.clear();
    // Rows xterm trimmed while reflowing are gone, as they would be from xterm alone.
    if (start === undefined) this.store.reset(this.evicted);
    else {
      this.store.dropBefore(start);
      this.store.dropFrom(start + run);
      this.store.renumber(this.evicted);
    }
    if (rest.length === 0) return;
    // xterm lets go of its spilled rows (trimStart, then its ring is rebuilt for the new limit):
    // the store keeps the objects themselves, no copy. A stored row no reflow changed, among
    // rows one did, goes in the same way (decoded), to keep the order.
    for (const row of rest) this.store.adopt(row instanceof CompactRow ? this.decode(row, cols) : row);
    this.scheduleEncoding();
  }

  /**
   * Puts every stored row back at the top of xterm's rows, with room for as many rows as xterm
   * alone would keep, and shifts xterm's positions to match. Rows a reflow to `cols` leaves as
   * they are go back as stand-ins (each knows its row's number in the store); returns how many.
   */
  private restoreRows(cols: number): number {
    const buffer = this.buffer!;
    // xterm's limit without the store, so the resize trims what it would trim alone.
    this.internals!.setScrollbackQuietly(this.storeRows + this.window);
    buffer.lines.maxLength = this.xterm.rows + this.storeRows + this.window;
    let standIns = 0;
    const count = this.liveRows();
    if (count === 0) {
      this.store.reset(this.evicted);
      return 0;
    }
    const lines = buffer.lines;
    const kept: CoreBufferLine[] = [];
    for (let i = 0; i < lines.length; i++) kept.push(lines.get(i)!);
    lines.length = 0;
    const first = this.store.first;
    const end = first + count;
    // Rows still raw (a flood, or the previous resize, not yet encoded) go back as real rows
    // straight from their words: never encoded just to be decoded again.
    const encodedEnd = Math.min(end, this.store.encodedEnd);
    const sameWidth = cols === this.xterm.cols;
    const wrappedAt = (abs: number): boolean => (abs < end ? this.store.wrappedAt(abs)! : (kept[0]?.isWrapped ?? false));
    const standIn = (abs: number): void => {
      lines.push(this.internals!.standIn(cols, abs));
      standIns++;
    };
    for (let abs = first; abs < encodedEnd; ) {
      const block = this.store.blockAt(abs)!;
      const blockEnd = Math.min(block.end, encodedEnd);
      if (sameWidth) {
        for (; abs < blockEnd; abs++) standIn(abs);
        continue;
      }
      // A block whose rows all fit and none wraps: stand-ins without unpacking it (its last row
      // too, unless the row after it wraps).
      if (!block.shape.anyWrapped && block.shape.maxCells <= cols) {
        const nextWrapped = blockEnd < encodedEnd ? this.store.blockAt(blockEnd)!.shape.firstWrapped : wrappedAt(blockEnd);
        for (; abs < blockEnd - (nextWrapped ? 1 : 0); abs++) standIn(abs);
      }
      for (; abs < blockEnd; abs++) {
        const row = this.store.rowAt(abs)!;
        if (!row.wrapped && !wrappedAt(abs + 1) && row.cells <= cols) {
          standIn(abs);
          this.unpackedStandIns.set(abs, row);
        } else lines.push(this.decode(row, this.xterm.cols));
      }
    }
    for (let abs = encodedEnd; abs < end; abs++) {
      // An adopted row goes back whole: it left xterm at this width (refill) and is xterm's again;
      // the store drops its raw rows in refill and never reads them meanwhile.
      lines.push(this.store.adoptedAt(abs) ?? this.store.readInto(abs, this.internals!.newLine, this.xterm.cols)!);
    }
    for (const line of kept) lines.push(line);
    buffer.ybase += count;
    buffer.ydisp += count;
    buffer.savedY += count;
    // The store keeps its rows (read back by number in refill) but counts none as its own.
    this.evicted -= count;
    this.live = 0;
    return standIns;
  }

  /** A real xterm row holding `row`, at least `cols` cells wide. */
  private decode(row: CompactRow, cols: number): CoreBufferLine {
    const line = this.internals!.newLine(Math.max(cols, row.cells));
    decodeRowInto(row, line);
    return line;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.trimSubscription?.dispose();
    clearTimeout(this.compactTimer);
    this.fallbackCounter?.dispose();
    this.store.reset(0);
  }

  /** Store rows that xterm no longer holds (the shadow copy of its top row is not one). */
  private liveRows(): number {
    if (!this.compact) return 0;
    return Math.max(0, Math.min(this.store.size, this.evicted - this.store.first));
  }

  private attach(buffer: CoreBuffer): void {
    this.trimSubscription?.dispose();
    this.buffer = buffer;
    this.lines = buffer.lines;
    this.trimSubscription = buffer.lines.onTrim((amount) => this.trimmed(amount));
  }

  private trimmed(amount: number): void {
    this.evicted += amount;
    if (!this.compact || this.resizing) return;
    if (this.store.end < this.evicted) {
      // Never expected (see the file comment); keep the numbering, count what was lost.
      this.missed += this.evicted - this.store.end;
      this.store.padTo(this.evicted, this.storeRows);
    }
    this.store.dropBefore(this.evicted - this.storeRows);
    this.keepSavedCursor();
  }

  /**
   * xterm keeps the saved cursor row as an index into its own rows (`ybase + y` when saved)
   * and restores it as `savedY - ybase`; it does not move it when it trims a row. xterm alone
   * would still hold the rows the store took, so its index would be larger by their number:
   * shift it by every change in that number, so a restore lands where xterm alone puts it.
   */
  private keepSavedCursor(): void {
    const live = this.liveRows();
    if (live === this.live) return;
    this.buffer!.savedY -= live - this.live;
    this.live = live;
  }

  /** After a scroll: copy the row the next scroll of a full buffer will trim. */
  private capture(): void {
    const lines = this.lines!;
    if (lines.length < lines.maxLength) return;
    const top = this.evicted;
    if (this.store.end > top) return;
    if (this.store.end < top) this.trimmed(0);
    const line = lines.get(0);
    if (!line) return;
    this.store.pushCopy(line);
    this.scheduleEncoding();
  }

  private scheduleEncoding(): void {
    this.copies++;
    if (this.compactTimer) return;
    let seen = this.copies;
    const tick = (): void => {
      this.compactTimer = undefined;
      if (this.copies !== seen) {
        // Still scrolling: wait for a quiet spell.
        seen = this.copies;
        this.compactTimer = setTimeout(tick, COMPACT_TIMING.quietMs);
      } else if (!this.store.encodeRaw(COMPACT_TIMING.sliceRows)) {
        this.compactTimer = setTimeout(tick, 0);
      }
      this.compactTimer?.unref?.();
    };
    this.compactTimer = setTimeout(tick, COMPACT_TIMING.quietMs);
    this.compactTimer.unref?.();
  }

  /** `CSI 3 J` is about to trim every row above the screen: the store goes too. */
  private eraseScrollback(): void {
    const trimming = Math.max(0, this.lines!.length - this.xterm.rows);
    this.store.reset(this.evicted + trimming);
    this.keepSavedCursor();
  }

  private bufferChanged(): void {
    if (!this.internals) return;
    const buffer = this.internals.normalBuffer();
    if (buffer.lines === this.lines) return;
    // A full reset (RIS) replaced the buffers: nothing from before can be read any more. Its
    // rows count as gone, so numbering goes on from where the old buffer ended.
    this.evicted += this.lines?.length ?? 0;
    this.attach(buffer);
    this.store.reset(this.evicted);
    // The new buffer's saved cursor is fresh, as it is in xterm alone.
    this.live = 0;
  }

  private spanningView(): LineBuffer {
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const xb = (): IBuffer => this.buffers.normal;
    return {
      type: 'normal',
      get length() {
        return self.liveRows() + xb().length;
      },
      get baseY() {
        return self.liveRows() + xb().baseY;
      },
      get viewportY() {
        return self.liveRows() + xb().viewportY;
      },
      get cursorX() {
        return xb().cursorX;
      },
      get cursorY() {
        return xb().cursorY;
      },
      getLine(y: number): IBufferLine | undefined {
        const live = self.liveRows();
        if (y >= live) return xb().getLine(y - live);
        if (y < 0) return undefined;
        const line = self.store.readInto(self.store.first + y, self.internals!.newLine, self.xterm.cols);
        return line && self.internals!.view(line);
      },
      getNullCell: () => xb().getNullCell(),
    };
  }
}
