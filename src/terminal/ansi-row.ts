/**
 * One buffer row of a headless xterm → a string with SGR escapes, so `format: ansi` reads keep
 * colours and attributes. Each row is self-contained: it starts from default attributes and
 * ends with a reset when anything was set, so rows can be printed or joined independently.
 */
import type { IBufferCell, IBufferLine } from '@xterm/headless';

/** How much of the row's right edge to drop. */
export type AnsiTrim =
  /** Drop cells never written (like `translateToString(true)`); keeps written spaces. */
  | 'content'
  /** Also drop trailing spaces that show nothing (default background, not inverse). */
  | 'visual';

/** SGR parameter numbers, named so the builder below reads as the spec does. */
const SGR = {
  reset: 0,
  bold: 1,
  dim: 2,
  italic: 3,
  underline: 4,
  blink: 5,
  inverse: 7,
  invisible: 8,
  strikethrough: 9,
  overline: 53,
  fgBase: 30,
  fgBrightBase: 90,
  bgBase: 40,
  bgBrightBase: 100,
  fgExtended: 38,
  bgExtended: 48,
} as const;

/** Palette indices below this are the 8 standard colours, below twice it the bright ones. */
const BASIC_COLOURS = 8;

function colourParams(isDefault: boolean, isPalette: boolean, isRgb: boolean, colour: number, base: number, brightBase: number, extended: number): string[] {
  if (isDefault) return [];
  if (isPalette) {
    if (colour < BASIC_COLOURS) return [String(base + colour)];
    if (colour < 2 * BASIC_COLOURS) return [String(brightBase + colour - BASIC_COLOURS)];
    return [String(extended), '5', String(colour)];
  }
  if (isRgb) {
    return [String(extended), '2', String((colour >> 16) & 0xff), String((colour >> 8) & 0xff), String(colour & 0xff)];
  }
  return [];
}

/** The SGR parameter list that sets this cell's attributes from a reset state ('' = default). */
export function cellSgr(cell: IBufferCell): string {
  if (cell.isAttributeDefault()) return '';
  const params: string[] = [];
  if (cell.isBold()) params.push(String(SGR.bold));
  if (cell.isDim()) params.push(String(SGR.dim));
  if (cell.isItalic()) params.push(String(SGR.italic));
  if (cell.isUnderline()) params.push(String(SGR.underline));
  if (cell.isBlink()) params.push(String(SGR.blink));
  if (cell.isInverse()) params.push(String(SGR.inverse));
  if (cell.isInvisible()) params.push(String(SGR.invisible));
  if (cell.isStrikethrough()) params.push(String(SGR.strikethrough));
  if (cell.isOverline()) params.push(String(SGR.overline));
  params.push(...colourParams(cell.isFgDefault(), cell.isFgPalette(), cell.isFgRGB(), cell.getFgColor(), SGR.fgBase, SGR.fgBrightBase, SGR.fgExtended));
  params.push(...colourParams(cell.isBgDefault(), cell.isBgPalette(), cell.isBgRGB(), cell.getBgColor(), SGR.bgBase, SGR.bgBrightBase, SGR.bgExtended));
  return params.join(';');
}

function showsNothing(cell: IBufferCell, trim: AnsiTrim): boolean {
  const chars = cell.getChars();
  if (chars === '') return cell.isBgDefault() && !cell.isInverse();
  if (trim === 'content') return false;
  return chars === ' ' && cell.isBgDefault() && !cell.isInverse();
}

/** Render one row with SGR escapes; `scratch` is a reusable cell from `buffer.getNullCell()`. */
export function rowToAnsi(line: IBufferLine, scratch: IBufferCell, trim: AnsiTrim = 'visual'): string {
  let end = line.length;
  while (end > 0) {
    const cell = line.getCell(end - 1, scratch);
    if (!cell || !showsNothing(cell, trim)) break;
    end--;
  }
  let out = '';
  let current = '';
  for (let x = 0; x < end; x++) {
    const cell = line.getCell(x, scratch);
    if (!cell) break;
    // The second half of a wide character has width 0 and nothing to print.
    if (cell.getWidth() === 0) continue;
    const sgr = cellSgr(cell);
    if (sgr !== current) {
      out += sgr === '' ? `\x1b[${SGR.reset}m` : `\x1b[${SGR.reset};${sgr}m`;
      current = sgr;
    }
    out += cell.getChars() || ' ';
  }
  if (current !== '') out += `\x1b[${SGR.reset}m`;
  return out;
}
