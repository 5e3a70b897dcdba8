/**
 * Newline-delimited JSON framing (SPEC §3), shared by the client and the server.
 * Pure: it never touches a socket. Feed it chunks, get back complete lines.
 */

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export interface LineSplitterOptions {
  /** Longest line (bytes, without the newline) accepted; longer lines are discarded. */
  maxLineBytes: number;
  /**
   * Called once per over-long line, as soon as the limit is crossed, with the bytes seen so
   * far. The rest of that line is skipped; the server closes the connection from here.
   */
  onOverflow?: (bytes: number) => void;
}

/**
 * Splits a byte stream into lines. Splitting on the 0x0A byte is safe for UTF-8 (no
 * multi-byte sequence contains it), so a character cut across two chunks is decoded whole.
 * A trailing `\r` is dropped and blank lines are skipped.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private partBytes = 0;
  private discarding = false;

  constructor(private readonly options: LineSplitterOptions) {}

  /** Feeds one chunk; returns the lines it completed (possibly none). */
  push(chunk: Buffer | string): string[] {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    const lines: string[] = [];
    let start = 0;
    while (start < buf.length) {
      const nl = buf.indexOf(NEWLINE, start);
      const end = nl === -1 ? buf.length : nl;
      this.append(buf, start, end);
      if (nl === -1) break;
      if (this.discarding) this.discarding = false;
      else this.flushLine(lines);
      this.parts = [];
      this.partBytes = 0;
      start = nl + 1;
    }
    return lines;
  }

  /** Bytes of an unfinished line held right now (0 between lines); drives idle-partial timeouts. */
  get pendingBytes(): number {
    return this.partBytes;
  }

  /** Returns the unterminated rest of the stream as a last line, if any (call at EOF). */
  end(): string | undefined {
    const lines: string[] = [];
    if (!this.discarding) this.flushLine(lines);
    this.parts = [];
    this.partBytes = 0;
    this.discarding = false;
    return lines[0];
  }

  private append(buf: Buffer, from: number, to: number): void {
    if (to <= from) return;
    const length = to - from;
    if (this.discarding) {
      this.partBytes += length;
      return;
    }
    if (this.partBytes + length > this.options.maxLineBytes) {
      this.discarding = true;
      this.parts = [];
      this.partBytes += length;
      this.options.onOverflow?.(this.partBytes);
      return;
    }
    this.parts.push(buf.subarray(from, to));
    this.partBytes += length;
  }

  private flushLine(into: string[]): void {
    if (this.partBytes === 0) return;
    let line = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.partBytes);
    if (line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    if (line.length === 0) return;
    const text = line.toString('utf8');
    if (text.trim() !== '') into.push(text);
  }
}

/** Serialises one message as an NDJSON line. */
export function encodeLine(message: unknown): string {
  return JSON.stringify(message) + '\n';
}
