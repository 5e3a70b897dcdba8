/**
 * A pane's snapshot (PaneTerminal.mirrorSnapshot: what a machine link's mirror and the web view
 * replay before the pane's output batches) must put the screen where it was: replayed into a
 * fresh terminal and followed by the same output, the two terminals show the same screen and
 * the same lines. Found by the web kill test: a snapshot taken with the cursor on a blank last
 * row came back one row too high, and the next line overwrote the one above it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

const chunk = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 40 }).map((n) => `L-${n}\r\n`) },
  { weight: 2, arbitrary: fc.stringMatching(/^[a-z ]{1,12}$/) },
  { weight: 1, arbitrary: fc.constantFrom('\x1b[31mred\x1b[0m\r\n', '\x1b[2J\x1b[H', '\x1b[3;5Hmoved', '\r\n\r\n', 'é中文🙂\r\n', '\x1b[?1049hALT\x1b[?1049l', '\x1b[?1049hIN-ALT\r\n', '\x1b[K', '\x1b[1B', '\x1b[4;1H') },
);

function textOf(t: PaneTerminal, lines: number): string {
  return t.read({ source: 'recent', lines }).text;
}

describe('mirrorSnapshot', () => {
  it('property: snapshot, then the same output on both sides, shows the same screen and lines', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 20, max: 60 }), fc.integer({ min: 3, max: 12 }), fc.array(chunk, { maxLength: 40 }), fc.array(chunk, { maxLength: 20 }), async (cols, rows, before, after) => {
        const source = new PaneTerminal({ cols, rows, scrollback: 500, hibernate: false });
        const replica = new PaneTerminal({ cols, rows, scrollback: 500, hibernate: false });
        try {
          for (const data of before) await source.write(data);
          await replica.write(source.mirrorSnapshot(200));
          for (const data of after) {
            await source.write(data);
            await replica.write(data);
          }
          expect(replica.read({ source: 'visible' }).text).toBe(source.read({ source: 'visible' }).text);
          expect(textOf(replica, 100)).toBe(textOf(source, 100));
        } finally {
          source.dispose();
          replica.dispose();
        }
      }),
      { seed: 4203, numRuns: 300 },
    );
  });

  it('a blank last row under the cursor stays below the lines above it', async () => {
    const source = new PaneTerminal({ cols: 20, rows: 4, scrollback: 100, hibernate: false });
    const replica = new PaneTerminal({ cols: 20, rows: 4, scrollback: 100, hibernate: false });
    for (let i = 1; i <= 6; i++) await source.write(`WL-${i}\r\n`);
    await replica.write(source.mirrorSnapshot(100));
    await source.write('WL-7\r\n');
    await replica.write('WL-7\r\n');
    expect(replica.read({ source: 'recent', lines: 10 }).text).toBe(source.read({ source: 'recent', lines: 10 }).text);
    expect(replica.read({ source: 'recent', lines: 10 }).text).toContain('WL-6\nWL-7');
  });
});
