/**
 * Styles for the chrome, written as SGR escapes by us rather than by Ink's `color`/`bold`
 * props. Ink styles text through chalk, and chalk decides its colour level once, when it is
 * first imported, from the TTY-ness of stdout and env vars (`FORCE_COLOR`, `NO_COLOR`, CI
 * vars). The chrome is rendered offscreen for a compositor, so that decision is meaningless
 * here and made it non-deterministic (tests and pipes got no colour at all). Setting
 * `chalk.level` is not a fix either: the build bundles our code but loads ink from
 * node_modules, so our `chalk` import would be a different instance from Ink's. Ink passes
 * SGR in text through untouched (it re-tokenises and re-emits it), so painting the strings
 * ourselves is deterministic everywhere. Do not use Ink's colour props in components/.
 */

import { ATTR, COLOR_MODE, palette256Color, paletteColor } from '../src/screen/cell.js';
import { sgrFor } from '../src/screen/sgr.js';

/** Colour numbers: 0–15 are the user's 16-colour theme palette, 16–255 the xterm 256 cube. */
export const COLOR = {
  // The 16 theme colours, so the chrome follows the user's terminal theme.
  black: 0,
  red: 1,
  green: 2,
  yellow: 3,
  blue: 4,
  magenta: 5,
  cyan: 6,
  white: 7,
  gray: 8,
  brightRed: 9,
  brightGreen: 10,
  brightYellow: 11,
  brightBlue: 12,
  brightMagenta: 13,
  brightCyan: 14,
  brightWhite: 15,
  // No orange among the 16; xterm-256 208 is the usual stand-in.
  orange: 208,
} as const;

export interface Style {
  /** A colour number (see COLOR). */
  fg?: number;
  bg?: number;
  bold?: boolean;
  dim?: boolean;
  inverse?: boolean;
  underline?: boolean;
}

/** Returns to the default pen; ends every painted run so nothing bleeds into the next. */
export const RESET = '\x1b[0m';

/** A colour number (see COLOR) as a cell colour. */
function cellColor(n: number | undefined): number {
  if (n === undefined) return COLOR_MODE.default;
  return n < 16 ? paletteColor(n) : palette256Color(n);
}

/** A chrome style as the compositor's cell colours and attribute bits. */
export function cellStyle(style: Style | null | undefined): { fg: number; bg: number; attrs: number } {
  if (!style) return { fg: COLOR_MODE.default, bg: COLOR_MODE.default, attrs: 0 };
  let attrs = 0;
  if (style.bold) attrs |= ATTR.bold;
  if (style.dim) attrs |= ATTR.dim;
  if (style.underline) attrs |= ATTR.underline;
  if (style.inverse) attrs |= ATTR.inverse;
  return { fg: cellColor(style.fg), bg: cellColor(style.bg), attrs };
}

/** The SGR sequence that sets `style` from the default pen, or '' for the default style (src/screen/sgr.ts). */
export function sgr(style: Style | null | undefined): string {
  const { fg, bg, attrs } = cellStyle(style);
  return sgrFor(fg, bg, attrs);
}

/** `text` in `style`, followed by a reset; plain text when the style is empty. */
export function paint(text: string, style: Style | null | undefined): string {
  const open = sgr(style);
  return open === '' || text === '' ? text : open + text + RESET;
}
