/**
 * Splits the outer terminal's input into what the TUI handles itself — SGR mouse reports,
 * focus in/out, bracketed pastes, keys reported with modifiers — and plain data that goes to the focused pane as is.
 * Sequences split across reads are held until complete; a lone ESC is released after a
 * short wait so the Escape key still works. A paste is passed on as it arrives (start, its
 * text piece by piece, end), never gathered whole: a 4 MB paste must not cost the server 8 MB
 * of string before its first byte reaches the pane.
 */
import { PASTE_END, PASTE_START } from '../terminal/paste.js';
import { decodeKeyReport, type KeyPress } from '../terminal/key-protocol.js';

export type InputEvent =
  | { kind: 'data'; data: string }
  /** A key the outer terminal reported with its modifiers (kitty `CSI … u`, xterm `CSI 27;…~`). */
  | { kind: 'key'; key: KeyPress }
  /** The terminal began a bracketed paste: `paste-text` pieces follow until `paste-end`. */
  | { kind: 'paste-start' }
  | { kind: 'paste-text'; text: string }
  | { kind: 'paste-end' }
  | { kind: 'focus'; focused: boolean }
  | { kind: 'mouse'; mouse: MouseEvent };

export interface MouseEvent {
  /** 0-based screen cell. */
  x: number;
  y: number;
  action: 'press' | 'release' | 'drag' | 'move' | 'wheel-up' | 'wheel-down';
  /** 0 left, 1 middle, 2 right (for press/release/drag). */
  button: number;
  shift: boolean;
  alt: boolean;
  ctrl: boolean;
  /** The report as received, to pass through to apps that asked for the mouse. */
  raw: { code: number; final: 'M' | 'm' };
}

// eslint-disable-next-line no-control-regex
const SGR_MOUSE = /^\x1b\[<(\d+);(\d+);(\d+)([Mm])/;

/** Decodes an SGR mouse report's button code. */
export function decodeMouse(code: number, x: number, y: number, final: 'M' | 'm'): MouseEvent {
  const shift = (code & 4) !== 0;
  const alt = (code & 8) !== 0;
  const ctrl = (code & 16) !== 0;
  const motion = (code & 32) !== 0;
  const wheel = (code & 64) !== 0;
  const button = code & 3;
  let action: MouseEvent['action'];
  if (wheel) action = button === 0 ? 'wheel-up' : 'wheel-down';
  else if (motion) action = button === 3 ? 'move' : 'drag';
  else action = final === 'm' ? 'release' : 'press';
  return { x: x - 1, y: y - 1, action, button, shift, alt, ctrl, raw: { code, final } };
}

/** Whether `s` (starting with ESC) is a complete CSI sequence, an incomplete one (or SS3 cut after its O), or not CSI. */
function csiLength(s: string, start: number): number | 'incomplete' | null {
  if (s[start + 1] === undefined) return 'incomplete';
  // ESC O is the start of an SS3 key (an arrow key in application mode): held for its last byte.
  if (s[start + 1] === 'O' && s[start + 2] === undefined) return 'incomplete';
  if (s[start + 1] !== '[') return null;
  for (let i = start + 2; i < s.length; i++) {
    const code = s.charCodeAt(i);
    if (code >= 0x40 && code <= 0x7e) return i - start + 1;
    if (code < 0x20 || code > 0x3f) return null;
  }
  return 'incomplete';
}

/** A stateful parser: feed chunks, get events. */
export class InputParser {
  private pending = '';
  /** Inside a bracketed paste: everything up to its end marker is its text. */
  private pasting = false;

  /** Parses a chunk; an incomplete trailing sequence is kept for the next call. */
  feed(chunk: string): InputEvent[] {
    const events: InputEvent[] = [];
    let s = this.pending + chunk;
    this.pending = '';
    let data = '';
    const flushData = () => {
      if (data) events.push({ kind: 'data', data });
      data = '';
    };
    let i = 0;
    while (i < s.length) {
      if (this.pasting) {
        const end = s.indexOf(PASTE_END, i);
        if (end === -1) {
          // Keep a possible partial end marker back.
          const keep = partialSuffix(s, PASTE_END);
          if (s.length - keep > i) events.push({ kind: 'paste-text', text: s.slice(i, s.length - keep) });
          this.pending = s.slice(s.length - keep);
          return events;
        }
        if (end > i) events.push({ kind: 'paste-text', text: s.slice(i, end) });
        events.push({ kind: 'paste-end' });
        this.pasting = false;
        i = end + PASTE_END.length;
        continue;
      }
      const esc = s.indexOf('\x1b', i);
      if (esc === -1) {
        data += s.slice(i);
        break;
      }
      data += s.slice(i, esc);
      const length = csiLength(s, esc);
      if (length === 'incomplete') {
        flushData();
        this.pending = s.slice(esc);
        return events;
      }
      if (length === null) {
        // Not CSI (ESC O x, alt+key, a lone ESC in the middle): plain data for the pane.
        data += '\x1b';
        i = esc + 1;
        continue;
      }
      const seq = s.slice(esc, esc + length);
      i = esc + length;
      if (seq === PASTE_START) {
        flushData();
        events.push({ kind: 'paste-start' });
        this.pasting = true;
        continue;
      }
      if (seq === '\x1b[I' || seq === '\x1b[O') {
        flushData();
        events.push({ kind: 'focus', focused: seq === '\x1b[I' });
        continue;
      }
      const mouse = SGR_MOUSE.exec(seq);
      if (mouse) {
        flushData();
        events.push({ kind: 'mouse', mouse: decodeMouse(Number(mouse[1]), Number(mouse[2]), Number(mouse[3]), mouse[4] as 'M' | 'm') });
        continue;
      }
      const key = decodeKeyReport(seq);
      if (key) {
        flushData();
        events.push({ kind: 'key', key });
        continue;
      }
      data += seq;
    }
    flushData();
    s = '';
    return events;
  }

  /**
   * True when input is held back waiting for the rest of a sequence that a short wait may
   * release as keys (a lone ESC: the Escape key). Inside a paste nothing is released early:
   * its end marker comes, however long the pane takes to read what came before it.
   */
  get awaitsEscapeTimeout(): boolean {
    return this.pending.length > 0 && !this.pasting;
  }

  /** Nothing held back and no paste open: the next input starts afresh (the typing express may take it). */
  get idle(): boolean {
    return this.pending.length === 0 && !this.pasting;
  }

  /**
   * True when `chunk` would come out of `feed` as one `data` event equal to it: nothing is held
   * back, no paste is open and it has no ESC (every sequence this parser treats apart starts
   * with one). The controller sends such input (typing) on without calling `feed`.
   */
  passesWhole(chunk: string): boolean {
    return this.idle && chunk.length > 0 && chunk.indexOf('\x1b') === -1;
  }

  /** Releases held input as data (a lone ESC that was the Escape key); nothing while a paste is open. */
  flush(): InputEvent[] {
    if (this.pasting) return [];
    const pending = this.pending;
    this.pending = '';
    return pending ? [{ kind: 'data', data: pending }] : [];
  }
}

/** Length of the longest suffix of `s` that is a proper prefix of `marker`. */
function partialSuffix(s: string, marker: string): number {
  for (let n = Math.min(marker.length - 1, s.length); n > 0; n--) {
    if (s.endsWith(marker.slice(0, n))) return n;
  }
  return 0;
}

/**
 * Splits the first key off some input: a CSI or SS3 sequence, ESC plus a character (alt),
 * or one code point. Used after the prefix key, where exactly one key is a command.
 */
export function splitFirstKey(data: string): { key: string; rest: string } {
  if (data.startsWith('\x1b')) {
    const length = csiLength(data, 0);
    if (typeof length === 'number') return { key: data.slice(0, length), rest: data.slice(length) };
    if (data[1] === 'O' && data.length >= 3) return { key: data.slice(0, 3), rest: data.slice(3) };
    if (data.length >= 2) {
      const next = String.fromCodePoint(data.codePointAt(1)!);
      return { key: '\x1b' + next, rest: data.slice(1 + next.length) };
    }
    return { key: data, rest: '' };
  }
  const first = String.fromCodePoint(data.codePointAt(0)!);
  return { key: first, rest: data.slice(first.length) };
}
