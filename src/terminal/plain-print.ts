/**
 * The pen xterm.js would print ASCII with at its cursor, when it would print it cell by cell
 * exactly as a terminal does — insert mode off, the ASCII character set — the pane-side
 * condition of echo prediction (src/screen/echo-prediction.ts, Compositor.predictEcho). A
 * coloured or bold pen (an agent drawing its input line, a coloured prompt left on) is
 * predicted too: the compositor writes the pen's SGR around the echo. Reads xterm.js private
 * state (`_core._inputHandler._curAttrData`, `_core._charsetService.charset`/`glevel`,
 * verified against @xterm/headless 6.0); if it is not there, nothing is predicted.
 */
import type { IBufferCell, Terminal } from '@xterm/headless';
import { ATTR, DEFAULT_PEN, type PrintPen } from '../screen/cell.js';

export type { PrintPen };

/** What xterm's cells and its current pen (`AttributeData`) both answer. */
type Attributes = Pick<
  IBufferCell,
  'isBold' | 'isDim' | 'isItalic' | 'isUnderline' | 'isBlink' | 'isInverse' | 'isInvisible' | 'isStrikethrough' | 'isOverline' | 'getFgColorMode' | 'getBgColorMode' | 'getFgColor' | 'getBgColor' | 'isAttributeDefault'
>;

/** The SGR attributes of an xterm cell or pen, as the compositor's ATTR bits. */
export function attrsOf(cell: Attributes): number {
  if (cell.isAttributeDefault()) return 0;
  let attrs = 0;
  if (cell.isBold()) attrs |= ATTR.bold;
  if (cell.isDim()) attrs |= ATTR.dim;
  if (cell.isItalic()) attrs |= ATTR.italic;
  if (cell.isUnderline()) attrs |= ATTR.underline;
  if (cell.isBlink()) attrs |= ATTR.blink;
  if (cell.isInverse()) attrs |= ATTR.inverse;
  if (cell.isInvisible()) attrs |= ATTR.invisible;
  if (cell.isStrikethrough()) attrs |= ATTR.strikethrough;
  if (cell.isOverline()) attrs |= ATTR.overline;
  return attrs;
}

/** A colour of an xterm cell or pen in the compositor's encoding: its mode bits and value, 0 for the default. */
export function colorOf(mode: number, value: number): number {
  return mode === 0 ? 0 : mode | (value & 0xffffff);
}

interface XtermInternals {
  _core?: {
    _inputHandler?: { _curAttrData?: Partial<Attributes> & { fg?: number; bg?: number; hasExtendedAttrs?: () => number } };
    _charsetService?: { charset?: unknown; glevel?: number };
  };
}

/**
 * The pen printable ASCII would get at xterm's cursor, when xterm would print it cell by cell
 * as a terminal does; null when it would not (insert mode, another character set), or when
 * the pen carries what the compositor's cells do not (underline styles and colours, links).
 */
export function printPen(terminal: Terminal): PrintPen | null {
  if (terminal.modes.insertMode) return null;
  const core = (terminal as unknown as XtermInternals)._core;
  const pen = core?._inputHandler?._curAttrData;
  const charsets = core?._charsetService;
  // `charset` is only assigned once an application designates one; unset or null is ASCII.
  if (!pen || typeof charsets?.glevel !== 'number' || charsets.charset != null) return null;
  if (pen.fg === 0 && pen.bg === 0) return DEFAULT_PEN;
  if (typeof pen.getFgColorMode !== 'function' || typeof pen.hasExtendedAttrs !== 'function' || pen.hasExtendedAttrs()) return null;
  const attributes = pen as Attributes;
  return {
    fg: colorOf(attributes.getFgColorMode(), attributes.getFgColor()),
    bg: colorOf(attributes.getBgColorMode(), attributes.getBgColor()),
    attrs: attrsOf(attributes),
  };
}
