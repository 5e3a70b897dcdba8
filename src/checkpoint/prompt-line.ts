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

/** The length of the escape sequence at `text[i]` (ESC first): CSI, SS3, or ESC and one character. */
function escapeLength(text: string, i: number): number {
  const next = text[i + 1];
  if (next === '[') {
    let j = i + 2;
    // Parameters and intermediates, then one final byte in @..~.
    while (j < text.length && !(text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e)) j++;
    return Math.min(text.length, j + 1) - i;
  }
  if (next === 'O') return Math.min(3, text.length - i);
  return next === undefined ? 1 : 2;
}

export class PromptLine {
  private line = '';
  private inPaste = false;

  /** Feeds bytes written to the pane; returns the lines they submitted, in order (often none). */
  feed(data: string): string[] {
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
        const enter = ENTER_SEQUENCES.find((seq) => data.startsWith(seq, i));
        if (enter && !this.inPaste) {
          submitted.push(this.take());
          i += enter.length;
          continue;
        }
        i += escapeLength(data, i);
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
