/**
 * Key names (SPEC §6) → the bytes a terminal sends for them, as xterm does.
 * Used by `send-keys` and by the TUI-independent parts of the core; pure and dependency-free.
 */
import { CorralError } from '../contract/protocol.js';

/** Options that change how keys are encoded. */
export interface EncodeKeyOptions {
  /** DECCKM is set by the application (vim, less, …): cursor keys use SS3 instead of CSI. */
  applicationCursor?: boolean;
}

const ESC = '\x1b';
const CSI = '\x1b[';
const SS3 = '\x1bO';

/** Keys whose bytes never depend on terminal modes. */
const PLAIN_KEYS = {
  enter: '\r',
  esc: ESC,
  escape: ESC,
  tab: '\t',
  backspace: '\x7f',
  space: ' ',
  pageup: `${CSI}5~`,
  pagedown: `${CSI}6~`,
  delete: `${CSI}3~`,
  insert: `${CSI}2~`,
  'shift+tab': `${CSI}Z`,
  f1: `${SS3}P`,
  f2: `${SS3}Q`,
  f3: `${SS3}R`,
  f4: `${SS3}S`,
  f5: `${CSI}15~`,
  f6: `${CSI}17~`,
  f7: `${CSI}18~`,
  f8: `${CSI}19~`,
  f9: `${CSI}20~`,
  f10: `${CSI}21~`,
  f11: `${CSI}23~`,
  f12: `${CSI}24~`,
} as const;

/** Cursor keys: the final byte; prefixed with CSI normally and SS3 in application cursor mode. */
const CURSOR_KEYS = {
  up: 'A',
  down: 'B',
  right: 'C',
  left: 'D',
  home: 'H',
  end: 'F',
} as const;

/** Control characters for the non-letter keys that have one (what xterm sends for ctrl+<char>). */
const CTRL_SYMBOLS = {
  '@': '\x00',
  space: '\x00',
  ' ': '\x00',
  '[': '\x1b',
  '\\': '\x1c',
  ']': '\x1d',
  '^': '\x1e',
  _: '\x1f',
  '?': '\x7f',
} as const;

/** Every named key, for help text and error messages. */
export const KEY_NAMES: readonly string[] = [
  ...Object.keys(PLAIN_KEYS),
  ...Object.keys(CURSOR_KEYS),
  'ctrl+<letter>',
  'ctrl+[ \\ ] ^ _ @ space',
  'alt+<key>',
  '<one literal character>',
];

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** True when `s` is exactly one user-perceived character (one code point, or one emoji/grapheme). */
function isSingleCharacter(s: string): boolean {
  if (s.length === 0) return false;
  if ([...s].length === 1) return true;
  const it = segmenter.segment(s)[Symbol.iterator]();
  const first = it.next();
  return !first.done && first.value.segment === s;
}

function hasKey<T extends object>(table: T, key: string): key is Extract<keyof T, string> {
  return Object.prototype.hasOwnProperty.call(table, key);
}

function encodeOrUndefined(name: string, opts: EncodeKeyOptions): string | undefined {
  // A literal character is taken verbatim, so "A" stays upper-case and "+" works.
  if (isSingleCharacter(name)) return name;
  const lower = name.toLowerCase();
  if (hasKey(PLAIN_KEYS, lower)) return PLAIN_KEYS[lower];
  if (hasKey(CURSOR_KEYS, lower)) return (opts.applicationCursor ? SS3 : CSI) + CURSOR_KEYS[lower];
  if (lower.startsWith('alt+') || lower.startsWith('meta+')) {
    const rest = name.slice(name.indexOf('+') + 1);
    const inner = rest.length > 0 ? encodeOrUndefined(rest, opts) : undefined;
    return inner === undefined ? undefined : ESC + inner;
  }
  if (lower.startsWith('ctrl+')) {
    const rest = lower.slice('ctrl+'.length);
    // ctrl+alt+x is alt+(ctrl+x): the ESC prefix wraps the control character.
    if (rest.startsWith('alt+') || rest.startsWith('meta+')) {
      const inner = encodeOrUndefined(`ctrl+${rest.slice(rest.indexOf('+') + 1)}`, opts);
      return inner === undefined ? undefined : ESC + inner;
    }
    if (/^[a-z]$/.test(rest)) return String.fromCharCode(rest.charCodeAt(0) & 0x1f);
    if (hasKey(CTRL_SYMBOLS, rest)) return CTRL_SYMBOLS[rest];
  }
  return undefined;
}

/** The bytes for one key name (case-insensitive); throws `invalid_key` for an unknown name. */
export function encodeKey(name: string, opts: EncodeKeyOptions = {}): string {
  const bytes = encodeOrUndefined(name, opts);
  if (bytes === undefined) {
    throw new CorralError('invalid_key', `unknown key "${name}"; known keys: ${KEY_NAMES.join(', ')}`, {
      key: name,
    });
  }
  return bytes;
}

/** The concatenated bytes for several keys; validates every name before returning anything. */
export function encodeKeys(names: readonly string[], opts: EncodeKeyOptions = {}): string {
  return names.map((name) => encodeKey(name, opts)).join('');
}
