import { ATTR, BLANK, COLOR_MODE, WIDE_CONTINUATION, packFlags, palette256Color, rgbColor } from './cell.js';
import { CellGrid } from './cell-grid.js';
import { codePointWidth } from './char-width.js';
import { forEachCluster, NEEDS_CLUSTERING } from './graphemes.js';
import type { ClusterTable } from './cluster-table.js';

const TAB = {
  // Columns between tab stops: every terminal's default.
  width: 8,
} as const;

const ESC = 0x1b;
const BEL = 0x07;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The pen an SGR sequence changes while parsing. */
interface Pen {
  fg: number;
  bg: number;
  attrs: number;
}

/** Reads an extended colour (`5;n` or `2;r;g;b`) starting at parts[k]; returns [colour, params consumed]. */
function extendedColor(parts: readonly number[], k: number): [number | null, number] {
  if (parts[k] === 5) return [palette256Color(parts[k + 1] ?? 0), 2];
  if (parts[k] === 2) return [rgbColor(parts[k + 1] ?? 0, parts[k + 2] ?? 0, parts[k + 3] ?? 0), 4];
  return [null, 0];
}

/** Applies one SGR parameter list (the text between "ESC[" and "m") to the pen. */
function applySgr(params: string, pen: Pen): void {
  const fields = params === '' ? ['0'] : params.split(';');
  for (let k = 0; k < fields.length; k++) {
    const field = fields[k];
    if (field.includes(':')) {
      // Colon sub-parameters: 38:5:n, 38:2::r:g:b (with colour-space id) or 38:2:r:g:b, 4:n.
      const sub = field.split(':').map((s) => (s === '' ? 0 : Number(s)));
      const code = sub[0];
      if (code === 38 || code === 48) {
        const rgbStart = sub[1] === 2 && sub.length >= 6 ? 3 : 2;
        const color = sub[1] === 5 ? palette256Color(sub[2] ?? 0) : sub[1] === 2 ? rgbColor(sub[rgbStart], sub[rgbStart + 1], sub[rgbStart + 2]) : null;
        if (color !== null) {
          if (code === 38) pen.fg = color;
          else pen.bg = color;
        }
      } else if (code === 4) {
        pen.attrs = sub[1] === 0 ? pen.attrs & ~ATTR.underline : pen.attrs | ATTR.underline;
      }
      continue;
    }
    const n = field === '' ? 0 : Number(field);
    if (n >= 30 && n <= 37) pen.fg = COLOR_MODE.p16 | (n - 30);
    else if (n >= 40 && n <= 47) pen.bg = COLOR_MODE.p16 | (n - 40);
    else if (n >= 90 && n <= 97) pen.fg = COLOR_MODE.p16 | (n - 90 + 8);
    else if (n >= 100 && n <= 107) pen.bg = COLOR_MODE.p16 | (n - 100 + 8);
    else if (n === 38 || n === 48 || n === 58) {
      const rest = fields.slice(k + 1, k + 5).map((s) => (s === '' ? 0 : Number(s)));
      const [color, used] = extendedColor(rest, 0);
      k += used;
      if (color !== null && n === 38) pen.fg = color;
      else if (color !== null && n === 48) pen.bg = color;
    } else {
      switch (n) {
        case 0: pen.fg = COLOR_MODE.default; pen.bg = COLOR_MODE.default; pen.attrs = 0; break;
        case 1: pen.attrs |= ATTR.bold; break;
        case 2: pen.attrs |= ATTR.dim; break;
        case 3: pen.attrs |= ATTR.italic; break;
        case 4: case 21: pen.attrs |= ATTR.underline; break;
        case 5: case 6: pen.attrs |= ATTR.blink; break;
        case 7: pen.attrs |= ATTR.inverse; break;
        case 8: pen.attrs |= ATTR.invisible; break;
        case 9: pen.attrs |= ATTR.strikethrough; break;
        case 22: pen.attrs &= ~(ATTR.bold | ATTR.dim); break;
        case 23: pen.attrs &= ~ATTR.italic; break;
        case 24: pen.attrs &= ~ATTR.underline; break;
        case 25: pen.attrs &= ~ATTR.blink; break;
        case 27: pen.attrs &= ~ATTR.inverse; break;
        case 28: pen.attrs &= ~ATTR.invisible; break;
        case 29: pen.attrs &= ~ATTR.strikethrough; break;
        case 39: pen.fg = COLOR_MODE.default; break;
        case 49: pen.bg = COLOR_MODE.default; break;
        case 53: pen.attrs |= ATTR.overline; break;
        case 55: pen.attrs &= ~ATTR.overline; break;
        default: break; // Fonts, underline colour resets and the like do not change cells.
      }
    }
  }
}

/**
 * Draws an ANSI string (lines separated by "\n", SGR escapes; what Ink renders) into
 * `grid` starting at (x0, y0). Only printed cells are touched; every other escape
 * (cursor moves, OSC hyperlinks) is skipped. Clears nothing: call `grid.clear(true)`
 * first for a layer where unprinted cells are transparent.
 */
export function drawAnsi(grid: CellGrid, text: string, x0 = 0, y0 = 0): void {
  const pen: Pen = { fg: BLANK.fg, bg: BLANK.bg, attrs: 0 };
  let x = x0;
  let y = y0;
  let i = 0;
  const touched = new Set<number>();
  // Chrome repeats the same few symbols; measure each once per parse.
  const widths = new Map<number, number>();
  const put = (cluster: string, width: number): void => {
    if (y >= 0 && y < grid.rows && x >= 0 && x < grid.cols) {
      const idx = grid.index(x, y);
      touched.add(y);
      if (width === 2 && x + 1 < grid.cols) {
        grid.setRaw(idx, grid.clusters.codeFor(cluster), pen.fg, pen.bg, packFlags(pen.attrs, 2));
        grid.setRaw(idx + 1, WIDE_CONTINUATION, pen.fg, pen.bg, packFlags(pen.attrs, 0));
      } else {
        const code = width === 2 ? BLANK.char : cluster.length === 1 ? cluster.charCodeAt(0) : grid.clusters.codeFor(cluster);
        grid.setRaw(idx, code, pen.fg, pen.bg, packFlags(pen.attrs, 1));
      }
    }
    x += width;
  };
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === ESC) {
      i = skipEscape(text, i, pen);
      continue;
    }
    if (code === 0x0a) { x = x0; y++; i++; continue; }
    if (code === 0x0d) { x = x0; i++; continue; }
    if (code === 0x09) {
      const stop = x0 + (Math.floor((x - x0) / TAB.width) + 1) * TAB.width;
      while (x < stop) put(' ', 1);
      i++;
      continue;
    }
    if (code < 0x20 || code === 0x7f) { i++; continue; }
    let end = i + 1;
    while (end < text.length) {
      const c = text.charCodeAt(end);
      if (c < 0x20 || c === 0x7f) break;
      end++;
    }
    const run = text.slice(i, end);
    if (PRINTABLE_ASCII.test(run)) {
      for (let k = 0; k < run.length; k++) put(run[k], 1);
    } else if (!NEEDS_CLUSTERING.test(run)) {
      // Every UTF-16 unit is a whole cluster here (box drawing, bullets, CJK): no clustering needed.
      for (let k = 0; k < run.length; k++) {
        const c = run.charCodeAt(k);
        let w = c < 0x300 ? 1 : widths.get(c);
        if (w === undefined) {
          w = codePointWidth(c);
          widths.set(c, w);
        }
        if (w > 0) put(run[k], w);
      }
    } else {
      // The same clusters and widths a pane's terminal makes of this text (graphemes.ts).
      forEachCluster(run, put);
    }
    i = end;
  }
  for (const row of touched) grid.repairRow(row);
}

/** Skips the escape sequence at text[i], applying it if it is SGR; returns the index after it. */
function skipEscape(text: string, i: number, pen: Pen): number {
  const kind = text[i + 1];
  if (kind === '[') {
    let j = i + 2;
    while (j < text.length && text.charCodeAt(j) >= 0x30 && text.charCodeAt(j) <= 0x3f) j++;
    const params = text.slice(i + 2, j);
    const paramsEnd = j;
    while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
    // Plain SGR only: no intermediates, no private-parameter prefix.
    if (text[j] === 'm' && j === paramsEnd && !/[<=>?]/.test(params)) applySgr(params, pen);
    return j + 1;
  }
  if (kind === ']' || kind === 'P' || kind === '_' || kind === '^') {
    // String sequences (OSC hyperlinks, DCS, APC, PM) end at BEL or ST (ESC \).
    let j = i + 2;
    while (j < text.length) {
      const c = text.charCodeAt(j);
      if (c === BEL) return j + 1;
      if (c === ESC && text[j + 1] === '\\') return j + 2;
      j++;
    }
    return j;
  }
  let j = i + 1;
  while (j < text.length && text.charCodeAt(j) >= 0x20 && text.charCodeAt(j) <= 0x2f) j++;
  return j + 1;
}

/** Parses an ANSI string into a new layer grid whose unprinted cells are transparent. */
export function ansiToGrid(text: string, cols: number, rows: number, clusters?: ClusterTable): CellGrid {
  const grid = new CellGrid(cols, rows, clusters);
  grid.clear(true);
  drawAnsi(grid, text);
  return grid;
}
