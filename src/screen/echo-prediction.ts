/**
 * When may output be shown before the pane's terminal has parsed it? Only when the result is
 * certain: short printable ASCII (here) that the pane's terminal would print cell by cell, in
 * a pen the compositor's cells carry (`PaneScreen.printPen`, src/terminal/plain-print.ts). The
 * compositor adds the checks on its side (see Compositor.predictEcho).
 */
import type { PrintPen } from './cell.js';
import { colorMapperFor, type ColorDepth } from './color-depth.js';
import { SEQ } from './frame-writer.js';
import { sgrFor } from './sgr.js';

/**
 * The bytes a predicted echo is written between: setting the terminal's pen from the default
 * to `pen` in the colours it shows, and back to the default every frame leaves it in. Empty
 * for the default pen.
 */
export function penAround(pen: PrintPen, colors: ColorDepth): { set: string; reset: string } {
  if (pen.fg === 0 && pen.bg === 0 && pen.attrs === 0) return { set: '', reset: '' };
  const map = colorMapperFor(colors);
  return { set: map === null ? sgrFor(pen.fg, pen.bg, pen.attrs) : sgrFor(map(pen.fg), map(pen.bg), pen.attrs), reset: SEQ.resetPen };
}

/** Longest output predicted: a keystroke's echo, or a short burst of typing. */
export const MAX_PREDICTED = 32;

/** `data` as text when it is 1…MAX_PREDICTED printable ASCII characters (0x20–0x7e), else null. */
export function printableAscii(data: string | Uint8Array): string | null {
  const n = data.length;
  if (n === 0 || n > MAX_PREDICTED) return null;
  let text = '';
  for (let i = 0; i < n; i++) {
    const code = typeof data === 'string' ? data.charCodeAt(i) : (data[i] as number);
    if (code < 0x20 || code > 0x7e) return null;
    text += String.fromCharCode(code);
  }
  return text;
}
