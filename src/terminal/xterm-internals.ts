/**
 * A typed view of the few @xterm/headless internals the compact scrollback needs: the normal
 * buffer's ring of rows (to see rows before xterm trims them, and to count trims), and the row
 * classes (to turn a stored row back into a real xterm row, so reads of stored rows run the
 * very code that reads live rows). Everything here is checked when looked up; if xterm's
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
  readonly length: number;
  readonly maxLength: number;
  readonly isFull: boolean;
  get(index: number): CoreBufferLine | undefined;
  onTrim(listener: (amount: number) => void): Disposable;
}

interface CoreBuffers {
  normal: { lines: CoreLines };
}

export interface ScrollbackInternals {
  /** The normal buffer's rows (a new object after a full reset, RIS). */
  normalLines(): CoreLines;
  /** A fresh xterm row of `cols` cells (contents to be filled by the caller). */
  newLine(cols: number): CoreBufferLine;
  /** The public read-only view of a row, as `buffer.getLine` returns it. */
  view(line: CoreBufferLine): IBufferLine;
}

type LineClass = new (cols: number) => CoreBufferLine;
type ViewClass = new (line: CoreBufferLine) => IBufferLine;

function buffersOf(xterm: XTerminal): CoreBuffers | undefined {
  return (xterm as unknown as { _core?: { buffers?: CoreBuffers } })._core?.buffers;
}

function looksLikeLines(lines: unknown): lines is CoreLines {
  const l = lines as Partial<CoreLines> | undefined;
  return !!l && typeof l.get === 'function' && typeof l.onTrim === 'function' && typeof l.length === 'number' && typeof l.maxLength === 'number';
}

function looksLikeLine(line: unknown): line is CoreBufferLine {
  const l = line as Partial<CoreBufferLine> | undefined;
  return !!l && l._data instanceof Uint32Array && typeof l.length === 'number' && typeof l._combined === 'object' && typeof l._extendedAttrs === 'object';
}

/** The internals, or undefined when xterm's shape is not the one this was written against. */
export function scrollbackInternals(xterm: XTerminal): ScrollbackInternals | undefined {
  const buffers = buffersOf(xterm);
  const lines = buffers?.normal?.lines;
  if (!looksLikeLines(lines)) return undefined;
  const first = lines.get(0);
  const apiFirst = xterm.buffer.normal.getLine(0);
  if (!looksLikeLine(first) || !apiFirst) return undefined;
  const LineCtor = first.constructor as LineClass;
  const ViewCtor = apiFirst.constructor as ViewClass;
  // The view must read the row we hand it, not something else.
  const probe = new LineCtor(0);
  if (!looksLikeLine(probe) || new ViewCtor(probe).length !== 0) return undefined;
  return {
    normalLines: () => buffersOf(xterm)!.normal.lines,
    newLine: (cols) => {
      const line = new LineCtor(0);
      line._data = new Uint32Array(cols * 3);
      line.length = cols;
      return line;
    },
    view: (line) => new ViewCtor(line),
  };
}
