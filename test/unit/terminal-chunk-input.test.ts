import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { chunkInput, escapeSequenceEnd } from '../../src/pty/chunk-input.js';

/** Pieces that input to a pty is made of: text, emoji, and escape sequences a paste may carry. */
const piece = fc.oneof(
  fc.string({ maxLength: 20 }),
  fc.constantFrom('😀', '日本', 'é', '\r', '\n'),
  fc.constantFrom('\x1b[200~', '\x1b[201~', '\x1b[A', '\x1bOP', '\x1b[1;5C', '\x1bx', '\x1b\x1b[A', '\x1b]0;title\x07', '\x1b]2;t\x1b\\', '\x1b(B'),
);
const input = fc.array(piece, { maxLength: 60 }).map((parts) => ({ parts, text: parts.join('') }));

/** Every index at which a piece boundary lies: the only places a cut is allowed for sequences. */
function sequenceRanges(parts: string[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  let at = 0;
  for (const p of parts) {
    if (p.startsWith('\x1b')) ranges.push([at, at + p.length]);
    at += p.length;
  }
  return ranges;
}

describe('chunkInput', () => {
  it('returns small input unchanged', () => {
    expect(chunkInput('hello', 4096)).toEqual(['hello']);
    expect(chunkInput('', 4096)).toEqual([]);
  });

  it('splits into pieces of at most maxChars (bar one long sequence) that concatenate to the input', () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 4, max: 64 }), ({ text }, max) => {
        const chunks = chunkInput(text, max);
        expect(chunks.join('')).toBe(text);
        for (const c of chunks) {
          expect(c.length).toBeGreaterThan(0);
          // Only a single escape sequence longer than the limit may exceed it.
          if (c.length > max) expect(c.startsWith('\x1b') && escapeSequenceEnd(c, 0) === c.length).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('never cuts a surrogate pair or an escape sequence', () => {
    fc.assert(
      fc.property(input, fc.integer({ min: 4, max: 64 }), ({ parts, text }, max) => {
        const chunks = chunkInput(text, max);
        const ranges = sequenceRanges(parts);
        let at = 0;
        for (const c of chunks.slice(0, -1)) {
          at += c.length;
          const code = text.charCodeAt(at - 1);
          expect(code >= 0xd800 && code <= 0xdbff).toBe(false);
          expect(text.charCodeAt(at - 1)).not.toBe(0x1b);
          for (const [s, e] of ranges) expect(at > s && at < e).toBe(false);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('keeps a sequence longer than maxChars whole', () => {
    const osc = `\x1b]0;${'t'.repeat(50)}\x07`;
    expect(chunkInput(`${osc}abc`, 10)).toEqual([osc, 'abc']);
  });
});

describe('escapeSequenceEnd', () => {
  it.each([
    ['\x1b[200~x', 6],
    ['\x1b[1;5Cx', 6],
    ['\x1bOPx', 3],
    ['\x1bxy', 2],
    ['\x1b]0;hi\x07x', 7],
    ['\x1b]0;hi\x1b\\x', 8],
    ['\x1b(Bx', 3],
    ['\x1b\x1b[Ax', 4],
    ['\x1b[12', 4],
    ['\x1b', 1],
  ])('%j ends at %i', (s, end) => {
    expect(escapeSequenceEnd(s, 0)).toBe(end);
  });
});
