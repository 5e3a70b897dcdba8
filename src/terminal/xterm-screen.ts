/**
 * A pane's xterm buffer seen as the compositor's `PaneScreen`: rows copied into cell grids,
 * the cursor with the modes the application set, the plain-print check behind echo
 * prediction. The one place pane cells leave xterm; nothing above src/terminal touches
 * xterm objects.
 */
import type { IBuffer, IBufferLine, Terminal } from '@xterm/headless';
import { BLANK, packFlags } from '../screen/cell.js';
import type { CellGrid } from '../screen/cell-grid.js';
import type { CursorState } from '../screen/cursor.js';
import type { PaneScreen, RowCopyOptions } from '../screen/pane-screen.js';
import type { Disposable } from '../contract/disposable.js';
import type { Rect } from '../contract/rect.js';
import { internalCursorModes, type CursorModes } from './cursor-modes.js';
import type { CoreBufferLine } from './xterm-internals.js';
import { attrsOf, colorOf, printPen, type PrintPen } from './plain-print.js';

/**
 * The rows a pane shows: xterm's buffer, or a view with the same shape that also spans rows
 * kept outside xterm (PaneTerminal.scrollback, src/terminal/scrollback.ts).
 */
export type RowSource = Pick<IBuffer, 'type' | 'baseY' | 'viewportY' | 'getLine' | 'getNullCell'>;



/** Content bit of a cell holding a grapheme cluster (its text is in the row's side table). */
const COMBINED_FLAG = 1 << 21;
/** bg bit of a cell with extended attributes (underline style and colour, in a side table). */
const HAS_EXTENDED = 0x10000000;

/** A row's own cell words (3 a cell: content, fg, bg) behind xterm's public line, when reachable. */
function wordsOf(line: IBufferLine | undefined): Uint32Array | null {
  const data = (line as unknown as { _line?: Partial<CoreBufferLine> } | undefined)?._line?._data;
  return data instanceof Uint32Array ? data : null;
}

/**
 * Copies buffer lines `top + r` into rows `rect.y + r` of `grid`, columns from 0, clipped
 * to the rect and the grid. Cells are only stored when they differ, and changed rows are
 * reported, so a caller can re-copy a whole pane and still learn what moved. A wide
 * character cut by the rect's right edge becomes a space. Returns the changed-row count.
 *
 * A cell whose three words equal the cell's before it (a run of spaces, a border's `─`) is
 * what that cell was: it reuses its result instead of asking xterm's getters again, which
 * is most of a row's cells and most of the copy's time in a frame (an agent's input box).
 * Not for clusters or extended attributes: their text and style live in side tables by
 * cell, and xterm clears a cluster's code point from its word ('é' and 'á' look alike).
 * Wide characters need no exception: a lead and the continuation after it never share words.
 */
export function copyXtermRows(buffer: RowSource, grid: CellGrid, rect: Rect, options: RowCopyOptions = {}): number {
  const top = options.top ?? buffer.viewportY;
  const width = Math.min(rect.cols, grid.cols - rect.x);
  if (width <= 0) return 0;
  const cell = buffer.getNullCell();
  const { chars, fg, bg, flags, clusters } = grid;
  let changedRows = 0;
  const copyRow = (r: number): void => {
    const y = rect.y + r;
    if (r < 0 || r >= rect.rows || y < 0 || y >= grid.rows) return;
    const line = buffer.getLine(top + r);
    const length = line ? Math.min(line.length, width) : 0;
    const words = wordsOf(line);
    let base = y * grid.cols + rect.x;
    let changed = false;
    let leadFg = 0;
    let leadBg = 0;
    let leadAttrs = 0;
    let afterLead = false;
    /** The previous cell's words when it may be reused (see above); -1: it may not. */
    let lastContent = -1;
    let lastFg = 0;
    let lastBg = 0;
    let c: number = BLANK.char;
    let f: number = BLANK.fg;
    let b: number = BLANK.bg;
    let fl: number = BLANK.flags;
    let same = false;
    for (let x = 0; x < width; x++, base++) {
      if (x < length && words !== null) {
        const at = x * 3;
        const content = words[at] as number;
        const wf = words[at + 1] as number;
        const wb = words[at + 2] as number;
        // c, f, b and fl still hold the previous cell's: the same words, the same cell.
        same = content === lastContent && wf === lastFg && wb === lastBg;
        if (!same) {
          lastContent = (content & COMBINED_FLAG) === 0 && (wb & HAS_EXTENDED) === 0 ? content : -1;
          lastFg = wf;
          lastBg = wb;
        }
      } else {
        same = false;
        lastContent = -1;
      }
      if (!same) {
        c = BLANK.char;
        f = BLANK.fg;
        b = BLANK.bg;
        fl = BLANK.flags;
        if (x >= length) afterLead = false;
        else {
          line!.getCell(x, cell);
          const w = cell.getWidth();
          if (w === 0) {
            if (afterLead) {
              c = 0;
              f = leadFg;
              b = leadBg;
              fl = packFlags(leadAttrs, 0);
            }
            afterLead = false;
          } else {
            const s = cell.getChars();
            const fgMode = cell.getFgColorMode();
            const bgMode = cell.getBgColorMode();
            f = colorOf(fgMode, cell.getFgColor());
            b = colorOf(bgMode, cell.getBgColor());
            const attrs = attrsOf(cell);
            if (w === 2 && x === width - 1) {
              // Half a wide character would not fit: show a space in its background.
              afterLead = false;
              fl = packFlags(attrs, 1);
            } else {
              c = s === '' ? BLANK.char : s.length === 1 ? s.charCodeAt(0) : clusters.codeFor(s);
              fl = packFlags(attrs, w === 2 ? 2 : 1);
              afterLead = w === 2;
              leadFg = f;
              leadBg = b;
              leadAttrs = attrs;
            }
          }
        }
      }
      if (chars[base] !== c || fg[base] !== f || bg[base] !== b || flags[base] !== fl) {
        chars[base] = c;
        fg[base] = f;
        bg[base] = b;
        flags[base] = fl;
        changed = true;
      }
    }
    if (changed) {
      changedRows++;
      if (options.changed) options.changed[r] = 1;
    }
  };
  if (options.rows) for (const r of options.rows) copyRow(r);
  else for (let r = 0; r < rect.rows; r++) copyRow(r);
  return changedRows;
}

/**
 * The cursor of a terminal's active buffer in viewport coordinates, with the visibility
 * and shape the application asked for: from `modes` (see `trackCursorModes`) when given,
 * else from xterm.js internals, else visible with the default shape.
 */
export function cursorFor(terminal: Terminal, modes?: CursorModes): CursorState {
  const buffer = terminal.buffer.active;
  const m = modes ?? internalCursorModes(terminal) ?? { visible: true, shape: 'default', blink: false };
  return {
    // cursorX equals cols while a wrap is pending; the cursor is drawn in the last column.
    x: Math.min(buffer.cursorX, Math.max(0, terminal.cols - 1)),
    y: buffer.cursorY,
    visible: m.visible,
    shape: m.shape,
    blink: m.blink,
  };
}

/**
 * An xterm terminal as a `PaneScreen`. `modes`: live cursor modes from `trackCursorModes`;
 * omitted, they are read from xterm internals (`internalCursorModes`).
 */
export class XtermScreen implements PaneScreen {
  /** The (stable) buffer namespace: xterm's `buffer` getter is slow. */
  private readonly buffers: Terminal['buffer'];

  constructor(private readonly terminal: Terminal, private readonly modes?: CursorModes) {
    this.buffers = terminal.buffer;
  }

  get cols(): number {
    return this.terminal.cols;
  }

  get rows(): number {
    return this.terminal.rows;
  }

  get bufferType(): 'normal' | 'alternate' {
    return this.buffers.active.type;
  }

  get baseY(): number {
    return this.buffers.active.baseY;
  }

  get viewportY(): number {
    return this.buffers.active.viewportY;
  }

  copyRows(grid: CellGrid, rect: Rect, options?: RowCopyOptions): number {
    return copyXtermRows(this.buffers.active, grid, rect, options);
  }

  cursor(): CursorState {
    return cursorFor(this.terminal, this.modes);
  }

  printPen(): PrintPen | null {
    return printPen(this.terminal);
  }

  onScroll(listener: () => void): Disposable {
    return this.terminal.onScroll(() => listener());
  }
}
