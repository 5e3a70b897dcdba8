/** Bracketed paste (DEC mode 2004): the markers, and framing text as one paste, whole or as it arrives. */

export const PASTE_START = '\x1b[200~';
export const PASTE_END = '\x1b[201~';

/** Either marker, in its 7-bit (ESC [) or 8-bit (C1 CSI) form. */
const PASTE_MARKER_RE = /(?:\x1b\[|\x9b)20[01]~/g;
const PASTE_MARKERS = ['\x1b[200~', '\x1b[201~', '\x9b200~', '\x9b201~'] as const;
/** Every marker starts with one of these and holds no other. */
const MARKER_OPENER = /[\x1b\x9b]/g;

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

/** Whether `piece` is a whole marker, the start of one, or neither. */
function markerMatch(piece: string): 'whole' | 'start' | 'none' {
  let start = false;
  for (const marker of PASTE_MARKERS) {
    if (marker === piece) return 'whole';
    if (marker.startsWith(piece)) start = true;
  }
  return start ? 'start' : 'none';
}

/**
 * `stripPasteMarkers` for text that arrives in pieces: what it returns for each piece,
 * joined, is what `stripPasteMarkers` returns for the whole text. It holds back only what
 * could still become a marker — an ESC (or C1 CSI) followed by the start of one — and each
 * of those is a stack entry: a marker completed at the top is dropped, which may join the
 * entry below into another (the nested case above). Linear in the text, whatever it holds.
 */
export class PasteMarkerFilter {
  /** Held pieces, each an opener and what followed it: the start of a marker, never a whole one. */
  private held: string[] = [];

  push(text: string): string {
    let out = '';
    let at = 0;
    while (at < text.length) {
      if (this.held.length === 0) {
        MARKER_OPENER.lastIndex = at;
        const opener = MARKER_OPENER.exec(text);
        if (opener === null) {
          out += at === 0 ? text : text.slice(at);
          break;
        }
        out += text.slice(at, opener.index);
        this.held.push(opener[0]);
        at = opener.index + 1;
        continue;
      }
      const c = text[at++]!;
      if (c === '\x1b' || c === '\x9b') {
        // A marker holds no second opener: the piece below stays a start, waiting on this one.
        this.held.push(c);
        continue;
      }
      const top = this.held.length - 1;
      const piece = this.held[top] + c;
      const match = markerMatch(piece);
      if (match === 'whole') this.held.pop();
      else if (match === 'start') this.held[top] = piece;
      else {
        // The top can no longer become a marker, so nothing below it can either.
        out += this.held.join('') + c;
        this.held = [];
      }
    }
    return out;
  }

  /** The end of the text: what is held is not a marker after all. */
  end(): string {
    const rest = this.held.join('');
    this.held = [];
    return rest;
  }
}

/**
 * A paste's text on its way to a pane, piece by piece as the terminal sends it: newlines as the
 * CR a shell's line editor expects (terminals send a paste's newlines as CR already; a lone LF
 * or CRLF becomes one CR, also across pieces), and, when the pane's program asked for
 * bracketed paste, between the markers with every marker inside it removed.
 */
export class PasteEncoder {
  private readonly markers: PasteMarkerFilter | null;
  /** The last piece ended with CR: an LF starting the next one is its pair. */
  private endedWithCr = false;

  constructor(readonly bracketed: boolean) {
    this.markers = bracketed ? new PasteMarkerFilter() : null;
  }

  /** What goes to the pane before the paste's text. */
  start(): string {
    return this.bracketed ? PASTE_START : '';
  }

  /** A piece of the paste, as it goes to the pane (possibly less now, the rest later). */
  push(text: string): string {
    let body = this.endedWithCr && text.startsWith('\n') ? text.slice(1) : text;
    if (text.length > 0) this.endedWithCr = text.endsWith('\r');
    if (body.indexOf('\n') !== -1) body = body.replace(/\r?\n/g, '\r');
    return this.markers === null ? body : this.markers.push(body);
  }

  /** What goes to the pane after the paste's text. */
  end(): string {
    return this.markers === null ? '' : this.markers.end() + PASTE_END;
  }
}

/** A whole paste, as it goes to the pane (`PasteEncoder` in one piece). */
export function encodePaste(text: string, bracketed: boolean): string {
  const encoder = new PasteEncoder(bracketed);
  return encoder.start() + encoder.push(text) + encoder.end();
}
