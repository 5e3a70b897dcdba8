import { ATTR, COLOR_MODE } from './cell.js';

/** SGR parameters for each attribute bit: how to turn it on and off individually. */
const ATTR_CODES: readonly { bit: number; on: number; off: number }[] = [
  { bit: ATTR.bold, on: 1, off: 22 },
  { bit: ATTR.dim, on: 2, off: 22 },
  { bit: ATTR.italic, on: 3, off: 23 },
  { bit: ATTR.underline, on: 4, off: 24 },
  { bit: ATTR.blink, on: 5, off: 25 },
  { bit: ATTR.inverse, on: 7, off: 27 },
  { bit: ATTR.invisible, on: 8, off: 28 },
  { bit: ATTR.strikethrough, on: 9, off: 29 },
  { bit: ATTR.overline, on: 53, off: 55 },
];

/** Bold and dim share one "off" code (22), so clearing either clears both. */
const BOLD_OR_DIM = ATTR.bold | ATTR.dim;

/** Base SGR codes per colour slot: 16-colour normal/bright, extended, and default. */
const COLOR_BASE = {
  fg: { normal: 30, bright: 90, extended: 38, default: 39 },
  bg: { normal: 40, bright: 100, extended: 48, default: 49 },
} as const;

/** The SGR parameters that select `color` for the foreground or background. */
function colorParams(color: number, slot: 'fg' | 'bg'): string {
  const base = COLOR_BASE[slot];
  const mode = color & COLOR_MODE.mask;
  const value = color & COLOR_MODE.valueMask;
  if (mode === COLOR_MODE.default) return String(base.default);
  if (mode === COLOR_MODE.p16) return String(value < 8 ? base.normal + value : base.bright + (value & 7));
  if (mode === COLOR_MODE.p256) return `${base.extended};5;${value}`;
  return `${base.extended};2;${(value >> 16) & 0xff};${(value >> 8) & 0xff};${value & 0xff}`;
}

function join(params: string, param: string): string {
  return params === '' ? param : `${params};${param}`;
}

/** Parameters that reset and then set the target style from scratch. */
function fromReset(toFg: number, toBg: number, toAttrs: number): string {
  let params = '0';
  for (const code of ATTR_CODES) if ((toAttrs & code.bit) !== 0) params += `;${code.on}`;
  if (toFg !== COLOR_MODE.default) params += `;${colorParams(toFg, 'fg')}`;
  if (toBg !== COLOR_MODE.default) params += `;${colorParams(toBg, 'bg')}`;
  return params;
}

/**
 * The shortest SGR sequence that changes the terminal's pen from one style to another
 * ('' when they are equal): individual on/off codes, or a reset plus the target when
 * that is shorter. Attributes are ATTR bit sets, colours are cell colour encodings.
 */
export function sgrTransition(
  fromFg: number,
  fromBg: number,
  fromAttrs: number,
  toFg: number,
  toBg: number,
  toAttrs: number,
): string {
  if (fromFg === toFg && fromBg === toBg && fromAttrs === toAttrs) return '';
  let params = '';
  let from = fromAttrs;
  if ((from & BOLD_OR_DIM & ~toAttrs) !== 0) {
    params = '22';
    from &= ~BOLD_OR_DIM;
  }
  const flipped = from ^ toAttrs;
  if (flipped !== 0) {
    for (const code of ATTR_CODES) {
      if ((flipped & code.bit) !== 0) params = join(params, String((toAttrs & code.bit) !== 0 ? code.on : code.off));
    }
  }
  if (fromFg !== toFg) params = join(params, colorParams(toFg, 'fg'));
  if (fromBg !== toBg) params = join(params, colorParams(toBg, 'bg'));
  // A reset can only be shorter when something is switched off.
  const turnsOff = (fromAttrs & ~toAttrs) !== 0
    || (fromFg !== toFg && toFg === COLOR_MODE.default)
    || (fromBg !== toBg && toBg === COLOR_MODE.default);
  if (turnsOff) {
    const reset = fromReset(toFg, toBg, toAttrs);
    // "ESC[m" alone means reset.
    const shortest = reset === '0' ? '' : reset;
    if (shortest.length < params.length) params = shortest;
  }
  return `\x1b[${params}m`;
}

/** The SGR sequence that sets a style from the default pen. */
export function sgrFor(fg: number, bg: number, attrs: number): string {
  return sgrTransition(COLOR_MODE.default, COLOR_MODE.default, 0, fg, bg, attrs);
}
