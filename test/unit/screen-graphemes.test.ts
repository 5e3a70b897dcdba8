/**
 * One cluster-and-width rule for panes and chrome: a pane's terminal (PaneTerminal, with the
 * Unicode 15 provider) and the compositor's ANSI parser must put any string in the same
 * cells — emoji, ZWJ sequences, flags, skin tones, CJK, Hangul jamo and combining marks
 * included. If they disagreed, a pane line and the same text in a title would not line up,
 * and the compositor would draw a pane's emoji into the wrong columns.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ansiToGrid } from '../../src/screen/ansi-source.js';
import { widthOf } from '../../src/screen/cell.js';
import { charProperties, clustersOf, propsJoin, propsWidth, textWidth } from '../../src/screen/graphemes.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

const COLS = 200;

/** (cluster, width) for every non-continuation cell of the pane's first row, up to its cursor. */
function paneCells(text: string): { s: string; w: number }[] {
  const pane = new PaneTerminal({ cols: COLS, rows: 2 });
  try {
    void pane.write(text);
    const buffer = pane.xterm.buffer.active;
    const line = buffer.getLine(0)!;
    const out: { s: string; w: number }[] = [];
    for (let x = 0; x < buffer.cursorX; x++) {
      const cell = line.getCell(x)!;
      if (cell.getWidth() === 0) continue;
      out.push({ s: cell.getChars() || ' ', w: cell.getWidth() });
    }
    return out;
  } finally {
    pane.dispose();
  }
}

/** The same for the compositor's parser (what the chrome and overlays are drawn with). */
function chromeCells(text: string): { s: string; w: number }[] {
  const grid = ansiToGrid(text, COLS, 1);
  const out: { s: string; w: number }[] = [];
  const width = textWidth(text);
  for (let x = 0; x < width; x++) {
    const w = widthOf(grid.flags[grid.index(x, 0)]!);
    if (w === 0) continue;
    out.push({ s: grid.charAt(x, 0), w });
  }
  return out;
}

/** Code points that exercise every clustering rule, plus any printable code point. */
const interesting = fc.constantFrom(
  0x41, 0x7c, 0x20, 0xe9, // ASCII, Latin-1
  0x4e2d, 0x3042, 0xff21, // CJK, kana, fullwidth
  0x1f600, 0x1f468, 0x1f469, 0x1f467, 0x2764, 0x263a, 0x2705, 0x1f44d, // emoji, text-style pictographs
  0x200d, 0xfe0f, 0xfe0e, 0x20e3, // ZWJ, VS16, VS15, keycap
  0x1f3fb, 0x1f3ff, // skin tones
  0x1f1fa, 0x1f1f8, // regional indicators
  0x301, 0x308, 0x20dd, 0x903, 0x93f, // combining marks, enclosing mark, spacing marks
  0x1100, 0x1161, 0x11a8, 0xac00, 0xac01, 0xd7b0, // Hangul L, V, T, LV, LVT, V extended
  0x200b, 0x200e, 0xad, 0xe0041, 0xff9e, // ZWSP, LRM, soft hyphen, tag, halfwidth sound mark
);
const anyPrintable = fc.integer({ min: 0xa0, max: 0x10ffff }).filter((cp) => cp < 0xd800 || cp > 0xdfff);
const codePoints = fc.array(fc.oneof({ weight: 4, arbitrary: interesting }, { weight: 1, arbitrary: anyPrintable }), { maxLength: 40 });

describe('cell widths: panes and chrome agree', () => {
  it('puts any string in the same cells in a pane terminal and in the compositor', () => {
    fc.assert(
      fc.property(codePoints, (cps) => {
        const text = String.fromCodePoint(...cps);
        const pane = paneCells(text);
        expect(chromeCells(text)).toEqual(pane);
        expect(clustersOf(text).map((c) => ({ s: c.s, w: c.w }))).toEqual(pane);
      }),
      { numRuns: 600 },
    );
  });

  it('draws emoji, ZWJ families, flags and skin tones two cells wide, as one cluster each', () => {
    expect(paneCells('A😀B|')).toEqual([{ s: 'A', w: 1 }, { s: '😀', w: 2 }, { s: 'B', w: 1 }, { s: '|', w: 1 }]);
    expect(paneCells('👨‍👩‍👧')).toEqual([{ s: '👨‍👩‍👧', w: 2 }]);
    expect(paneCells('🇺🇸🇫')).toEqual([{ s: '🇺🇸', w: 2 }, { s: '🇫', w: 2 }]);
    expect(paneCells('👍🏽x')).toEqual([{ s: '👍🏽', w: 2 }, { s: 'x', w: 1 }]);
    expect(paneCells('❤️中é')).toEqual([{ s: '❤️', w: 2 }, { s: '中', w: 2 }, { s: 'é', w: 1 }]);
    expect(paneCells('\u1100\u1161\u11a8')).toEqual([{ s: '\u1100\u1161\u11a8', w: 2 }]);
    expect(textWidth('A😀B|')).toBe(5);
  });

  it('never throws on any number xterm might hand it, and always gives a width of 1 or 2 to a new cluster', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7fffffff }), fc.integer({ min: 0, max: 0xffff }), (cp, preceding) => {
        const props = charProperties(cp, preceding);
        const width = propsWidth(props);
        expect(width).toBeLessThanOrEqual(2);
        if (!propsJoin(props)) expect(width).toBeGreaterThanOrEqual(1);
      }),
      { numRuns: 2000 },
    );
  });
});
