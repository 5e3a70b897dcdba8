import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Compositor, ManualScheduler } from '../../src/screen/index.js';
import { damagedRows } from '../../src/terminal/damage.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

const disposables: { dispose(): void }[] = [];
afterEach(() => {
  for (const d of disposables.splice(0)) d.dispose();
});

function terminal(cols = 20, rows = 6): PaneTerminal {
  const t = new PaneTerminal({ cols, rows, scrollback: 50 });
  disposables.push(t);
  return t;
}

/** Writes `data` and returns the damage reported with the revision it caused. */
async function damageOf(t: PaneTerminal, data: string) {
  let seen: PaneTerminal['lastDamage'] | undefined;
  const sub = t.onRevision(() => (seen = t.lastDamage));
  await t.write(data);
  sub.dispose();
  return seen;
}

describe('PaneTerminal.write', () => {
  it('parses before it returns: the revision fired, the text on the screen, nothing queued', () => {
    const t = terminal();
    let revisions = 0;
    t.onRevision(() => revisions++);
    for (const data of ['hello', Buffer.from('\r\nw\u00f6rld'), '\x1b[31m!']) {
      void t.write(data);
      expect(t.parsedAll).toBe(true);
    }
    expect(revisions).toBe(3);
    expect(t.read({ source: 'visible' }).text.split('\n').slice(0, 2)).toEqual(['hello', 'wörld!']);
  });
});

describe('DamageTracker', () => {
  it('reports only the rows a write touched', async () => {
    const t = terminal();
    await t.write('\x1b[3;1H');
    expect(await damageOf(t, 'x')).toEqual({ start: 2, end: 2 });
    expect(await damageOf(t, '\x1b[5;1Habc\x1b[6;1Hdef')).toEqual({ start: 2, end: 5 });
  });

  it('reports every row for a scroll, a screen switch and a reset', async () => {
    const t = terminal();
    expect(await damageOf(t, '\r\n'.repeat(10))).toBe('all');
    expect(await damageOf(t, '\x1b[?1049h')).toBe('all');
    expect(await damageOf(t, '\x1b[?1049l')).toBe('all');
    expect(await damageOf(t, '\x1bc')).toBe('all');
  });

  it('reports at most the cursor row for a write that changes no cell', async () => {
    const t = terminal();
    await t.write('\x1b[4;2H');
    expect(await damageOf(t, '\x1b[?25l')).toEqual({ start: 3, end: 3 });
  });

  it('survives output xterm throws on, and keeps parsing what comes after', async () => {
    const t = terminal();
    // xterm 6.0's eraseInDisplay reads past the buffer for CSI 1 J at the bottom-right corner
    // of a screen that has not scrolled yet.
    expect(await damageOf(t, '\x1b[6;20H\x1b[1J')).toBe('all');
    expect(t.parseErrors).toBe(1);
    await t.write('\x1b[Hafter');
    expect(t.read({ source: 'visible' }).text.split('\n')[0]).toBe('after');
    expect(t.parsedAll).toBe(true);
  });

  /** Pieces of output that move, erase, scroll and switch screens in every way xterm supports. */
  const piece = fc.oneof(
    fc.stringMatching(/^[a-z 界é]{1,12}$/),
    fc.constantFrom('\r\n', '\n', '\r', '\b', '\t', '\x1bM', '\x1bD', '\x1bE', '\x1b7', '\x1b8', '\x1bc'),
    fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 22 })).map(([r, c]) => `\x1b[${r};${c}H`),
    fc.tuple(fc.integer({ min: 0, max: 3 }), fc.constantFrom('A', 'B', 'C', 'D', 'J', 'K', 'L', 'M', 'P', '@', 'X', 'S', 'T', 'G', 'd')).map(([n, f]) => `\x1b[${n}${f}`),
    fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 })).map(([a, b]) => `\x1b[${Math.min(a, b)};${Math.max(a, b)}r`),
    fc.constantFrom('\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[31m', '\x1b[0m', '\x1b[7m', '\x1b[?6h', '\x1b[?6l', '\x1b[?7l', '\x1b[?7h', '\x1b[4h', '\x1b[4l', '\x1b#8'),
    fc.constantFrom('\x1b[3b', '\x1b[!p', 'e\u0301', '\x1b[2 @', '\x1b[2 A', '\x1b[?1J', '\x1b[?2K', '\x1b[1;3;4;6$z', '\x1b[1\'}', '\x1b[1\'~', '\x1bH\x1b[3g', '\x1b[2Z', '\x1b[2I'),
  );

  it('a compositor that re-reads only damaged rows shows what a full re-read shows', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(piece, { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 25 }), async (writes) => {
        const t = terminal();
        const rect = { x: 1, y: 1, cols: t.cols, rows: t.rows };
        const make = () => new Compositor({ cols: 22, rows: 8, scheduler: new ManualScheduler(), write: () => undefined });
        const byDamage = make();
        const byFullRead = make();
        try {
          for (const c of [byDamage, byFullRead]) {
            c.setPaneLayers([{ id: 'p', screen: t, rect, focused: true }]);
            c.renderNow();
          }
          const sub = t.onRevision(() => {
            byDamage.markPaneDirty('p', damagedRows(t.lastDamage));
            byFullRead.markPaneDirty('p');
          });
          for (const pieces of writes) {
            await t.write(pieces.join(''));
            byDamage.renderNow();
            byFullRead.renderNow();
            expect(byDamage.screen.equals(byFullRead.screen)).toBe(true);
          }
          sub.dispose();
        } finally {
          byDamage.dispose();
          byFullRead.dispose();
          t.dispose();
        }
      }),
      // Found by shrinking once: an erase above the cursor parked in the last column (xterm throws).
      { numRuns: 300, examples: [[[['\x1b[6;20H', '\x1b[1J'], ['\x1b[0A']]]] },
    );
  });
});
