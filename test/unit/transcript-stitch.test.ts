/**
 * Stitching the pages a transcript read gathers (src/agents/transcript.ts): pages of a
 * full-screen agent scrolled through its history, with and without rows fixed on every page.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fixedRows, stitch } from '../../src/agents/transcript.js';

/** The screens an app shows while scrolled up `step` lines at a time, ordered top to bottom. */
function pagesOf(transcript: string[], body: number, step: number, header: string[], footer: string[]): string[][] {
  const pages: string[][] = [];
  for (let offset = 0; ; offset += step) {
    const clamped = Math.min(offset, Math.max(0, transcript.length - body));
    const end = transcript.length - clamped;
    pages.push([...header, ...transcript.slice(Math.max(0, end - body), end), ...footer]);
    if (clamped !== offset || end - body <= 0) break;
  }
  return pages.reverse();
}

describe('transcript stitching', () => {
  it('finds rows that stay fixed at the top and bottom of every page', () => {
    const pages = [
      ['HEAD', 'a', 'b', 'c', 'FOOT'],
      ['HEAD', 'b', 'c', 'd', 'FOOT'],
    ];
    expect(fixedRows(pages)).toEqual({ top: 1, bottom: 1 });
    expect(stitch(pages)).toEqual(['HEAD', 'a', 'b', 'c', 'd', 'FOOT']);
  });

  it('without fixed rows, joins overlapping pages as before', () => {
    expect(stitch([['a', 'b', 'c'], ['b', 'c', 'd'], ['c', 'd', 'e']])).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(stitch([['only', 'page']])).toEqual(['only', 'page']);
  });

  it('one run of lines for any transcript, page height, scroll step, header and footer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 2, max: 20 }),
        fc.integer({ min: 1, max: 19 }),
        fc.integer({ min: 0, max: 2 }),
        fc.integer({ min: 0, max: 3 }),
        (length, body, stepWanted, headerRows, footerRows) => {
          const step = Math.min(stepWanted, body - 1);
          const transcript = Array.from({ length }, (_, i) => `line ${i}`);
          const header = Array.from({ length: headerRows }, (_, i) => `header ${i}`);
          const footer = Array.from({ length: footerRows }, (_, i) => `footer ${i}`);
          const pages = pagesOf(transcript, body, step, header, footer);
          // With a single page nothing tells fixed rows from the transcript: it is returned as is.
          const expected = pages.length === 1 ? pages[0] : [...header, ...transcript, ...footer];
          expect(stitch(pages)).toEqual(expected);
        },
      ),
    );
  });
});
