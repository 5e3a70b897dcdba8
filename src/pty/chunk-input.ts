/**
 * Splitting large input for a pty into pieces that never cut a UTF-16 surrogate pair or an
 * escape sequence in half: a cut after a lone ESC reads as the Escape key to programs with an
 * escape timeout (vim, readline), and a cut inside `ESC [ 2 0 0 ~` breaks bracketed paste.
 */

const ESC = 0x1b;
const BEL = 0x07;

/** Byte ranges of the ECMA-48 grammar used to find where a sequence ends. */
const CSI_PARAM = { min: 0x20, max: 0x3f } as const;
const FINAL_BYTE = { min: 0x40, max: 0x7e } as const;
const INTERMEDIATE = { min: 0x20, max: 0x2f } as const;

/** Introducers (after ESC) of string sequences ended by BEL or ST: OSC, DCS, APC, PM, SOS. */
const STRING_INTRODUCERS = new Set([']', 'P', '_', '^', 'X']);

function inRange(code: number, range: { min: number; max: number }): boolean {
  return code >= range.min && code <= range.max;
}

/** Index just past the escape sequence starting at `start` (an ESC); `s.length` if unterminated. */
export function escapeSequenceEnd(s: string, start: number): number {
  const next = start + 1;
  if (next >= s.length) return s.length;
  const intro = s[next] as string;
  // ESC ESC … is alt+<key that itself starts with ESC>; keep both together.
  if (s.charCodeAt(next) === ESC) return escapeSequenceEnd(s, next);
  if (intro === '[') {
    let j = next + 1;
    while (j < s.length && inRange(s.charCodeAt(j), CSI_PARAM)) j++;
    if (j >= s.length) return s.length;
    return inRange(s.charCodeAt(j), FINAL_BYTE) ? j + 1 : j;
  }
  if (intro === 'O') return Math.min(s.length, next + 2);
  if (STRING_INTRODUCERS.has(intro)) {
    for (let j = next + 1; j < s.length; j++) {
      const c = s.charCodeAt(j);
      if (c === BEL) return j + 1;
      if (c === ESC && s[j + 1] === '\\') return j + 2;
    }
    return s.length;
  }
  if (inRange(s.charCodeAt(next), INTERMEDIATE)) {
    let j = next;
    while (j < s.length && inRange(s.charCodeAt(j), INTERMEDIATE)) j++;
    return Math.min(s.length, j + 1);
  }
  // ESC + one character (alt+x, ESC 7, ESC =, …); keep a surrogate pair whole.
  const code = s.codePointAt(next) ?? 0;
  return next + (code > 0xffff ? 2 : 1);
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** Split `data` into pieces of at most `maxChars` (longer only for one sequence that is longer). */
export function chunkInput(data: string, maxChars: number): string[] {
  if (maxChars < 2) throw new RangeError('maxChars must be at least 2');
  const chunks: string[] = [];
  let start = 0;
  while (start < data.length) {
    if (data.length - start <= maxChars) {
      chunks.push(data.slice(start));
      break;
    }
    let end = start + maxChars;
    let cutBeforeSequence = false;
    // Walk the window sequence by sequence so an ST inside an OSC is not mistaken for a start.
    for (let i = start; i < end; ) {
      if (data.charCodeAt(i) !== ESC) {
        i++;
        continue;
      }
      const seqEnd = escapeSequenceEnd(data, i);
      if (seqEnd > end) {
        end = i > start ? i : seqEnd;
        cutBeforeSequence = true;
        break;
      }
      i = seqEnd;
    }
    if (!cutBeforeSequence && isHighSurrogate(data.charCodeAt(end - 1))) end--;
    chunks.push(data.slice(start, end));
    start = end;
  }
  return chunks;
}
