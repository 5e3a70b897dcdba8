import type { IUnicodeVersionProvider, Terminal } from '@xterm/headless';
import { codePointWidth } from './char-width.js';

/** Name under which the provider registers with xterm.js. */
export const UNICODE_PROVIDER_VERSION = 'corral-15';

/** Emoji modifiers (skin tones) and VS16 attach to the emoji before them. */
const EMOJI_ATTACH = { vs16: 0xfe0f, modifierFirst: 0x1f3fb, modifierLast: 0x1f3ff } as const;

/** xterm.js packs a character's properties as (kind << 3) | (width << 1) | joins. */
function packProperties(width: number, join: boolean): number {
  return ((width & 3) << 1) | (join ? 1 : 0);
}

/**
 * Character widths for headless panes that match the UI layer (and modern terminals):
 * emoji are 2 wide, unlike @xterm/headless 6's built-in Unicode 6 tables where every
 * emoji is 1 wide and a skin-tone modifier takes a cell of its own.
 */
export const unicodeProvider: IUnicodeVersionProvider = {
  version: UNICODE_PROVIDER_VERSION,
  wcwidth: (codepoint) => codePointWidth(codepoint),
  charProperties(codepoint, preceding) {
    const attaches = codepoint === EMOJI_ATTACH.vs16
      || (codepoint >= EMOJI_ATTACH.modifierFirst && codepoint <= EMOJI_ATTACH.modifierLast);
    let width: number = attaches ? 0 : codePointWidth(codepoint);
    let join = width === 0 && preceding !== 0;
    if (join) {
      const previousWidth = (preceding >> 1) & 3;
      if (previousWidth === 0) join = false;
      else width = codepoint === EMOJI_ATTACH.vs16 ? 2 : Math.max(previousWidth, width);
    }
    return packProperties(width, join);
  },
};

/** Makes a headless terminal measure characters with `unicodeProvider` (needs allowProposedApi). */
export function useModernUnicode(terminal: Terminal): void {
  if (!terminal.unicode.versions.includes(UNICODE_PROVIDER_VERSION)) terminal.unicode.register(unicodeProvider);
  terminal.unicode.activeVersion = UNICODE_PROVIDER_VERSION;
}
