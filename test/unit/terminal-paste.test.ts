/**
 * A paste encoded as it arrives (src/terminal/paste.ts) is what the whole paste encoded at
 * once would be, however the terminal's reads cut it: the markers removed to a fixpoint
 * (a marker split across reads, or built by removing another, included), newlines as CR.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { bracketedPaste, encodePaste, PasteEncoder, PasteMarkerFilter, stripPasteMarkers } from '../../src/terminal/paste.js';

/** Text made of the pieces of markers, so markers (nested, split, 8-bit) are common. */
const markerSoup = fc.string({ unit: fc.constantFrom('\x1b', '\x9b', '[', '2', '0', '1', '~', 'x', '\r', '\n'), maxLength: 60 });

/** `text` cut at the given points. */
function cut(text: string, points: number[]): string[] {
  const at = [...new Set(points.map((p) => p % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let last = 0;
  for (const p of [...at, text.length]) {
    pieces.push(text.slice(last, p));
    last = p;
  }
  return pieces;
}

describe('a paste encoded as it arrives', () => {
  it('removes markers exactly as stripPasteMarkers does on the whole text, however it is cut (property)', () => {
    fc.assert(
      fc.property(markerSoup, fc.array(fc.nat(80), { maxLength: 8 }), (text, points) => {
        const filter = new PasteMarkerFilter();
        const out = cut(text, points).map((piece) => filter.push(piece)).join('') + filter.end();
        expect(out).toBe(stripPasteMarkers(text));
      }),
      { numRuns: 2000 },
    );
    // The nested case: removing the inner marker makes an outer one, split across reads.
    const filter = new PasteMarkerFilter();
    expect(filter.push('a\x1b[20')).toBe('a');
    expect(filter.push('\x1b[201~1')).toBe('');
    expect(filter.push('~b')).toBe('b');
  });

  it('encodes pieces as the whole paste was encoded before (newlines as CR, markers only when bracketed) (property)', () => {
    fc.assert(
      fc.property(markerSoup, fc.array(fc.nat(80), { maxLength: 8 }), fc.boolean(), (text, points, bracketed) => {
        const encoder = new PasteEncoder(bracketed);
        const out = encoder.start() + cut(text, points).map((piece) => encoder.push(piece)).join('') + encoder.end();
        const body = text.replace(/\r?\n/g, '\r');
        expect(out).toBe(bracketed ? bracketedPaste(body) : body);
        expect(out).toBe(encodePaste(text, bracketed));
      }),
      { numRuns: 2000 },
    );
  });

  it('holds back no more than a marker could still need: plain text goes at once', () => {
    const encoder = new PasteEncoder(true);
    expect(encoder.start()).toBe('\x1b[200~');
    expect(encoder.push('line 1\nline 2\r')).toBe('line 1\rline 2\r');
    // The CRLF pair cut between reads is still one CR.
    expect(encoder.push('\nend\x1b')).toBe('end');
    expect(encoder.push('x')).toBe('\x1bx');
    expect(encoder.end()).toBe('\x1b[201~');
  });
});
