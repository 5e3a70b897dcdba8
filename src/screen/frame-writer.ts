import { BLANK, CLUSTER_BIT, COLOR_MODE, FLAGS } from './cell.js';
import type { CellGrid } from './cell-grid.js';
import { hasStableWidth } from './char-width.js';
import { decscusrParam, type CursorState } from './cursor.js';
import { sgrTransition } from './sgr.js';
import { TRUECOLOR, colorMapperFor, type ColorDepth, type ColorMapper } from './color-depth.js';

/** Escape sequences the writer emits, named once. */
export const SEQ = {
  csi: '\x1b[',
  syncBegin: '\x1b[?2026h',
  syncEnd: '\x1b[?2026l',
  showCursor: '\x1b[?25h',
  hideCursor: '\x1b[?25l',
  // Reset pen and scroll region, home, clear: a known blank screen to draw a full frame on.
  fullRedraw: '\x1b[0m\x1b[r\x1b[H\x1b[2J',
  resetPen: '\x1b[m',
} as const;

/** Cursor-move tuning. */
const GAP_REWRITE = {
  // Rewrite at most this many unchanged cells instead of a move: CUF costs 3–5 bytes, so more never wins.
  maxCells: 4,
} as const;

export interface DiffOptions {
  /** Clear the screen and draw every non-blank cell of `next` (first frame, resize). */
  full?: boolean;
  /** The cursor the terminal shows now; null/omitted means unknown, so all of it is sent. */
  shownCursor?: CursorState | null;
  /** Only rows whose entry is non-zero are scanned (ignored when `full`). */
  rows?: Uint8Array;
  /** Wrap the frame in synchronized-output mode 2026 (default true). */
  synchronized?: boolean;
  /** Colours the terminal shows (default 24-bit); fewer → each colour written as the nearest it has. */
  colors?: ColorDepth;
}

/** Builds one frame's bytes while tracking where the terminal's cursor and pen are. */
class FrameEncoder {
  out = '';
  /** Known cursor column, or -1 when unknown (pending wrap, or after a character of unstable width). */
  cx = -1;
  /** Known cursor row, or -1 when unknown. */
  cy = -1;
  private fg: number = COLOR_MODE.default;
  private bg: number = COLOR_MODE.default;
  private attrs = 0;

  /** `map`: how colours are written for a terminal with fewer of them (null: as they are). */
  constructor(
    private readonly grid: CellGrid,
    private readonly map: ColorMapper | null = null,
  ) {}

  moveTo(x: number, y: number): void {
    if (this.cx === x && this.cy === y) return;
    const csi = SEQ.csi;
    let best = x === 0 ? (y === 0 ? `${csi}H` : `${csi}${y + 1}H`) : `${csi}${y + 1};${x + 1}H`;
    const consider = (candidate: string): void => {
      if (candidate.length < best.length) best = candidate;
    };
    if (this.cy === y) {
      if (x === 0) consider('\r');
      consider(`${csi}${x + 1}G`);
      if (this.cx >= 0) consider(this.horizontal(x, y));
    } else if (this.cy >= 0) {
      const dy = y - this.cy;
      const n = Math.abs(dy);
      const vertical = `${csi}${n === 1 ? '' : n}${dy > 0 ? 'B' : 'A'}`;
      let horizontal: string;
      if (this.cx === x) horizontal = '';
      else if (x === 0) horizontal = '\r';
      else {
        horizontal = `${csi}${x + 1}G`;
        if (this.cx >= 0) {
          const rel = this.relative(x);
          if (rel.length < horizontal.length) horizontal = rel;
        }
      }
      consider(vertical + horizontal);
    }
    this.out += best;
    this.cx = x;
    this.cy = y;
  }

  /** A relative horizontal move (CUF/CUB) from the known column. */
  private relative(x: number): string {
    const d = x - this.cx;
    const n = Math.abs(d);
    return `${SEQ.csi}${n === 1 ? '' : n}${d > 0 ? 'C' : 'D'}`;
  }

  /** Shortest same-row move from the known column: relative, or rewriting a short gap. */
  private horizontal(x: number, y: number): string {
    const rel = this.relative(x);
    const gap = x - this.cx;
    if (gap <= 0 || gap > GAP_REWRITE.maxCells || gap >= rel.length) return rel;
    const g = this.grid;
    let text = '';
    for (let i = g.index(this.cx, y), end = g.index(x, y); i < end; i++) {
      const code = g.chars[i];
      const sameStyle = g.fg[i] === this.fg && g.bg[i] === this.bg && (g.flags[i] & FLAGS.attrMask) === this.attrs;
      if (!sameStyle || code < 0x20 || code >= 0x7f || (g.flags[i] & FLAGS.widthMask) >> FLAGS.widthShift !== 1) return rel;
      text += String.fromCharCode(code);
    }
    return text;
  }

  /** Writes cell i (a lead or narrow cell) at the cursor, which must already be there. */
  put(i: number): void {
    const g = this.grid;
    const flags = g.flags[i];
    const attrs = flags & FLAGS.attrMask;
    if (g.fg[i] !== this.fg || g.bg[i] !== this.bg || attrs !== this.attrs) {
      // The pen is tracked in the grid's colours; only what is written is mapped.
      const map = this.map;
      this.out += map === null
        ? sgrTransition(this.fg, this.bg, this.attrs, g.fg[i], g.bg[i], attrs)
        : sgrTransition(map(this.fg), map(this.bg), this.attrs, map(g.fg[i]), map(g.bg[i]), attrs);
      this.fg = g.fg[i];
      this.bg = g.bg[i];
      this.attrs = attrs;
    }
    const code = g.chars[i];
    this.out += code < 0x80 ? String.fromCharCode(code) : g.clusters.stringFor(code);
    const width = (flags & FLAGS.widthMask) >> FLAGS.widthShift;
    // Past the last column the terminal is in its pending-wrap state: only absolute moves are safe.
    if (!hasStableWidth(code) || this.cx + width >= g.cols) this.cx = -1;
    else this.cx += width;
  }

  resetPen(): void {
    if (this.fg !== COLOR_MODE.default || this.bg !== COLOR_MODE.default || this.attrs !== 0) {
      this.out += SEQ.resetPen;
      this.fg = COLOR_MODE.default;
      this.bg = COLOR_MODE.default;
      this.attrs = 0;
    }
  }
}

function clamp(value: number, size: number): number {
  return Math.min(Math.max(0, value), Math.max(0, size - 1));
}

function isBlank(g: CellGrid, i: number): boolean {
  return g.chars[i] === BLANK.char && g.flags[i] === BLANK.flags && g.fg[i] === BLANK.fg && g.bg[i] === BLANK.bg;
}

/**
 * The bytes that turn a terminal showing `previous` into one showing `next` with the
 * cursor as given: only changed cells, with the cheapest cursor moves and SGR changes,
 * wrapped in synchronized output. '' when nothing changed. Both grids must be the same
 * size; the terminal's pen is assumed to be default (every frame ends by resetting it).
 */
export function diffFrame(previous: CellGrid, next: CellGrid, cursor: CursorState, options: DiffOptions = {}): string {
  const full = options.full === true;
  const shown = full ? null : (options.shownCursor ?? null);
  const rowFilter = full ? undefined : options.rows;
  const { cols, rows } = next;
  const enc = new FrameEncoder(next, colorMapperFor(options.colors ?? TRUECOLOR));
  if (full) {
    enc.out = SEQ.fullRedraw;
    enc.cx = 0;
    enc.cy = 0;
  } else if (shown) {
    // The previous frame left the cursor at its clamped position.
    enc.cx = clamp(shown.x, cols);
    enc.cy = clamp(shown.y, rows);
  }
  if (!cursor.visible && (shown === null || shown.visible)) enc.out += SEQ.hideCursor;

  // Hoisted array references: this loop runs for every cell of every scanned row.
  const sameTable = previous.clusters === next.clusters;
  const { chars: pc, fg: pfg, bg: pbg, flags: pfl } = previous;
  const { chars: nc, fg: nfg, bg: nbg, flags: nfl } = next;
  for (let y = 0; y < rows; y++) {
    if (rowFilter !== undefined && rowFilter[y] === 0) continue;
    const base = y * cols;
    let x = 0;
    while (x < cols) {
      const i = base + x;
      const same = full
        ? isBlank(next, i)
        : nc[i] === pc[i] && nfg[i] === pfg[i] && nbg[i] === pbg[i] && nfl[i] === pfl[i]
          ? sameTable || nc[i] < CLUSTER_BIT || next.cellEquals(i, previous, i)
          : !sameTable && next.cellEquals(i, previous, i);
      if (same) {
        x++;
        continue;
      }
      // A changed right half means its left half must be rewritten: never half a wide char.
      const lead = (next.flags[i] & FLAGS.widthMask) === 0 && x > 0 ? x - 1 : x;
      enc.moveTo(lead, y);
      enc.put(base + lead);
      x = lead + Math.max(1, (next.flags[base + lead] & FLAGS.widthMask) >> FLAGS.widthShift);
    }
  }
  enc.resetPen();

  enc.moveTo(clamp(cursor.x, cols), clamp(cursor.y, rows));
  const shape = decscusrParam(cursor.shape, cursor.blink);
  if (shown === null || decscusrParam(shown.shape, shown.blink) !== shape) enc.out += `${SEQ.csi}${shape} q`;
  if (cursor.visible && (shown === null || !shown.visible)) enc.out += SEQ.showCursor;

  if (enc.out.length === 0) return '';
  return options.synchronized === false ? enc.out : SEQ.syncBegin + enc.out + SEQ.syncEnd;
}
