/**
 * A faster xterm.js `print` for the common case of a flood: a run of printable ASCII in a
 * plain pen. xterm's own `print` asks the unicode provider for every code point (a call and
 * a width/join unpacking per character), checks the charset, the screen-reader mode and the
 * hyperlink, and then stores each cell through `setCellFromCodepoint`. For printable ASCII with
 * corral's provider (`graphemes.ts`: every such character is one cell wide and joins nothing)
 * and the state below, all of that is known before the loop, so the cells are written straight
 * into the row's words, one row-slice at a time.
 *
 * The result is exactly what xterm's `print` leaves — cells, side tables, wrap flags, cursor,
 * scrolling, the parser's join state, the dirty rows — which a property test checks against
 * xterm's own `print` on random output. Anything else (a non-ASCII character anywhere in the
 * run, insert mode, a character set, an extended attribute or hyperlink, the screen-reader
 * mode, another unicode provider) goes to xterm's `print` unchanged.
 *
 * Uses xterm's private `_core._inputHandler` (verified against @xterm/headless 6.0): its
 * parser calls `this.print(...)` through the instance, so replacing the method on the
 * instance is enough. Without those internals, nothing is installed.
 */
import type { Terminal as XTerminal } from '@xterm/headless';
import { unicodeProvider } from './unicode-provider.js';

/** xterm's cell layout (common/buffer/Constants.ts). */
const CELL_SIZE = 3;
const WIDTH_SHIFT = 22;
const BG_HAS_EXTENDED = 0x10000000;
/** A one-cell character that joins nothing: corral's provider for every printable ASCII code point. */
const ASCII_PROPS = unicodeProvider.charProperties(0x41, 0);
const NARROW = 1 << WIDTH_SHIFT;

interface Row {
  _data: Uint32Array;
  isWrapped: boolean;
  getWidth(x: number): number;
  hasContent(x: number): boolean;
  setCellFromCodepoint(x: number, code: number, width: number, attrs: Attrs): void;
}
interface Attrs {
  fg: number;
  bg: number;
  extended: { urlId: number };
}
interface Handler {
  print(data: Uint32Array, start: number, end: number): void;
  _activeBuffer: { x: number; y: number; ybase: number; scrollBottom: number; lines: { get(i: number): Row | undefined } };
  _bufferService: { cols: number; rows: number; scroll(eraseAttr: unknown, isWrapped: boolean): void };
  _coreService: { decPrivateModes: { wraparound: boolean }; modes: { insertMode: boolean } };
  _charsetService: { charset: unknown };
  _optionsService: { rawOptions: { screenReaderMode: boolean } };
  _unicodeService: { _activeProvider: unknown };
  _parser: { precedingJoinState: number };
  _dirtyRowTracker: { markDirty(y: number): void };
  _curAttrData: Attrs;
  _eraseAttrData(): unknown;
}

function handlerOf(xterm: XTerminal): Handler | undefined {
  const handler = (xterm as unknown as { _core?: { _inputHandler?: Partial<Handler> } })._core?._inputHandler;
  if (!handler || typeof handler.print !== 'function' || typeof handler._eraseAttrData !== 'function') return undefined;
  const ok =
    handler._activeBuffer !== undefined &&
    handler._bufferService !== undefined &&
    handler._coreService?.decPrivateModes !== undefined &&
    handler._charsetService !== undefined &&
    handler._optionsService?.rawOptions !== undefined &&
    handler._unicodeService !== undefined &&
    '_activeProvider' in handler._unicodeService &&
    handler._parser !== undefined &&
    handler._dirtyRowTracker !== undefined &&
    handler._curAttrData !== undefined;
  return ok ? (handler as Handler) : undefined;
}

/** Installs the fast path on `xterm`'s input handler; false if its internals are not as expected. */
export function installAsciiPrint(xterm: XTerminal): boolean {
  const handler = handlerOf(xterm);
  if (!handler) return false;
  const xtermPrint = handler.print;
  handler.print = function asciiPrint(data: Uint32Array, start: number, end: number): void {
    if (!plainState(handler) || !allPrintableAscii(data, start, end)) {
      xtermPrint.call(handler, data, start, end);
      return;
    }
    printAscii(handler, data, start, end);
  };
  return true;
}

/** The state in which xterm's print of printable ASCII reduces to `printAscii`. */
function plainState(h: Handler): boolean {
  const attrs = h._curAttrData;
  return (
    h._unicodeService._activeProvider === unicodeProvider &&
    !h._charsetService.charset &&
    !h._coreService.modes.insertMode &&
    !h._optionsService.rawOptions.screenReaderMode &&
    (attrs.bg & BG_HAS_EXTENDED) === 0 &&
    !attrs.extended?.urlId
  );
}

function allPrintableAscii(data: Uint32Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = data[i] as number;
    if (code < 0x20 || code > 0x7e) return false;
  }
  return true;
}

/** xterm's `print` (common/InputHandler.ts) for characters of width 1 that never join. */
function printAscii(h: Handler, data: Uint32Array, start: number, end: number): void {
  const buffer = h._activeBuffer;
  const cols = h._bufferService.cols;
  const wraparound = h._coreService.decPrivateModes.wraparound;
  const attrs = h._curAttrData;
  const fg = attrs.fg;
  const bg = attrs.bg;
  let row = buffer.lines.get(buffer.ybase + buffer.y)!;
  h._dirtyRowTracker.markDirty(buffer.y);
  // Printing over the right half of a wide character blanks its left half.
  if (buffer.x && end - start > 0 && row.getWidth(buffer.x - 1) === 2) row.setCellFromCodepoint(buffer.x - 1, 0, 1, attrs);
  let pos = start;
  while (pos < end) {
    if (buffer.x + 1 > cols) {
      if (wraparound) {
        // (xterm then blanks the cells right of the old cursor: none, a one-cell character
        // wraps only once the row is full.)
        buffer.x = 0;
        buffer.y++;
        if (buffer.y === buffer.scrollBottom + 1) {
          buffer.y--;
          h._bufferService.scroll(h._eraseAttrData(), true);
        } else {
          if (buffer.y >= h._bufferService.rows) buffer.y = h._bufferService.rows - 1;
          buffer.lines.get(buffer.ybase + buffer.y)!.isWrapped = true;
        }
        row = buffer.lines.get(buffer.ybase + buffer.y)!;
      } else {
        // Without autowrap every further character lands in the last column.
        buffer.x = cols - 1;
        row.setCellFromCodepoint(buffer.x++, data[pos] as number, 1, attrs);
        pos++;
        continue;
      }
    }
    // The rest of this row in one loop: no wrap can happen before `stop`.
    const stop = Math.min(end, pos + (cols - buffer.x));
    const words = row._data;
    let at = buffer.x * CELL_SIZE;
    for (; pos < stop; pos++) {
      words[at] = (data[pos] as number) | NARROW;
      words[at + 1] = fg;
      words[at + 2] = bg;
      at += CELL_SIZE;
    }
    buffer.x = at / CELL_SIZE;
  }
  if (end > start) h._parser.precedingJoinState = ASCII_PROPS;
  // Printing over the left half of a wide character blanks its right half.
  if (buffer.x < cols && end - start > 0 && row.getWidth(buffer.x) === 0 && !row.hasContent(buffer.x)) {
    row.setCellFromCodepoint(buffer.x, 0, 1, attrs);
  }
  h._dirtyRowTracker.markDirty(buffer.y);
}
