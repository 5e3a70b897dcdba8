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

function colorParams(n: number, background: boolean): string {
  if (n < 8) return String((background ? 40 : 30) + n);
  if (n < 16) return String((background ? 100 : 90) + n - 8);
  return `${background ? 48 : 38};5;${n}`;
}

/** The SGR sequence that sets `style` from the default pen, or '' for the default style. */
export function sgr(style: Style | null | undefined): string {
  if (!style) return '';
  const params: string[] = [];
  if (style.bold) params.push('1');
  if (style.dim) params.push('2');
  if (style.underline) params.push('4');
  if (style.inverse) params.push('7');
  if (style.fg !== undefined) params.push(colorParams(style.fg, false));
  if (style.bg !== undefined) params.push(colorParams(style.bg, true));
  return params.length === 0 ? '' : `\x1b[${params.join(';')}m`;
}

/** `text` in `style`, followed by a reset; plain text when the style is empty. */
export function paint(text: string, style: Style | null | undefined): string {
  const open = sgr(style);
  return open === '' || text === '' ? text : open + text + RESET;
}
