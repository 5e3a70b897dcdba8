/**
 * What was typed into an agent's input, as far as the bytes written to its pane tell (SPEC §20:
 * a person's prompt is checkpointed too, and its first words name the turn). Printable text
 * is kept, Backspace takes a character back, Ctrl+U and Ctrl+C clear the line, other control
 * sequences (arrows, function keys) are skipped; a paste's text is kept and its line breaks do
 * not submit. Enter — CR, or the kitty keyboard protocol's and keypad's encodings of it —
 * submits. Shift+Enter and Ctrl+J are line breaks in agents' inputs, not a submit.
 * A best effort for a label, never for control: cursor moves inside the line are not replayed.
 */

/** How much of a line is kept: a label needs the start of it. */
const MAX_LINE_CHARS = 4096;

/** Enter as terminals encode it: CR, kitty's CSI 13 u (plain or with no modifier), keypad Enter. */
const ENTER_SEQUENCES = ['\x1b[13u', '\x1b[13;1u', '\x1b[57414u', '\x1b[57414;1u', '\x1bOM'] as const;

const PASTE_START = '\x1b[200~';
const PASTE_END = '\x1b[201~';

/** The length of the escape sequence at `text[i]` (ESC first): CSI, SS3, or ESC and one character; null when it is cut off at the end. */
function escapeLength(text: string, i: number): number | null {
  const next = text[i + 1];
  if (next === undefined) return null;
  if (next === '[') {
    let j = i + 2;
    // Parameters and intermediates, then one final byte in @..~.
    while (j < text.length && !(text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e)) j++;
    return j < text.length ? j + 1 - i : null;
  }
  if (next === 'O') return i + 2 < text.length ? 3 : null;
  return 2;
}

/** A sequence longer than this is not one a terminal sends: dropped rather than held. */
const MAX_HELD = 64;

export class PromptLine {
  private line = '';
  private inPaste = false;
  /** The start of an escape sequence the last write ended in the middle of. */
  private held = '';

  /** Feeds bytes written to the pane; returns the lines they submitted, in order (often none). */
  feed(written: string): string[] {
    const data = this.held + written;
    this.held = '';
    const submitted: string[] = [];
    let i = 0;
    while (i < data.length) {
      const char = data[i]!;
      if (char === '\x1b') {
        if (data.startsWith(PASTE_START, i)) {
          this.inPaste = true;
          i += PASTE_START.length;
          continue;
        }
        if (data.startsWith(PASTE_END, i)) {
          this.inPaste = false;
          i += PASTE_END.length;
          continue;
        }
        const length = escapeLength(data, i);
        if (length === null) {
          // Cut off: the rest comes with the next write.
          if (data.length - i <= MAX_HELD) this.held = data.slice(i);
          break;
        }
        const sequence = data.slice(i, i + length);
        if ((ENTER_SEQUENCES as readonly string[]).includes(sequence) && !this.inPaste) submitted.push(this.take());
        i += length;
        continue;
      }
      if (this.inPaste) {
        this.append(char === '\r' || char === '\n' ? ' ' : char);
      } else if (char === '\r') {
        submitted.push(this.take());
      } else if (char === '\x7f' || char === '\b') {
        this.line = [...this.line].slice(0, -1).join('');
      } else if (char === '\x15' || char === '\x03') {
        this.line = '';
      } else if (char === '\n' || char === '\t') {
        this.append(' ');
      } else if (char >= ' ') {
        this.append(char);
      }
      i++;
    }
    return submitted;
  }

  /** Text corral typed unsent (an `up` file's or a flow's prompt): a later Enter submits it. */
  type(text: string): void {
    this.append(text.replace(/[\r\n\t]+/g, ' '));
  }

  /** The line so far, and it starts again. */
  private take(): string {
    const line = this.line.trim();
    this.line = '';
    return line;
  }

  private append(text: string): void {
    if (this.line.length < MAX_LINE_CHARS) this.line = (this.line + text).slice(0, MAX_LINE_CHARS);
  }
}
