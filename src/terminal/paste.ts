/** Bracketed paste (DEC mode 2004): the markers and framing text as one paste. */

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** Either marker, in its 7-bit (ESC [) or 8-bit (C1 CSI) form. */
const PASTE_MARKER_RE = /(?:\x1b\[|\x9b)20[01]~/g;

/**
 * `text` without any paste marker, removed until none is left: one pass is not enough, as
 * `\x1b[20\x1b[201~1~` shows — removing the inner marker joins the outer halves into a new one.
 */
export function stripPasteMarkers(text: string): string {
  for (;;) {
    const stripped = text.replace(PASTE_MARKER_RE, '');
    if (stripped === text) return text;
    text = stripped;
  }
}

/** Wraps text as a bracketed paste; markers inside it are dropped so it cannot end itself early. */
export function bracketedPaste(text: string): string {
  return PASTE_START + stripPasteMarkers(text) + PASTE_END;
}
