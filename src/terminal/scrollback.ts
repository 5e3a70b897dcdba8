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
 * empty the store too; a resize lets xterm hold everything while it reflows, then moves the
 * rows beyond the window in their reflowed form. Rows already in the store keep the width they
 * were written at (they are not reflowed; unwrapped reads join them as before).
 *
 * If xterm's internals are not the expected shape, xterm keeps the whole scrollback as before.
 */
import type { IBuffer, IBufferLine, Terminal as XTerminal } from '@xterm/headless';
import type { Disposable } from '../contract/disposable.js';
import { TrimmedLineCounter } from './line-counter.js';
import { RowStore } from './row-store.js';
import { scrollbackInternals, type CoreLines, type ScrollbackInternals } from './xterm-internals.js';

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
  private lines: CoreLines | undefined;
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
    if (this.internals) this.attach(this.internals.normalLines());
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
   * Resize the terminal without losing a row: xterm may trim rows while it reflows, so it gets
   * room for all of them first, and the rows beyond its window then move to the store.
   */
  resize(cols: number, rows: number): void {
    if (!this.compact) {
      this.xterm.resize(cols, rows);
      return;
    }
    const lines = this.lines!;
    // The shadow copy of the top row may no longer match once xterm reflows.
    this.store.dropFrom(this.evicted);
    if (this.store.end < this.evicted) this.trimmed(0);
    const growth = Math.ceil(this.xterm.cols / Math.max(1, cols)) + 1;
    this.xterm.options.scrollback = lines.length * growth + rows;
    this.xterm.resize(cols, rows);
    const spill = lines.length - (rows + this.window);
    for (let i = 0; i < spill; i++) this.store.pushCopy(lines.get(i)!);
    if (spill > 0) this.scheduleEncoding();
    // xterm trims the spilled rows here (onTrim counts them).
    this.xterm.options.scrollback = this.window;
    this.store.dropBefore(this.evicted - this.storeRows);
    this.capture();
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

  private attach(lines: CoreLines): void {
    this.trimSubscription?.dispose();
    this.lines = lines;
    this.trimSubscription = lines.onTrim((amount) => this.trimmed(amount));
  }

  private trimmed(amount: number): void {
    this.evicted += amount;
    if (!this.compact) return;
    if (this.store.end < this.evicted) {
      // Never expected (see the file comment); keep the numbering, count what was lost.
      this.missed += this.evicted - this.store.end;
      this.store.padTo(this.evicted, this.storeRows);
    }
    this.store.dropBefore(this.evicted - this.storeRows);
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
  }

  private bufferChanged(): void {
    if (!this.internals) return;
    const lines = this.internals.normalLines();
    if (lines === this.lines) return;
    // A full reset (RIS) replaced the buffers: nothing from before can be read any more. Its
    // rows count as gone, so numbering goes on from where the old buffer ended.
    this.evicted += this.lines?.length ?? 0;
    this.attach(lines);
    this.store.reset(this.evicted);
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
