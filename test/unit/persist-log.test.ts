/**
 * The incremental saver (src/persist/scrollback-log.ts): what it saves is byte for byte the
 * full conversion (ScrollbackCapture) at the same moment, whatever was printed and whenever
 * saves happened — across trimming, clears, resets, resizes and the alternate screen — while
 * converting only what is new and holding only compressed text between saves.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { gzipSync, deflateSync } from 'node:zlib';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { ScrollbackCapture } from '../../src/persist/scrollback-capture.js';
import { ScrollbackLog } from '../../src/persist/scrollback-log.js';
import { decompressScrollback } from '../../src/persist/saved-scrollback.js';

type Op =
  | { kind: 'lines'; lines: { fg: number; bold: boolean; text: string }[]; end: string }
  | { kind: 'raw'; data: string }
  | { kind: 'resize'; cols: number; rows: number }
  | { kind: 'save' };

const glyph = fc.constantFrom('a', 'b', 'z', ' ', ' ', '-', 'é', '中', '🙂');
const lineArb = fc.record({
  fg: fc.integer({ min: 0, max: 9 }),
  bold: fc.boolean(),
  // Up to ~3 rows at 20 columns: wrapped lines, lines ending in spaces, empty lines.
  text: fc.array(glyph, { maxLength: 60, size: 'max' }).map((g) => g.join('')),
});

const opArb: fc.Arbitrary<Op> = fc.oneof(
  // Mostly a few lines between saves (so trimming cuts kept lines), sometimes a burst.
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('lines' as const), lines: fc.array(lineArb, { minLength: 1, maxLength: 6 }), end: fc.constantFrom('\r\n', '', '\r\n\r\n') }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lines' as const), lines: fc.array(lineArb, { minLength: 1, maxLength: 60 }), end: fc.constantFrom('\r\n', '') }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('raw' as const),
      data: fc.constantFrom(
        '\x1b[2J', // clear the screen
        '\x1b[H\x1b[2J\x1b[3J', // `clear`: screen and scrollback
        '\x1b[3J',
        '\x1b[5A\x1b[Koverwritten', // rewrite a screen row
        '\x1b[?1049h\x1b[Hfull screen app', // enter the alternate screen
        '\x1b[?1049l', // leave it
        '\x1bc', // full reset
        '\x1b[41m   \x1b[0m', // coloured spaces (shown, so not trimmed)
        '\r\n\r\n\r\n', // blank lines
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resize' as const), cols: fc.integer({ min: 8, max: 30 }), rows: fc.integer({ min: 3, max: 8 }) }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'save' as const }) },
);

function render(op: Extract<Op, { kind: 'lines' }>): string {
  return op.lines.map((l) => `\x1b[${l.bold ? '1;' : ''}${l.fg < 8 ? 30 + l.fg : 39}m${l.text}\x1b[0m`).join('\r\n') + op.end;
}

async function saved(log: ScrollbackLog): Promise<string | null> {
  const data = await log.save();
  return data === null ? null : decompressScrollback(data);
}

describe('ScrollbackLog', () => {
  it('saves what the full conversion reads, after any output and any saves before', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 1, maxLength: 60, size: 'max' }),
        fc.constantFrom(4, 30, 500),
        fc.constantFrom(40, 150),
        fc.constantFrom(true, false),
        // Tiny chunks (most kept lines compressed) or one never filled (all pending).
        fc.constantFrom(120, 1_000_000),
        async (ops, lines, scrollback, compact, chunkBytes) => {
          // A small buffer so trimming happens; a small compact window so the store is read too.
          const t = new PaneTerminal({ cols: 20, rows: 5, scrollback, compactScrollback: compact, scrollbackWindow: 12 });
          const log = new ScrollbackLog(t, lines, { chunkBytes, sliceRows: 9 });
          try {
            for (const op of [...ops, { kind: 'save' as const }]) {
              if (op.kind === 'lines') await t.write(render(op));
              else if (op.kind === 'raw') await t.write(op.data);
              else if (op.kind === 'resize') t.resize(op.cols, op.rows);
              else {
                const full = await new ScrollbackCapture(t).capture(lines);
                expect(await saved(log)).toBe(full);
              }
            }
          } finally {
            t.dispose();
          }
        },
      ),
      { numRuns: 300 },
    );
  }, 120_000);

  it('converts only rows new since the last save, and keeps them compressed', async () => {
    const t = new PaneTerminal({ cols: 80, rows: 24, scrollback: 10_000 });
    const log = new ScrollbackLog(t, 2000);
    let text = '';
    for (let i = 0; i < 3000; i++) text += `\x1b[3${i % 8}mline ${i}\x1b[0m with some plain text after it\r\n`;
    await t.write(text);
    expect(await saved(log)).toBe(await new ScrollbackCapture(t).capture(2000));
    const afterFirst = log.stats.rowsConverted;
    expect(afterFirst).toBeGreaterThanOrEqual(2000);
    await t.write('one more line\r\nand another\r\n');
    expect(await saved(log)).toBe(await new ScrollbackCapture(t).capture(2000));
    // Two new rows moved above the screen, plus the screen's rows converted again: not 2000.
    expect(log.stats.rowsConverted - afterFirst).toBeLessThanOrEqual(2 + 24 + 1);
    expect(log.stats.fullCaptures).toBe(0);
    // 2000 lines of ~50 characters plus colours are ~120 KB of text; compressed, a fraction.
    expect(log.heldBytes).toBeLessThan(60_000);
    t.dispose();
  });

  it('starts over after a resize, and gives null on the alternate screen', async () => {
    const t = new PaneTerminal({ cols: 30, rows: 5, scrollback: 500 });
    const log = new ScrollbackLog(t, 100);
    await t.write(Array.from({ length: 60 }, (_, i) => `row ${i} ${'x'.repeat(i % 40)}`).join('\r\n'));
    await saved(log);
    t.resize(17, 5);
    expect(await saved(log)).toBe(await new ScrollbackCapture(t).capture(100));
    expect(log.stats.restarts).toBe(1);
    await t.write('\x1b[?1049h');
    expect(await log.save()).toBeNull();
    t.dispose();
  });
});

describe('decompressScrollback', () => {
  it('reads gzip members one after the other, and the single zlib stream of the first version', () => {
    expect(decompressScrollback(Buffer.concat([gzipSync('a\nb\n'), gzipSync(''), gzipSync('c')]))).toBe('a\nb\nc');
    expect(decompressScrollback(deflateSync('old\nfile'))).toBe('old\nfile');
  });
});
