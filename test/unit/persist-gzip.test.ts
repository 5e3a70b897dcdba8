/**
 * Compression of saved scrollback in pieces on the event loop (src/persist/gzip-pieces.ts):
 * whatever the size, the reader (`decompressScrollback`) gets back exactly the text, every
 * member holds at most ~1.25 pieces of input, and the event loop runs between members.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gunzipSync } from 'node:zlib';
import { GZIP_PIECE_BYTES, gzipMembers, gzipText, pieceEnds } from '../../src/persist/gzip-pieces.js';
import { decompressScrollback } from '../../src/persist/saved-scrollback.js';

/** Coloured lines with wide and multi-byte characters, so cuts fall inside characters too. */
function sampleText(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `\x1b[3${i % 8}mline ${i} é 中文 🙂 \x1b[1mbold\x1b[0m ${'x'.repeat(i % 97)}`;
    lines.push(line);
    size += Buffer.byteLength(line) + 1;
  }
  return lines.join('\n') + '\n';
}

describe('gzip in pieces', () => {
  it('round-trips an empty text as one empty member', async () => {
    const members = await gzipMembers('');
    expect(members).toHaveLength(1);
    expect(decompressScrollback(await gzipText(''))).toBe('');
  });

  it('round-trips a large text through the reader, one member per piece', async () => {
    const text = sampleText(1024 * 1024);
    const bytes = Buffer.byteLength(text);
    const members = await gzipMembers(text);
    expect(members.length).toBe(pieceEnds(bytes).length);
    expect(members.length).toBeGreaterThanOrEqual(Math.floor(bytes / GZIP_PIECE_BYTES));
    for (const member of members) expect(gunzipSync(member).length).toBeLessThanOrEqual(GZIP_PIECE_BYTES * 1.25);
    expect(decompressScrollback(Buffer.concat(members))).toBe(text);
    expect(decompressScrollback(await gzipText(text))).toBe(text);
  });

  it('cuts at exact multiples of a piece, and folds a small remainder into the last piece', () => {
    expect(pieceEnds(0, 100)).toEqual([0]);
    expect(pieceEnds(1, 100)).toEqual([1]);
    expect(pieceEnds(100, 100)).toEqual([100]);
    expect(pieceEnds(200, 100)).toEqual([100, 200]);
    // 24 bytes past a piece: under a quarter, joined to it.
    expect(pieceEnds(124, 100)).toEqual([124]);
    expect(pieceEnds(125, 100)).toEqual([100, 125]);
    expect(pieceEnds(301, 100)).toEqual([100, 200, 301]);
    expect(() => pieceEnds(10, 0)).toThrow(/positive integer/);
  });

  it('round-trips any text at any piece size, cuts inside UTF-8 characters included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'binary', maxLength: 600 }), fc.integer({ min: 1, max: 64 }), async (text, piece) => {
        const members = await gzipMembers(text, piece);
        expect(members.length).toBe(pieceEnds(Buffer.byteLength(text), piece).length);
        expect(decompressScrollback(Buffer.concat(members))).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('lets the event loop run between members', async () => {
    const text = sampleText(256 * 1024);
    let turns = 0;
    let ticking = true;
    const tick = () => {
      turns++;
      if (ticking) setImmediate(tick);
    };
    setImmediate(tick);
    const members = await gzipMembers(text);
    ticking = false;
    expect(members.length).toBeGreaterThan(10);
    // One turn at least between any two members.
    expect(turns).toBeGreaterThanOrEqual(members.length - 1);
  });
});
