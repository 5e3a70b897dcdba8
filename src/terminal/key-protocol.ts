/**
 * Modified keys between the outer terminal and a pane (SPEC §12 keyboard fidelity).
 *
 * The TUI asks its own terminal for the kitty keyboard protocol's "disambiguate" level and for
 * xterm's modifyOtherKeys 1 (src/tui/terminal-mode.ts), so Shift+Enter, Ctrl+Enter, Ctrl+Tab,
 * Ctrl+Shift+letter … arrive as `CSI code ; mods u` or `CSI 27 ; mods ; code ~` instead of
 * the same bytes as their plain keys. Each key is then sent to the focused pane in the form
 * that pane's application asked for (src/terminal/keyboard-modes.ts): kitty's form, xterm's,
 * or the legacy bytes every program understands (Shift+Enter is then plain Enter, as in a
 * terminal without either protocol). Pure and dependency-free.
 */
import type { KeyboardModesView } from './keyboard-modes.js';

/** A key reported with its modifiers. `mods` is the protocol's value minus one: a bit set. */
export interface KeyPress {
  /** Unicode code point of the key (unshifted), or a kitty functional-key code. */
  code: number;
  mods: number;
}

export const MOD = { shift: 1, alt: 2, ctrl: 4, super: 8, hyper: 16, meta: 32, capsLock: 64, numLock: 128 } as const;

/** Lock states are not modifiers a legacy or xterm encoding can carry. */
const LOCKS = MOD.capsLock | MOD.numLock;

/** kitty flags: 1 disambiguate escape codes, 8 report all keys as escape codes. */
const KITTY = { disambiguate: 1, allKeys: 8 } as const;

// eslint-disable-next-line no-control-regex
const KITTY_KEY = /^\x1b\[(\d+)(?::[\d:]*)?(?:;(\d+)(?::\d+)?)?(?:;[\d:]*)?u$/;
// eslint-disable-next-line no-control-regex
const XTERM_KEY = /^\x1b\[27;(\d+);(\d+)~$/;

/** The key in a complete CSI sequence from the outer terminal, or null when it is not a key report. */
export function decodeKeyReport(seq: string): KeyPress | null {
  const kitty = KITTY_KEY.exec(seq);
  if (kitty) return { code: Number(kitty[1]), mods: kitty[2] ? Math.max(0, Number(kitty[2]) - 1) : 0 };
  const xterm = XTERM_KEY.exec(seq);
  if (xterm) return { code: Number(xterm[2]), mods: Math.max(0, Number(xterm[1]) - 1) };
  return null;
}

/** kitty's keypad keys (private-use code points) and what a legacy terminal sends for them. */
const KEYPAD: Readonly<Record<number, string>> = {
  57399: '0', 57400: '1', 57401: '2', 57402: '3', 57403: '4', 57404: '5', 57405: '6', 57406: '7', 57407: '8', 57408: '9',
  57409: '.', 57410: '/', 57411: '*', 57412: '-', 57413: '+', 57414: '\r', 57415: '=',
};

/** ctrl+<symbol> control characters, as xterm sends them (digits 2–8 are the VT220 aliases). */
const CTRL_SYMBOL: Readonly<Record<string, string>> = {
  ' ': '\x00', '@': '\x00', '2': '\x00', '[': '\x1b', '3': '\x1b', '\\': '\x1c', '4': '\x1c',
  ']': '\x1d', '5': '\x1d', '^': '\x1e', '6': '\x1e', '_': '\x1f', '7': '\x1f', '/': '\x1f', '?': '\x7f', '8': '\x7f',
};

/** What a terminal without either protocol sends for the key ('' when it sends nothing). */
export function legacyBytes(key: KeyPress): string {
  const shift = (key.mods & MOD.shift) !== 0;
  const alt = (key.mods & MOD.alt) !== 0;
  const ctrl = (key.mods & MOD.ctrl) !== 0;
  let base: string;
  switch (key.code) {
    case 13:
      base = '\r';
      break;
    case 9:
      base = shift ? '\x1b[Z' : '\t';
      break;
    case 127:
    case 8:
      base = ctrl ? '\x08' : '\x7f';
      break;
    case 27:
      base = '\x1b';
      break;
    default: {
      if (KEYPAD[key.code] !== undefined) {
        base = KEYPAD[key.code]!;
        break;
      }
      // Other private-use codes are kitty's functional keys (modifier keys alone, media keys).
      if (key.code >= 0xe000 && key.code <= 0xf8ff) return '';
      if (key.code < 0x20 || key.code > 0x10ffff) return '';
      let ch = String.fromCodePoint(key.code);
      if (shift && /^[a-z]$/.test(ch)) ch = ch.toUpperCase();
      if (ctrl) {
        if (/^[a-zA-Z]$/.test(ch)) ch = String.fromCharCode(ch.charCodeAt(0) & 0x1f);
        else if (CTRL_SYMBOL[ch] !== undefined) ch = CTRL_SYMBOL[ch]!;
      }
      base = ch;
    }
  }
  return alt ? `\x1b${base}` : base;
}

/** `CSI code ; mods u`, the kitty form (mods omitted when none). */
function kittyBytes(key: KeyPress, keepLocks: boolean): string {
  const mods = keepLocks ? key.mods : key.mods & ~LOCKS;
  return mods === 0 ? `\x1b[${key.code}u` : `\x1b[${key.code};${mods + 1}u`;
}

/** Whether the legacy bytes carry every modifier of the key (xterm's modifyOtherKeys 1 keeps those). */
function legacyIsExact(key: KeyPress): boolean {
  const mods = key.mods & ~LOCKS;
  if (mods === 0) return true;
  if ((mods & ~(MOD.ctrl | MOD.alt | MOD.shift)) !== 0) return false;
  const letter = (key.code >= 0x61 && key.code <= 0x7a) || (key.code >= 0x41 && key.code <= 0x5a);
  // Alt is the ESC prefix; shift on a letter is its capital; shift+tab is CSI Z.
  if (mods === MOD.alt) return true;
  if (mods === MOD.shift) return key.code === 9 || letter;
  // ctrl(+alt) on a letter or one of the symbols with a control character of its own.
  if ((mods & MOD.shift) === 0) return letter || (key.code > 0x20 && CTRL_SYMBOL[String.fromCodePoint(key.code)] !== undefined);
  return false;
}

export interface EncodeOptions {
  /**
   * For an app that asked for nothing: send kitty's form for keys whose legacy bytes would
   * lose a modifier (Shift+Enter, Ctrl+Enter, Ctrl+Tab …) instead of dropping it. For agents,
   * which read those forms without asking (Claude Code does; tmux's `extended-keys always`).
   */
  extendedByDefault?: boolean;
}

/**
 * The bytes for the key in the form the pane asked for: kitty's when it enabled kitty flags,
 * xterm's `CSI 27 ; mods ; code ~` under modifyOtherKeys (level 1 only where the legacy bytes
 * would lose a modifier), else the legacy bytes (see EncodeOptions for agents).
 */
export function encodeKeyForPane(key: KeyPress, modes: KeyboardModesView, options: EncodeOptions = {}): string {
  if ((modes.kittyFlags & (KITTY.disambiguate | KITTY.allKeys)) !== 0) {
    // Unmodified Enter, Tab and Backspace stay legacy at the disambiguate level (kitty's rule).
    const plain = (key.mods & ~LOCKS) === 0;
    if (plain && (modes.kittyFlags & KITTY.allKeys) === 0 && (key.code === 13 || key.code === 9 || key.code === 127)) return legacyBytes(key);
    if (KEYPAD[key.code] !== undefined && plain && (modes.kittyFlags & KITTY.allKeys) === 0) return legacyBytes(key);
    return kittyBytes(key, (modes.kittyFlags & KITTY.allKeys) !== 0);
  }
  const mods = key.mods & ~LOCKS;
  if (modes.modifyOtherKeys >= 1 && mods !== 0 && key.code < 0xe000) {
    if (modes.modifyOtherKeys === 1 && legacyIsExact(key)) return legacyBytes(key);
    // Shift alone on a printable character is just the character, at every level.
    if (mods === MOD.shift && key.code > 0x20 && key.code !== 127 && key.code !== 13 && key.code !== 9) return legacyBytes(key);
    return `\x1b[27;${mods + 1};${key.code}~`;
  }
  if (options.extendedByDefault && key.code < 0xe000 && !legacyIsExact(key)) return kittyBytes(key, false);
  return legacyBytes(key);
}
