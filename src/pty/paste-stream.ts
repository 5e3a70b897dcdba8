/**
 * A paste from a client's terminal, streamed into a pane as it arrives (issue 27): one open
 * unit of the pane's input (`PaneInput.open`), taken in the order the paste started, so
 * another client's keys, a script's send-text or a terminal reply go before or after it,
 * never inside it. Its text is encoded as it comes (`PasteEncoder`: newlines as CR, the
 * bracketed-paste markers only when the pane's program asked for them when the paste began,
 * markers inside it removed), never gathered whole: a 4 MB paste costs the server what is
 * still queued for the pane, not the paste.
 */
import { PasteEncoder } from '../terminal/paste.js';
import type { Disposable } from '../contract/disposable.js';
import type { InputUnit, PaneInput } from './pane-input.js';

/** Where a client streams a paste: a local pane's input (`PasteStream`) or a machine's pane. */
export interface PasteSink {
  /** Sends a piece; false when the pane's queue is at its bound (stop reading until `whenRoom`). */
  write(text: string): boolean;
  /** The paste ended (its end marker came, or its client went away). */
  end(): void;
  /** Runs `fn` once the pane's queue has room again (or the pane is gone). */
  whenRoom(fn: () => void): Disposable;
}

export class PasteStream implements PasteSink {
  private encoder!: PasteEncoder;
  private unit!: InputUnit;

  constructor(
    private readonly input: PaneInput,
    private readonly bracketed: boolean,
  ) {
    this.begin();
  }

  /**
   * Sends a piece of the paste. Returns false when the pane's queue is at its bound: the
   * sender should stop reading its terminal until `whenRoom`.
   */
  write(text: string): boolean {
    // The paste yielded to other writers (it sent nothing for a while): the rest is a paste of its own.
    if (!this.unit.isOpen) this.begin();
    const bytes = this.encoder.push(text);
    return this.unit.write(Buffer.from(bytes, 'utf8'));
  }

  /** The paste ended (its end marker came, or its client went away). */
  end(): void {
    if (this.unit.isOpen) this.unit.end(Buffer.from(this.encoder.end(), 'utf8'));
  }

  /** Runs `fn` once the pane's queue has room again (or the pane is gone). */
  whenRoom(fn: () => void): Disposable {
    return this.input.whenRoom(fn);
  }

  private begin(): void {
    const encoder = new PasteEncoder(this.bracketed);
    this.encoder = encoder;
    this.unit = this.input.open(() => Buffer.from(encoder.end(), 'utf8'));
    const start = encoder.start();
    if (start !== '') this.unit.write(Buffer.from(start, 'utf8'));
  }
}
