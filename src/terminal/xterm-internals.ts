/**
 * A typed view of the few @xterm/headless internals the compact scrollback needs: the normal
 * buffer's ring of rows (to see rows before xterm trims them, to count trims, and to hand rows
 * back for a resize), the positions it keeps as indexes into that ring (screen top, saved
 * cursor), its scrollback limit, and the row classes (to turn a stored row back into a real
 * xterm row, so reads of stored rows run the very code that reads live rows). Everything here
 * is checked when looked up; if xterm's
 * internals ever change shape, `scrollbackInternals` returns undefined and xterm simply keeps
 * the whole scrollback itself, as before.
 */
import type { IBufferLine, Terminal as XTerminal } from '@xterm/headless';
import type { Disposable } from '../contract/disposable.js';

/** xterm's BufferLine: 3 words per cell (content, fg, bg) plus side tables. */
export interface CoreBufferLine {
  _data: Uint32Array;
  length: number;
  isWrapped: boolean;
  /** Cell index → the grapheme cluster of a cell whose content has the combined flag. */
  _combined: Record<number, string>;
  /** Cell index → underline style/colour and hyperlink of a cell whose bg has HAS_EXTENDED. */
  _extendedAttrs: Record<number, unknown>;
}

/** xterm's CircularList of rows. */
export interface CoreLines {
  /** Settable: shortening forgets the rows past the new end (nothing is trimmed or fired). */
  length: number;
  /** Settable: the ring is rebuilt with room for this many rows (nothing else changes). */
  maxLength: number;
  readonly isFull: boolean;
  get(index: number): CoreBufferLine | undefined;
  set(index: number, line: CoreBufferLine): void;
  /** Appends a row (trimming the oldest when full). */
  push(line: CoreBufferLine): void;
  /** Drops the `count` oldest rows (fires onTrim). */
  trimStart(count: number): void;
  onTrim(listener: (amount: number) => void): Disposable;
}

/**
 * xterm's normal Buffer: its rows, and the positions it keeps as indexes into them (row 0 is
 * the oldest row xterm holds): the top of the screen (`ybase`), of the viewport (`ydisp`) and
 * the row of the cursor saved by DECSC / `CSI ? 1049 h` (`savedY`, `ybase + y` when saved).
 */
export interface CoreBuffer {
  lines: CoreLines;
  /** The cursor's row on the screen. */
  readonly y: number;
  ybase: number;
  ydisp: number;
  savedY: number;
}

interface CoreBuffers {
  normal: CoreBuffer;
}

interface CoreOptions {
  rawOptions: { scrollback: number };
}

export interface ScrollbackInternals {
  /** The normal buffer (its rows are a new object after a full reset, RIS). */
  normalBuffer(): CoreBuffer;
  /**
   * Sets the scrollback limit xterm's next resize works with, without what setting
   * `options.scrollback` also does (an immediate resize of both buffers at the current size,
   * which moves a cursor waiting to wrap back a cell and resets the scroll region).
   */
  setScrollbackQuietly(rows: number): void;
  /** A fresh xterm row of `cols` cells (contents to be filled by the caller). */
  newLine(cols: number): CoreBufferLine;
  /**
   * A stand-in row that claims `cols` cells but holds none: xterm reads it as blank and a
   * resize to `cols` columns leaves it alone (see Scrollback.resize). Never leave one in xterm.
   */
  standIn(cols: number, abs: number): CoreBufferLine;
  /** The stored row number `abs` a stand-in was made for; undefined for a real row. */
  standInOf(line: CoreBufferLine): number | undefined;
  /** The public read-only view of a row, as `buffer.getLine` returns it. */
  view(line: CoreBufferLine): IBufferLine;
}

type LineClass = new (cols: number, fill?: object) => CoreBufferLine;

/** A fill cell for rows of 0 cells, which never read it. */
const NO_FILL = {};

/** The cells and side tables of every stand-in row (see standIn): none, and never written. */
const NO_CELLS = new Uint32Array(0);
const NO_TABLE = Object.freeze({});

/** A stand-in: a row of xterm's class (not built by its constructor, which allocates) that knows its stored row. */
interface StandIn extends CoreBufferLine {
  standsFor: number;
}
type ViewClass = new (line: CoreBufferLine) => IBufferLine;

/** xterm's buffers, unchecked (undefined when it has none where this looks). */
export function buffersOf(xterm: XTerminal): CoreBuffers | undefined {
  return (xterm as unknown as { _core?: { buffers?: CoreBuffers } })._core?.buffers;
}

function optionsOf(xterm: XTerminal): CoreOptions | undefined {
  return (xterm as unknown as { _core?: { optionsService?: CoreOptions } })._core?.optionsService;
}

function looksLikeLines(lines: unknown): lines is CoreLines {
  const l = lines as Partial<CoreLines> | undefined;
  return !!l && typeof l.get === 'function' && typeof l.onTrim === 'function' && typeof l.length === 'number' && typeof l.maxLength === 'number';
}

function looksLikeBuffer(buffer: unknown): buffer is CoreBuffer {
  const b = buffer as Partial<CoreBuffer> | undefined;
  return !!b && looksLikeLines(b.lines) && typeof b.ybase === 'number' && typeof b.ydisp === 'number' && typeof b.savedY === 'number';
}

function looksLikeLine(line: unknown): line is CoreBufferLine {
  const l = line as Partial<CoreBufferLine> | undefined;
  return !!l && l._data instanceof Uint32Array && typeof l.length === 'number' && typeof l._combined === 'object' && typeof l._extendedAttrs === 'object';
}

/** The internals, or undefined when xterm's shape is not the one this was written against. */
export function scrollbackInternals(xterm: XTerminal): ScrollbackInternals | undefined {
  const buffer = buffersOf(xterm)?.normal;
  const lines = buffer?.lines;
  if (!looksLikeBuffer(buffer) || typeof lines?.push !== 'function' || typeof lines.set !== 'function' || typeof lines.trimStart !== 'function') return undefined;
  const options = optionsOf(xterm)?.rawOptions;
  if (typeof options?.scrollback !== 'number' || options.scrollback !== xterm.options.scrollback) return undefined;
  const first = buffer.lines.get(0);
  const apiFirst = xterm.buffer.normal.getLine(0);
  if (!looksLikeLine(first) || !apiFirst) return undefined;
  const LineCtor = first.constructor as LineClass;
  const ViewCtor = apiFirst.constructor as ViewClass;
  // Made by xterm's own constructor (rows of one shape keep xterm's hot code monomorphic), for
  // 0 cells so it fills none, and with a fill cell so it does not build one (two objects) per row.
  const lineOf = (data: Uint32Array, cols: number): CoreBufferLine => {
    const line = new LineCtor(0, NO_FILL);
    line._data = data;
    line.length = cols;
    return line;
  };
  // The view must read the row we hand it, not something else.
  const probe = lineOf(new Uint32Array(3), 1);
  probe._data[0] = 0x41 | (1 << 22);
  if (!looksLikeLine(probe) || new ViewCtor(probe).translateToString(true) !== 'A') return undefined;
  return {
    normalBuffer: () => buffersOf(xterm)!.normal,
    setScrollbackQuietly: (rows) => {
      options.scrollback = rows;
    },
    newLine: (cols) => lineOf(new Uint32Array(cols * 3), cols),
    standIn: (cols, abs) => {
      // Short-lived (a resize removes or replaces every one), so a shape of its own costs xterm's
      // code nothing lasting; built without the constructor's typed array and tables.
      const line = Object.create(LineCtor.prototype as object) as StandIn;
      line.isWrapped = false;
      line._combined = NO_TABLE;
      line._extendedAttrs = NO_TABLE;
      line._data = NO_CELLS;
      line.length = cols;
      line.standsFor = abs;
      return line;
    },
    standInOf: (line) => (line as Partial<StandIn>).standsFor,
    view: (line) => new ViewCtor(line),
  };
}
