/**
 * A pane's output arrives as raw bytes cut wherever the pty read ended (64 KB reads in a
 * flood), often inside a multi-byte UTF-8 character — box drawing, bullets, CJK. xterm 6
 * drops a character split across two writes (found by the byte-stream fuzzer, issue 42), so
 * the end of a chunk that starts a character is held back and put in front of the next one.
 */

/** How many bytes a UTF-8 sequence starting with `lead` has; 1 for ASCII and for bytes no sequence starts with. */
function sequenceLength(lead: number): number {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 1;
}

/** The number of bytes at the end of `bytes` that begin a character whose other bytes are still to come (0–3). */
export function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: its lead is further back
    return sequenceLength(byte) > back ? back : 0;
  }
  return 0;
}

/** Carries a character cut between two chunks of bytes over to the next chunk. */
export class Utf8Carry {
  private held: Uint8Array | null = null;

  /** `chunk` with the bytes held from before it in front, minus an incomplete character at its end (held for next time). */
  take(chunk: Uint8Array): Uint8Array {
    const whole = this.held === null ? chunk : concat(this.held, chunk);
    const tail = incompleteTail(whole);
    this.held = tail === 0 ? null : whole.slice(whole.length - tail);
    return tail === 0 ? whole : whole.subarray(0, whole.length - tail);
  }

  /** The bytes held back, given up (text written next cannot complete them); null when none. */
  release(): Uint8Array | null {
    const held = this.held;
    this.held = null;
    return held;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
