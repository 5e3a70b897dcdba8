/** Bracketed paste (DEC mode 2004): the markers and framing text as one paste. */

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** Wraps text as a bracketed paste; markers inside it are dropped so it cannot end itself early. */
export function bracketedPaste(text: string): string {
  return PASTE_START + text.split(PASTE_END).join('').split(PASTE_START).join('') + PASTE_END;
}
