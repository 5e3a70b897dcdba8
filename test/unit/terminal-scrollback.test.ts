/**
 * The compact scrollback store (src/terminal/scrollback.ts): reads cannot tell whether a row
 * lives in xterm or in the store. The property test feeds the same random output to a pane
 * with the store (and a tiny xterm window, so most rows live in the store) and one without,
 * and compares every read byte for byte.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import type { ReadOptions } from '../../src/terminal/pane-view.js';
import type { CoreBufferLine } from '../../src/terminal/xterm-internals.js';

const terminals: PaneTerminal[] = [];
function make(options: { cols?: number; rows?: number; scrollback?: number; compact: boolean; window?: number }): PaneTerminal {
  const t = new PaneTerminal({
    cols: options.cols ?? 12,
    rows: options.rows ?? 4,
    scrollback: options.scrollback ?? 40,
    compactScrollback: options.compact,
    scrollbackWindow: options.window ?? 3,
  });
  terminals.push(t);
  return t;
}
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

const READS: ReadOptions[] = [
  { source: 'recent', lines: 1000 },
  { source: 'recent', lines: 7 },
  { source: 'recent', lines: 1000, format: 'ansi' },
  { source: 'recent-unwrapped', lines: 1000 },
  { source: 'recent-unwrapped', lines: 5 },
  { source: 'recent-unwrapped', lines: 1000, format: 'ansi' },
  { source: 'visible' },
  { source: 'visible', format: 'ansi' },
];

/** Everything a caller can observe through the read interface. */
function observe(t: PaneTerminal): unknown {
  return {
    reads: READS.map((r) => t.read(r)),
    endLine: t.endLine,
    search: t.search('a', { maxMatches: 1000 }),
    searchRegex: t.search('[界é]|\\d', { regex: true, maxMatches: 1000 }),
    firstLine: t.scrollbackFirstLine,
  };
}

/** Output a program might write: text (wide, combining, astral), styles, wraps, clears, scrolls. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9 界é]{1,30}$/) },
  { weight: 4, arbitrary: fc.constantFrom('\r\n', '\r\n', '\n', '\r') },
  fc.constantFrom('🚀', 'e\u0301', '✔\ufe0f', '\t', '\b', '\x1bM', '\x1bD', '\x1bE'),
  fc.constantFrom('\x1b[31m', '\x1b[1;44m', '\x1b[38;2;1;2;3m', '\x1b[48;5;200m', '\x1b[7m', '\x1b[4:3m', '\x1b[58;5;9m', '\x1b[0m', '\x1b[9;53m'),
  fc.constantFrom('\x1b[K', '\x1b[2K', '\x1b[J', '\x1b[2J', '\x1b[3J', '\x1b[?3J', '\x1b[3S', '\x1b[2T', '\x1b[L', '\x1b[M', '\x1b[3X', '\x1b[2P', '\x1b[2@'),
  fc.constantFrom('\x1b[?1049h', '\x1b[?1049l', '\x1b[2;3r', '\x1b[r', '\x1b[?7l', '\x1b[?7h'),
  // Save and restore the cursor (DECSC/DECRC, SCOSC/SCORC): xterm keeps the saved row as an index into its rows.
  fc.constantFrom('\x1b7', '\x1b8', '\x1b[s', '\x1b[u'),
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 14 })).map(([r, c]) => `\x1b[${r};${c}H`),
  { weight: 1, arbitrary: fc.constant('\x1bc') },
);

describe('compact scrollback store', () => {
  it('gives byte-identical reads, search and line numbers with the store on and off', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.array(piece, { minLength: 1, maxLength: 12 }), fc.boolean()), { minLength: 1, maxLength: 30 }), async (writes) => {
        const on = make({ compact: true });
        const off = make({ compact: false });
        for (const [w, encode] of writes) {
          const data = w.join('');
          await on.write(data);
          await off.write(data);
          // Rows are copied raw first and encoded when the pane is quiet: check both forms.
          if (encode) on.compactScrollbackNow();
        }
        expect(observe(on)).toEqual(observe(off));
        expect(on.scrollbackStats().missedRows).toBe(0);
        on.dispose();
        off.dispose();
      }),
      { numRuns: 150 },
    );
  }, 120_000);

  it('gives byte-identical reads when the store holds many packed, compressed blocks', async () => {
    // The property above keeps 40 rows: fewer than one block (row-blocks.ts). Here 1,500 rows
    // of the same kind of output, so most stored rows are read back out of compressed blocks.
    const on = make({ compact: true, scrollback: 1500 });
    const off = make({ compact: false, scrollback: 1500 });
    // Without the pieces that empty the store, so it stays full. The alternate screen is in:
    // it saves the cursor on the way in and restores it on the way out (see the next tests).
    const SKIPPED = ['\x1b[3J', '\x1b[?3J', '\x1bc'];
    const pieces = fc.sample(fc.array(piece, { minLength: 1, maxLength: 12 }), { numRuns: 2500, seed: 15 });
    for (const [i, w] of pieces.entries()) {
      const data = w.filter((p) => !SKIPPED.includes(p)).join('') + '\r\n';
      await on.write(data);
      await off.write(data);
      if (i % 300 === 299) on.compactScrollbackNow();
    }
    on.compactScrollbackNow();
    // Output written on the alternate screen adds no rows: about 800 are stored.
    expect(on.scrollbackStats().storedRows).toBeGreaterThan(3 * 256);
    expect(observe(on)).toEqual(observe(off));
  }, 60_000);

  it('restores a cursor saved before long output to the same row, on and off (alternate screen too)', async () => {
    // xterm keeps the saved cursor as an index into its rows and restores it relative to the top
    // of the screen. With the store on, xterm holds fewer rows, so the same index meant a
    // different row: after `CSI ? 1049 l` the cursor landed rows away from where xterm alone put it
    // and every later line number (endLine, lineStarts, wait --pattern) was off by that much.
    const on = make({ compact: true, scrollback: 500, window: 3, cols: 20, rows: 5 });
    const off = make({ compact: false, scrollback: 500, cols: 20, rows: 5 });
    const lines = (from: number, n: number): string => Array.from({ length: n }, (_, i) => `out ${from + i}\r\n`).join('');
    for (const data of [lines(0, 12), '\x1b7', lines(12, 100), '\x1b8', 'here\r\n', '\x1b[?1049h', 'app', lines(200, 30), '\x1b[?1049l', 'back\r\n', lines(300, 40), '\x1b[?1049l', 'again\r\n']) {
      await on.write(data);
      await off.write(data);
      expect(on.endLine).toBe(off.endLine);
      expect(observe(on)).toEqual(observe(off));
    }
  });

  it('gives byte-identical reads and line numbers on and off through resizes (reflow included)', async () => {
    // Resizes reflow every row xterm alone would hold, those in the store included.
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.array(piece, { minLength: 1, maxLength: 12 }).map((w) => ({ write: w.join('') })) },
      { weight: 2, arbitrary: fc.record({ cols: fc.integer({ min: 2, max: 20 }), rows: fc.integer({ min: 1, max: 7 }) }) },
      // Only the height changes (the store's rows stay where they are: Scrollback.makeRoomForRows).
      { weight: 2, arbitrary: fc.record({ rows: fc.integer({ min: 1, max: 9 }) }) },
      fc.constant({ encode: true }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), fc.integer({ min: 5, max: 120 }), async (ops, scrollback) => {
        const on = make({ compact: true, scrollback });
        const off = make({ compact: false, scrollback });
        for (const o of ops) {
          if ('write' in o) {
            await on.write(o.write);
            await off.write(o.write);
          } else if ('rows' in o) {
            const cols = 'cols' in o ? o.cols : off.cols;
            on.resize(cols, o.rows);
            off.resize(cols, o.rows);
          } else on.compactScrollbackNow();
          expect(on.endLine).toBe(off.endLine);
        }
        expect(observe(on)).toEqual(observe(off));
        expect(on.scrollbackStats().missedRows).toBe(0);
        on.dispose();
        off.dispose();
      }),
      {
        numRuns: Number(process.env.SCROLLBACK_RUNS ?? 200),
        // xterm's narrowing reflow overwrote the cursor's row when it trimmed (xterm-reflow-guard.ts).
        examples: [[[{ rows: 2 }, { write: '界界 0aa界' }, { write: ' aa0  界é\n🚀' }, { write: '界 a界ééa 界  界0éaaa0é0é a\r\n\r\n界' }, { cols: 2, rows: 2 }, { write: '0' }], 5]],
      },
    );
  }, 600_000);

  it('reflows a store of many compressed blocks on and off alike (blocks read by their shape)', async () => {
    // Blocks whose rows all fit and none wraps go back as stand-ins without being unpacked;
    // here some blocks hold wrapped lines, some rows are wider than the narrower widths, and a
    // wrapped line may start in one block and end in the next.
    const on = make({ compact: true, scrollback: 3000, window: 3, cols: 40, rows: 5 });
    const off = make({ compact: false, scrollback: 3000, cols: 40, rows: 5 });
    const text = Array.from({ length: 2600 }, (_, i) => (i % 600 === 7 ? 'wrap-' + 'w'.repeat(60 + (i % 50)) : i % 13 === 0 ? `wide ${i} `.padEnd(35, '=') : `row ${i}`)).join('\r\n') + '\r\n';
    for (const t of [on, off]) await t.write(text);
    on.compactScrollbackNow();
    expect(on.scrollbackStats().storedRows).toBeGreaterThan(5 * 256);
    for (const [cols, rows] of [[30, 5], [60, 5], [12, 4], [12, 9], [40, 5], [200, 3]] as const) {
      on.resize(cols, rows);
      off.resize(cols, rows);
      expect(observe(on)).toEqual(observe(off));
      if (cols === 12) {
        await on.write(`after ${cols}x${rows}\r\n`);
        await off.write(`after ${cols}x${rows}\r\n`);
        on.compactScrollbackNow();
      }
    }
    expect(on.scrollbackStats().missedRows).toBe(0);
  }, 60_000);

  it('changes only the height with a full store as xterm alone does (rows trimmed, pulled down, saved cursor)', async () => {
    // Height-only resizes leave the stored rows in place: a shorter screen drops the rows xterm
    // alone would trim, a taller one borrows the newest stored rows for xterm to pull down.
    const on = make({ compact: true, scrollback: 30, window: 3, cols: 20, rows: 8 });
    const off = make({ compact: false, scrollback: 30, cols: 20, rows: 8 });
    const both = async (data: string): Promise<void> => {
      await on.write(data);
      await off.write(data);
    };
    await both(Array.from({ length: 60 }, (_, i) => `a${i}\r\n`).join('') + '\x1b7');
    for (const rows of [3, 12, 2, 15, 6]) {
      on.resize(20, rows);
      off.resize(20, rows);
      expect(observe(on)).toEqual(observe(off));
      await both(`r${rows}\r\n\x1b8saved\x1b7`);
      expect(observe(on)).toEqual(observe(off));
    }
    expect(on.scrollbackStats().storedRows).toBeGreaterThan(10);
  });

  it('reflows rows already in the store when the width changes, as xterm alone does', async () => {
    const on = make({ compact: true, scrollback: 1000, window: 3, cols: 30, rows: 4 });
    const off = make({ compact: false, scrollback: 1000, cols: 30, rows: 4 });
    const text = Array.from({ length: 80 }, (_, i) => `line-${i}-` + 'z'.repeat(i % 50)).join('\r\n') + '\r\n';
    for (const t of [on, off]) await t.write(text);
    on.compactScrollbackNow();
    expect(on.scrollbackStats().storedRows).toBeGreaterThan(60);
    for (const [cols, rows] of [[11, 3], [50, 6], [7, 2], [30, 4]] as const) {
      on.resize(cols, rows);
      off.resize(cols, rows);
      expect(on.read({ source: 'recent', lines: 1000 })).toEqual(off.read({ source: 'recent', lines: 1000 }));
      expect(observe(on)).toEqual(observe(off));
    }
    // At 11 columns the store held the rows wrapped at 11, not at 30.
    on.resize(11, 3);
    off.resize(11, 3);
    const rows = on.read({ source: 'recent', lines: 1000 }).text.split('\n');
    expect(rows.every((r) => r.length <= 11)).toBe(true);
    expect(on.scrollbackStats().storedRows).toBeGreaterThan(100);
    expect(on.scrollbackStats().missedRows).toBe(0);
  });

  it('really moves rows out of xterm: most of a long output lives in the store', async () => {
    const t = make({ compact: true, scrollback: 500, window: 10, cols: 40, rows: 5 });
    await t.write(Array.from({ length: 300 }, (_, i) => `row ${i}`).join('\r\n'));
    expect(t.xterm.buffer.normal.length).toBe(15);
    t.compactScrollbackNow();
    const stats = t.scrollbackStats();
    expect(stats.compact).toBe(true);
    expect(stats.storedRows).toBe(300 - 15);
    // "row N" is 5–7 cells: about a hundred bytes a row, where xterm spends 40 × 12.
    expect(stats.storedBytes / stats.storedRows).toBeLessThan(120);
    const all = t.read({ source: 'recent', lines: 1000 }).text.split('\n');
    expect(all).toEqual(Array.from({ length: 300 }, (_, i) => `row ${i}`));
  });

  it('keeps exactly scrollback_lines rows, and absolute line numbers after trimming', async () => {
    const t = make({ compact: true, scrollback: 50, window: 5, cols: 20, rows: 4 });
    await t.write(Array.from({ length: 1000 }, (_, i) => `n${i}`).join('\r\n'));
    const read = t.read({ source: 'recent', lines: 10_000 });
    const rows = read.text.split('\n');
    expect(rows).toHaveLength(54);
    expect(rows[0]).toBe('n946');
    expect(rows.at(-1)).toBe('n999');
    expect(read.totalLines).toBe(54);
    expect(read.endLine).toBe(1000);
    expect(t.scrollbackFirstLine).toBe(946);
    // search reports 1-based rows of the spanning buffer: n950 is row 5.
    expect(t.search('n950').matches).toEqual([{ line: 5, text: 'n950' }]);
  });

  it('joins soft-wrapped rows across the store/xterm boundary and keeps wide characters', async () => {
    const t = make({ compact: true, scrollback: 100, window: 2, cols: 10, rows: 3 });
    const long = 'ab界cd界' + 'x'.repeat(30) + 'END';
    await t.write(`${long}\r\n` + 'tail\r\n'.repeat(6));
    expect(t.scrollbackStats().storedRows).toBeGreaterThan(2);
    const unwrapped = t.read({ source: 'recent-unwrapped', lines: 100 }).text.split('\n');
    expect(unwrapped[0]).toBe(long);
    // The wide character that did not fit at the end of row 1 moved to row 2, as xterm does it.
    const rows = t.read({ source: 'recent', lines: 100 }).text.split('\n');
    expect(rows[0]).toBe('ab界cd界xx');
    expect(t.search('xEND').matches[0]).toEqual({ line: 1, text: long });
  });

  it('keeps colours and attributes of stored rows for ansi reads', async () => {
    const t = make({ compact: true, scrollback: 100, window: 2, cols: 20, rows: 3 });
    await t.write('\x1b[1;31mred\x1b[0m plain \x1b[48;2;10;20;30mbg\x1b[0m\r\n' + 'x\r\n'.repeat(8));
    expect(t.scrollbackStats().storedRows).toBeGreaterThan(0);
    const first = t.read({ source: 'recent', lines: 100, format: 'ansi' }).text.split('\n')[0];
    expect(first).toBe('\x1b[0;1;31mred\x1b[0m plain \x1b[0;48;2;10;20;30mbg\x1b[0m');
  });

  it('clears the store with the scrollback (CSI 3 J) and after a full reset', async () => {
    const t = make({ compact: true, scrollback: 100, window: 2, cols: 20, rows: 3 });
    await t.write('old\r\n'.repeat(20) + 'last');
    expect(t.scrollbackStats().storedRows).toBeGreaterThan(0);
    await t.write('\x1b[H\x1b[2J\x1b[3J');
    expect(t.scrollbackStats().storedRows).toBe(0);
    expect(t.search('old').matches).toEqual([]);
    await t.write('new\r\n'.repeat(20));
    await t.write('\x1bc');
    expect(t.search('new').matches).toEqual([]);
    expect(t.scrollbackStats().missedRows).toBe(0);
  });

  it('loses no row when a resize reflows and trims', async () => {
    const t = make({ compact: true, scrollback: 1000, window: 3, cols: 30, rows: 4 });
    const text = Array.from({ length: 60 }, (_, i) => `line-${i}-` + 'z'.repeat(i % 40)).join('\r\n');
    await t.write(text + '\r\n');
    t.resize(11, 3);
    t.resize(50, 6);
    await t.write('after\r\n');
    const unwrapped = t.read({ source: 'recent-unwrapped', lines: 1000 }).text.split('\n');
    expect(unwrapped.slice(0, 60)).toEqual(text.split('\r\n'));
    expect(unwrapped[60]).toBe('after');
    expect(t.scrollbackStats().missedRows).toBe(0);
  });
});

describe('raw row ring', () => {
  /** A row of `cols` cells whose first `filled` cells hold `tag`. */
  function row(cols: number, filled: number, tag: number, wrapped: boolean): CoreBufferLine {
    const data = new Uint32Array(cols * 3);
    for (let x = 0; x < cols; x++) data[x * 3] = x < filled ? (1 << 22) | (0x41 + ((tag + x) % 26)) : 1 << 22;
    const combined: Record<number, string> = filled > 3 ? { 2: 'e\u0301' } : {};
    return { _data: data, length: cols, isWrapped: wrapped, _combined: combined, _extendedAttrs: {} };
  }

  it('holds exactly what a plain list would, through pushes, adopted rows, drops from both ends and growth', async () => {
    const { RawRows } = await import('../../src/terminal/raw-rows.js');
    const op = fc.oneof(
      { weight: 5, arbitrary: fc.record({ push: fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.boolean()) }) },
      { weight: 2, arbitrary: fc.record({ adopt: fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 40 }), fc.boolean()) }) },
      fc.record({ front: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ back: fc.integer({ min: 0, max: 3 }) }),
      fc.constant({ clear: true }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 50 }), fc.array(op, { maxLength: 300 }), (maxRows, ops) => {
        const ring = new RawRows(maxRows);
        const model: CoreBufferLine[] = [];
        let tag = 0;
        for (const o of ops) {
          if ('push' in o) {
            const [cols, filled, wrapped] = o.push;
            const r = row(cols, Math.min(cols, filled), tag++, wrapped);
            expect(ring.push(r)).toBe(model.length < maxRows);
            if (model.length < maxRows) model.push(r);
          } else if ('adopt' in o) {
            const [cols, filled, wrapped] = o.adopt;
            const r = row(cols, Math.min(cols, filled), tag++, wrapped);
            expect(ring.adopt(r)).toBe(model.length < maxRows);
            if (model.length < maxRows) model.push(r);
          } else if ('front' in o) {
            ring.dropFront(o.front);
            model.splice(0, o.front);
          } else if ('back' in o) {
            ring.dropBack(o.back);
            model.splice(Math.max(0, model.length - o.back), o.back);
          } else {
            ring.clear();
            model.length = 0;
          }
          expect(ring.size).toBe(model.length);
        }
        model.forEach((m, i) => {
          const got = ring.line(i)!;
          expect(Array.from(got._data)).toEqual(Array.from(m._data));
          expect([got.length, got.isWrapped, got._combined]).toEqual([m.length, m.isWrapped, m._combined]);
        });
      }),
      { numRuns: 300 },
    );
  });
});

describe('copy mode’s view of the compact store', () => {
  it('draws rows scrolled back into the store exactly as rows still in xterm', async () => {
    const { CellGrid, topLineFor } = await import('../../src/screen/index.js');
    const { copyXtermRows } = await import('../../src/terminal/xterm-screen.js');
    const on = make({ compact: true, scrollback: 200, window: 4, cols: 16, rows: 4 });
    const off = make({ compact: false, scrollback: 200, cols: 16, rows: 4 });
    const text = Array.from({ length: 120 }, (_, i) => `\x1b[3${i % 8}mrow ${i} 界\x1b[0m`).join('\r\n');
    await on.write(text);
    await off.write(text);
    on.compactScrollbackNow();
    expect(on.scrollbackStats().storedRows).toBeGreaterThan(100);
    for (const offset of [0, 3, 50, 116]) {
      const grids = [on, off].map((t) => {
        const grid = new CellGrid(16, 4);
        copyXtermRows(t.scrollback, grid, { x: 0, y: 0, cols: 16, rows: 4 }, { top: topLineFor(t.scrollback, offset) });
        return grid;
      });
      expect(grids[0]!.toLines()).toEqual(grids[1]!.toLines());
      for (let y = 0; y < 4; y++) for (let x = 0; x < 16; x++) expect(grids[0]!.get(x, y)).toEqual(grids[1]!.get(x, y));
    }
    // Fully scrolled back, the top row is the oldest kept row, from the store.
    const top = new CellGrid(16, 4);
    copyXtermRows(on.scrollback, top, { x: 0, y: 0, cols: 16, rows: 4 }, { top: topLineFor(on.scrollback, 116) });
    expect(top.toLines()[0]).toBe('row 0 界        ');
  });
});

describe('copy mode over the compact store', () => {
  it('reads and wraps every kept row, including those only the store holds', async () => {
    const { terminalSource } = await import('../../src/tui/copy-mode/copy-source.js');
    const t = make({ compact: true, scrollback: 300, window: 5, cols: 20, rows: 4 });
    await t.write(Array.from({ length: 100 }, (_, i) => `line ${i}` + (i % 10 === 0 ? ' '.repeat(15) + 'wrapped' : '')).join('\r\n'));
    expect(t.scrollbackStats().storedRows).toBeGreaterThan(50);
    const source = terminalSource(t);
    expect(source.lineCount).toBe(t.scrollback.length);
    expect(source.text(0, true)).toBe('line 0' + ' '.repeat(14));
    expect(source.wrapped(1)).toBe(true);
    expect(source.text(1, true)).toBe(' wrapped');
    expect(source.text(2, true)).toBe('line 1');
  });
});
