/**
 * Measuring, cleaning, truncating and padding text in terminal cells. Widths come from the
 * compositor's `graphemes.ts` (the same clusters the pane terminals make), so what we pad
 * here is exactly what the compositor parses back.
 */
import { codePointWidth } from '../src/screen/char-width.js';
import { clustersOf, NEEDS_CLUSTERING } from '../src/screen/graphemes.js';
import { RESET } from './paint.js';
import { visibleControls } from '../src/terminal/control-chars.js';

const ELLIPSIS = '…';
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Control characters (ESC, newline, tab, C1…) made visible (`^[`, `^J`, `\x9b`): a label
 * holding them would break the layout or act on the terminal (SPEC §8). The chrome model
 * has done this already for peer text; this is the net for anything drawn.
 */
export function clean(text: string): string {
  return visibleControls(text);
}

/** Grapheme clusters of `text` with their cell widths. */
export function clusters(text: string): { s: string; w: number }[] {
  if (PRINTABLE_ASCII.test(text)) return Array.from(text, (s) => ({ s, w: 1 }));
  // Outside NEEDS_CLUSTERING every unit is a whole cluster (box drawing, badges, CJK).
  if (!NEEDS_CLUSTERING.test(text)) return Array.from(text, (s) => ({ s, w: codePointWidth(s.charCodeAt(0)) }));
  return clustersOf(text);
}

/** Cells a run of clusters takes. */
function totalWidth(cs: readonly { w: number }[]): number {
  let total = 0;
  for (const c of cs) total += c.w;
  return total;
}

/** Display width of plain text (no escapes) in cells. */
export function textWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  return totalWidth(clusters(text));
}

/** Cuts `text` to at most `width` cells, ending in … when cut. Cleans control characters. */
export function truncate(text: string, width: number): string {
  const s = clean(text);
  if (width <= 0) return '';
  if (PRINTABLE_ASCII.test(s) && s.length <= width) return s;
  const cs = clusters(s);
  if (totalWidth(cs) <= width) return s;
  let out = '';
  let used = 0;
  for (const c of cs) {
    if (used + c.w > width - 1) break;
    out += c.s;
    used += c.w;
  }
  return out + ELLIPSIS;
}

/** Like truncate, but keeps the end: `…` + the last cells (an input line shows where you type). */
export function truncateStart(text: string, width: number): string {
  const s = clean(text);
  if (width <= 0) return '';
  const cs = clusters(s);
  if (totalWidth(cs) <= width) return s;
  let out = '';
  let used = 0;
  for (let k = cs.length - 1; k >= 0; k--) {
    if (used + cs[k].w > width - 1) break;
    out = cs[k].s + out;
    used += cs[k].w;
  }
  return ELLIPSIS + out;
}

/** `text` truncated or right-padded with spaces to exactly `width` cells. */
export function fit(text: string, width: number): string {
  const s = truncate(text, width);
  return s + ' '.repeat(Math.max(0, width - textWidth(s)));
}

/**
 * Makes one line of ANSI text (Ink output) exactly `width` cells: pads with spaces, or cuts
 * it (a wide character that would straddle the edge becomes a space). Resets the pen at the
 * end if the line styled anything, so styles never bleed into the next piece of the row.
 */
export function fitAnsi(line: string, width: number): string {
  if (PRINTABLE_ASCII.test(line)) {
    return line.length >= width ? line.slice(0, width) : line + ' '.repeat(width - line.length);
  }
  let out = '';
  let used = 0;
  let styled = false;
  let i = 0;
  while (i < line.length && used < width) {
    if (line.charCodeAt(i) === 0x1b) {
      const end = escapeEnd(line, i);
      out += line.slice(i, end);
      styled = true;
      i = end;
      continue;
    }
    let j = i;
    while (j < line.length && line.charCodeAt(j) !== 0x1b) j++;
    for (const c of clusters(clean(line.slice(i, j)))) {
      if (used + c.w > width) {
        out += ' '.repeat(width - used);
        used = width;
        break;
      }
      out += c.s;
      used += c.w;
    }
    i = j;
  }
  if (styled) out += RESET;
  return used < width ? out + ' '.repeat(width - used) : out;
}

/** Index just past the escape sequence starting at `i` (CSI, or ESC plus one character). */
function escapeEnd(s: string, i: number): number {
  if (s[i + 1] !== '[') return Math.min(s.length, i + 2);
  let j = i + 2;
  while (j < s.length && (s.charCodeAt(j) < 0x40 || s.charCodeAt(j) > 0x7e)) j++;
  return j + 1;
}
