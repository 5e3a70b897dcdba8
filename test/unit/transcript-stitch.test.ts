/**
 * Stitching the pages a transcript read gathers (src/actions/transcript.ts): pages of a
 * full-screen agent scrolled through its history, with and without rows fixed on every page.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fixedRows, scrollInput, stitch } from '../../src/actions/transcript.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');

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

describe('transcript stitching on real Codex pages', () => {
  // Gathered live from Codex 0.171 in a 14-row pane after three prompts (the bottom page as
  // the user left it first, as gatherTranscript reads them). Scrolled up, Codex pins the prompt
  // it answers on the first row, adds "↓ Back to bottom · esc" and swaps its footer hint.
  const fixture = JSON.parse(readFileSync(join(FIXTURES, 'transcript', 'codex-pages.json'), 'utf8')) as { pages: string[][] };
  const lines = stitch([...fixture.pages].reverse());
  const count = (line: string) => lines.filter((l) => l === line).length;
  const answer = [
    '• Here is a slowly streamed answer from the fake model.',
    '  Line two of the answer arrives a bit later.',
    '  Line three: still streaming, the agent should look busy.',
    '  Line four: chunks keep coming over a few seconds.',
    '  Line five: almost there.',
    '  Final line: Done.',
  ];

  it('has every prompt once, each followed by its whole answer in order', () => {
    for (const word of ['alpha', 'beta', 'gamma']) {
      expect(count(`› Say hello ${word}`), lines.join('\n')).toBe(1);
      const at = lines.indexOf(`› Say hello ${word}`);
      const after = lines.slice(at + 1).filter((l) => answer.includes(l)).slice(0, answer.length);
      expect(after, word).toEqual(answer);
    }
    expect(lines.indexOf('› Say hello alpha')).toBeLessThan(lines.indexOf('› Say hello beta'));
    expect(lines.indexOf('› Say hello beta')).toBeLessThan(lines.indexOf('› Say hello gamma'));
  });

  it('ends with the footer the user sees, once, and none of the scrolled-up rows', () => {
    const bottom = fixture.pages[0]!;
    expect(lines.slice(-5)).toEqual(bottom.slice(-5));
    expect(count(bottom.at(-1)!)).toBe(1);
    expect(count('› Ask Codex to do anything')).toBe(1);
    expect(lines.some((l) => l.includes('Back to bottom') || l.includes('enter/esc latest'))).toBe(false);
    expect(lines.filter((l) => l.includes('Worked for'))).toHaveLength(3);
  });
});

describe('scrollInput', () => {
  it('sends SGR wheel notches mid-pane by default, and PageUp/PageDown for page-keys', () => {
    expect(scrollInput('wheel', 'up', 100, 30)).toBe('\x1b[<64;50;15M'.repeat(5));
    expect(scrollInput('wheel', 'down', 1, 1)).toBe('\x1b[<65;1;1M'.repeat(5));
    expect(scrollInput('page-keys', 'up', 100, 30)).toBe('\x1b[5~');
    expect(scrollInput('page-keys', 'down', 100, 30)).toBe('\x1b[6~');
  });
});
