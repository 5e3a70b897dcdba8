/**
 * The compact cell representation shared by every grid in the compositor.
 *
 * A cell is four numbers, stored column-major in typed arrays by `CellGrid`:
 * - `char`: a Unicode code point, or `CLUSTER_BIT | id` for a multi-code-point grapheme
 *   (interned in a `ClusterTable`), or 0 for the right half of a wide character.
 * - `fg` / `bg`: colour mode in bits 24–25 and value in bits 0–23 — the same encoding
 *   xterm.js uses internally, so copying a cell from a headless terminal is a plain OR.
 * - `flags`: attribute bits 0–8, width in bits 12–13, and a transparency bit for layers.
 */

/** SGR attribute bits, in the order of their SGR "on" codes. */
export const ATTR = {
  bold: 1 << 0,
  dim: 1 << 1,
  italic: 1 << 2,
  underline: 1 << 3,
  blink: 1 << 4,
  inverse: 1 << 5,
  invisible: 1 << 6,
  strikethrough: 1 << 7,
  overline: 1 << 8,
} as const;

/** A pen in this cell encoding: colours with their mode (COLOR_MODE), SGR attributes (ATTR). */
export interface PrintPen {
  fg: number;
  bg: number;
  attrs: number;
}

/** The terminal's default pen: what every frame leaves the terminal in. */
export const DEFAULT_PEN: PrintPen = Object.freeze({ fg: 0, bg: 0, attrs: 0 });

/** Layout of the `flags` word; attributes low so `flags & ATTR_MASK` is the SGR-visible style. */
export const FLAGS = {
  attrMask: 0x1ff,
  widthShift: 12,
  widthMask: 0x3 << 12,
  // Only layer grids use this: a cell the layer never wrote lets lower layers show through.
  transparent: 1 << 15,
} as const;

/** Colour modes, identical to xterm.js `Attributes.CM_*` so xterm cells copy without translation. */
export const COLOR_MODE = {
  default: 0,
  p16: 1 << 24,
  p256: 2 << 24,
  rgb: 3 << 24,
  mask: 3 << 24,
  valueMask: 0xffffff,
} as const;

/** Marks a `char` value as an index into a ClusterTable rather than a code point. */
export const CLUSTER_BIT = 0x80000000;

/** The value every fresh cell holds: a default-styled space of width 1. */
export const BLANK = {
  char: 0x20,
  fg: COLOR_MODE.default,
  bg: COLOR_MODE.default,
  flags: 1 << FLAGS.widthShift,
} as const;

/** The code stored in the right half of a wide character. */
export const WIDE_CONTINUATION = 0;

/** A decoded cell, for APIs and tests; hot paths use the typed arrays directly. */
export interface Cell {
  /** The grapheme; '' for the right half of a wide character. */
  char: string;
  width: 0 | 1 | 2;
  fg: number;
  bg: number;
  /** Bitwise OR of ATTR values. */
  attrs: number;
  transparent: boolean;
}

/** What `CellGrid.set` accepts; omitted fields take the blank cell's values. */
export interface CellInput {
  char: string;
  width?: 1 | 2;
  fg?: number;
  bg?: number;
  attrs?: number;
}

/** Encodes a palette colour: indexes 0–15 use the 16-colour SGR codes, others 38;5;n. */
export function paletteColor(index: number): number {
  return (index < 16 ? COLOR_MODE.p16 : COLOR_MODE.p256) | (index & 0xff);
}

/** Encodes a palette colour that is always written as 38;5;n / 48;5;n, even below 16. */
export function palette256Color(index: number): number {
  return COLOR_MODE.p256 | (index & 0xff);
}

/** Encodes a truecolor value. */
export function rgbColor(r: number, g: number, b: number): number {
  return COLOR_MODE.rgb | ((r & 0xff) << 16) | ((g & 0xff) << 8) | (b & 0xff);
}

/** Packs attributes and width into a flags word. */
export function packFlags(attrs: number, width: number, transparent = false): number {
  return (attrs & FLAGS.attrMask) | (width << FLAGS.widthShift) | (transparent ? FLAGS.transparent : 0);
}

/** The width (0, 1 or 2) stored in a flags word. */
export function widthOf(flags: number): 0 | 1 | 2 {
  return ((flags & FLAGS.widthMask) >> FLAGS.widthShift) as 0 | 1 | 2;
}
