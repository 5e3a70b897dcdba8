/**
 * Packs a block of `CompactRow`s into one byte string and back. Per row: a flags byte, the
 * cell count (varint), the text as Latin-1 bytes (UTF-16LE when a code point is above 0xff),
 * then the kinds and style-run units as UTF-16LE when the row has them. The strings decoded
 * are equal to the ones encoded, so a row read back is the row stored.
 *
 * Rows with side tables or raw words (grapheme clusters, extended attributes, code points
 * outside the BMP: rare) are not packed; the block keeps them as objects and the bytes only
 * mark their place.
 */
import { CompactRow } from './compact-row.js';

const WRAPPED = 1;
const KINDS = 2;
const STYLES = 4;
const WIDE = 8;
const KEPT = 16;

let scratch = Buffer.allocUnsafeSlow(64 * 1024);
let at = 0;

function room(bytes: number): void {
  if (at + bytes <= scratch.length) return;
  const next = Buffer.allocUnsafeSlow(Math.max(scratch.length * 2, at + bytes));
  scratch.copy(next, 0, 0, at);
  scratch = next;
}

function writeVarint(n: number): void {
  room(5);
  while (n >= 0x80) {
    scratch[at++] = (n & 0x7f) | 0x80;
    n >>>= 7;
  }
  scratch[at++] = n;
}

function writeUtf16(s: string): void {
  room(s.length * 2);
  at += scratch.write(s, at, 'utf16le');
}

function isLatin1(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0xff) return false;
  return true;
}

/** Rows the byte form cannot hold, kept as objects by the block. */
export function packable(row: CompactRow): boolean {
  return row.raw === null && row.extras === null;
}

/** The bytes of `rows` (a view of a shared scratch buffer: copy or compress it before the next call). */
export function packRows(rows: readonly CompactRow[]): Buffer {
  at = 0;
  for (const row of rows) {
    room(1);
    if (!packable(row)) {
      scratch[at++] = KEPT;
      continue;
    }
    const wide = !isLatin1(row.chars);
    scratch[at++] = (row.wrapped ? WRAPPED : 0) | (row.kinds !== null ? KINDS : 0) | (row.styles !== null ? STYLES : 0) | (wide ? WIDE : 0);
    writeVarint(row.chars.length);
    if (wide) writeUtf16(row.chars);
    else {
      room(row.chars.length);
      at += scratch.write(row.chars, at, 'latin1');
    }
    if (row.kinds !== null) writeUtf16(row.kinds);
    if (row.styles !== null) {
      writeVarint(row.styles.length);
      writeUtf16(row.styles);
    }
  }
  return scratch.subarray(0, at);
}

/** The rows packed in `bytes`; `kept(i)` supplies row i where the bytes only mark its place. */
export function unpackRows(bytes: Buffer, count: number, kept: (i: number) => CompactRow): CompactRow[] {
  const rows = new Array<CompactRow>(count);
  let p = 0;
  const varint = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[p++]!;
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
    }
  };
  for (let i = 0; i < count; i++) {
    const flags = bytes[p++]!;
    if (flags & KEPT) {
      rows[i] = kept(i);
      continue;
    }
    const n = varint();
    let chars: string;
    if (flags & WIDE) {
      chars = bytes.toString('utf16le', p, p + n * 2);
      p += n * 2;
    } else {
      chars = bytes.toString('latin1', p, p + n);
      p += n;
    }
    let kinds: string | null = null;
    if (flags & KINDS) {
      kinds = bytes.toString('utf16le', p, p + n * 2);
      p += n * 2;
    }
    let styles: string | null = null;
    if (flags & STYLES) {
      const units = varint();
      styles = bytes.toString('utf16le', p, p + units * 2);
      p += units * 2;
    }
    rows[i] = new CompactRow(chars, kinds, styles, null, null, (flags & WRAPPED) !== 0);
  }
  return rows;
}
