/**
 * The spelling of a key chord in config files (`ctrl+b`, `alt+x`, `f5`, `-`).
 * Only the syntax is checked here; which chords a terminal can actually deliver is the
 * key-binding layer's business.
 */

/** Modifier names accepted before the key, case-insensitive; `meta`/`super`/`cmd` for terminals that report them. */
export const CHORD_MODIFIERS = ['ctrl', 'alt', 'shift', 'meta', 'super', 'cmd'] as const;
export type ChordModifier = (typeof CHORD_MODIFIERS)[number];

/** Named keys, case-insensitive; the set a VT-style terminal can report (F-keys 1–24 separately). */
export const NAMED_KEYS = [
  'enter', 'return', 'tab', 'space', 'escape', 'esc', 'backspace', 'delete', 'insert',
  'home', 'end', 'pageup', 'pagedown', 'up', 'down', 'left', 'right', 'plus', 'minus',
] as const;

const FUNCTION_KEY_RE = /^f([1-9]|1[0-9]|2[0-4])$/;

export interface KeyChord {
  modifiers: ChordModifier[];
  /** A named key in lower case (`enter`, `f5`) or a single character as written (`N` ≠ `n`). */
  key: string;
}

const MODIFIER_SET: ReadonlySet<string> = new Set(CHORD_MODIFIERS);
const NAMED_SET: ReadonlySet<string> = new Set(NAMED_KEYS);

/** Whether `key` is one printable character (one code point, not a control or space character). */
function isSingleChar(key: string): boolean {
  const chars = [...key];
  return chars.length === 1 && !/[\p{Cc}\p{Z}]/u.test(key);
}

/** Parses `ctrl+shift+x` into modifiers and key; null when it is not a plausible chord. */
export function parseKeyChord(text: string): KeyChord | null {
  if (text === '') return null;
  // A trailing `+` is the plus key itself: `+`, `ctrl++`.
  let key: string;
  let modifierText: string;
  if (text === '+') {
    key = '+';
    modifierText = '';
  } else if (text.endsWith('++')) {
    key = '+';
    modifierText = text.slice(0, -2);
  } else {
    const cut = text.lastIndexOf('+');
    key = text.slice(cut + 1);
    modifierText = cut < 0 ? '' : text.slice(0, cut);
    if (cut >= 0 && modifierText === '') return null;
  }
  const modifiers: ChordModifier[] = [];
  if (modifierText !== '') {
    for (const part of modifierText.split('+')) {
      const mod = part.toLowerCase();
      if (!MODIFIER_SET.has(mod) || modifiers.includes(mod as ChordModifier)) return null;
      modifiers.push(mod as ChordModifier);
    }
  }
  const lower = key.toLowerCase();
  if (NAMED_SET.has(lower) || FUNCTION_KEY_RE.test(lower)) return { modifiers, key: lower };
  if (isSingleChar(key)) return { modifiers, key };
  return null;
}

/** Whether `text` is a plausible key chord string. */
export function isKeyChord(text: string): boolean {
  return parseKeyChord(text) !== null;
}
