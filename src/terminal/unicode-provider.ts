import type { IUnicodeVersionProvider, Terminal } from '@xterm/headless';
import { codePointWidth } from '../screen/char-width.js';
import { charProperties } from '../screen/graphemes.js';

/** Name under which the provider registers with xterm.js. */
export const UNICODE_PROVIDER_VERSION = 'corral-15';

/**
 * Unicode 15 cell widths and clusters for headless terminals, from the same step function
 * the chrome draws with (`graphemes.ts`): emoji are 2 wide, ZWJ sequences, flags and skin
 * tones are one cluster — unlike @xterm/headless 6's built-in Unicode 6 tables, where every
 * emoji is 1 wide and each part of a sequence takes cells of its own.
 */
export const unicodeProvider: IUnicodeVersionProvider = {
  version: UNICODE_PROVIDER_VERSION,
  wcwidth: (codepoint) => codePointWidth(codepoint),
  charProperties,
};

/** Makes a headless terminal measure characters with `unicodeProvider` (needs allowProposedApi). */
export function useModernUnicode(terminal: Terminal): void {
  if (!terminal.unicode.versions.includes(UNICODE_PROVIDER_VERSION)) terminal.unicode.register(unicodeProvider);
  terminal.unicode.activeVersion = UNICODE_PROVIDER_VERSION;
}
