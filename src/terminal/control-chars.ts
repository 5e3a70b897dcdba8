/**
 * Control characters: the C0 set (U+0000–U+001F), DEL (U+007F) and the C1 set
 * (U+0080–U+009F) — everything a terminal or a line editor may act on rather than print.
 * Used two ways: the scripting gate refuses them in text typed into a pane (naming the
 * character), and text from panes or peers shown to humans has them made visible.
 * Dependency-free: the CLI bundle imports it.
 */

/** One control character, globally (for replace). */
const CONTROL_RE = /[\x00-\x1f\x7f-\x9f]/g;

/** Mnemonics people know these C0 characters by. */
const C0_NAMES: Readonly<Record<number, string>> = {
  0x00: 'NUL',
  0x07: 'BEL',
  0x08: 'BS',
  0x09: 'TAB',
  0x0a: 'LF',
  0x0d: 'CR',
  0x1b: 'ESC',
};

/** The C1 characters terminals act on as 8-bit forms of ESC sequences. */
const C1_NAMES: Readonly<Record<number, string>> = {
  0x84: 'IND',
  0x85: 'NEL',
  0x88: 'HTS',
  0x8d: 'RI',
  0x8e: 'SS2',
  0x8f: 'SS3',
  0x90: 'DCS',
  0x98: 'SOS',
  0x9b: 'CSI',
  0x9c: 'ST',
  0x9d: 'OSC',
  0x9e: 'PM',
  0x9f: 'APC',
};

const ESC = 0x1b;

/** Whether the code point is a C0 control, DEL or a C1 control. */
export function isControl(codePoint: number): boolean {
  return codePoint <= 0x1f || (codePoint >= 0x7f && codePoint <= 0x9f);
}

/** `U+000F`: how Unicode names a code point. */
export function codePointId(codePoint: number): string {
  return `U+${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A control character as a person can find it: `U+000F (ctrl+O)`, `U+001B (ESC)`, `U+009B (C1 CSI)`. */
export function controlName(codePoint: number): string {
  if (codePoint === 0x7f) return `${codePointId(codePoint)} (DEL)`;
  if (codePoint >= 0x80) return `${codePointId(codePoint)} (C1${C1_NAMES[codePoint] ? ` ${C1_NAMES[codePoint]}` : ' control'})`;
  const ctrl = `ctrl+${String.fromCharCode(codePoint + 0x40)}`;
  const name = C0_NAMES[codePoint];
  if (codePoint === ESC || codePoint === 0x09) return `${codePointId(codePoint)} (${name})`;
  return `${codePointId(codePoint)} (${name ? `${name}, ` : ''}${ctrl})`;
}

/** The first control character in `text` (TAB skipped when allowed), with its UTF-16 index. */
export function firstControl(text: string, opts: { allowTab: boolean }): { codePoint: number; index: number } | null {
  for (let i = 0; i < text.length; i++) {
    const codePoint = text.charCodeAt(i);
    if (isControl(codePoint) && !(opts.allowTab && codePoint === 0x09)) return { codePoint, index: i };
  }
  return null;
}

/**
 * `text` with every control character made visible, the way `cat -v` and tmux show them:
 * C0 in caret notation (`^[` for ESC, `^J` for a newline, `^I` for TAB), DEL as `^?`, C1 as
 * `\x9b`. For text that came from a pane or a peer and is shown to a human: it can neither
 * move the cursor, clear the screen, retitle the window nor write the clipboard.
 * `keepNewlines` leaves `\n` alone, for multi-line output whose fields were made visible already.
 */
export function visibleControls(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return text.replace(CONTROL_RE, (char) => {
    const codePoint = char.charCodeAt(0);
    if (codePoint === 0x0a && opts.keepNewlines) return char;
    if (codePoint <= 0x1f) return `^${String.fromCharCode(codePoint + 0x40)}`;
    if (codePoint === 0x7f) return '^?';
    return `\\x${codePoint.toString(16)}`;
  });
}
