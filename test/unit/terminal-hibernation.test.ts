/**
 * A pane terminal that hibernates (src/terminal/hibernation.ts) and is used again must be the
 * terminal it was: every read, mode, pen, cursor and the effect of the next output the same as
 * a twin that never slept, and the replay itself announces nothing.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import type { ReadOptions } from '../../src/terminal/pane-view.js';
import { RateLimitedXtermLog } from '../../src/terminal/xterm-log.js';
import { HibernationSweep, OutputLog, type Hibernatable } from '../../src/terminal/hibernation.js';
import { CellGrid } from '../../src/screen/index.js';

const terminals: PaneTerminal[] = [];
/** A sweep that never runs by itself: the tests put terminals to sleep. */
const manual = new HibernationSweep(0);

function make(hibernate: boolean, size: { cols: number; rows: number }, scrollback: number): PaneTerminal {
  const t = new PaneTerminal({ ...size, scrollback, scrollbackWindow: 3, hibernate, hibernation: manual, log: new RateLimitedXtermLog(() => {}) });
  terminals.push(t);
  return t;
}
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

/** Everything the rest of corral can see of a pane's terminal. */
function observe(t: PaneTerminal): unknown {
  const reads: ReadOptions[] = [
    { source: 'recent', lines: 1000, format: 'ansi' },
    { source: 'recent-unwrapped', lines: 1000 },
    { source: 'visible', format: 'ansi' },
  ];
  const grid = new CellGrid(t.cols, t.rows);
  t.copyRows(grid, { x: 0, y: 0, cols: t.cols, rows: t.rows });
  const cells: unknown[] = [];
  for (let y = 0; y < t.rows; y++) for (let x = 0; x < t.cols; x++) cells.push(grid.get(x, y));
  return {
    reads: reads.map((r) => t.read(r)),
    endLine: t.endLine,
    first: t.scrollbackFirstLine,
    trimmed: t.trimmedLines,
    search: t.search('[a-z]+\\d', { regex: true, maxMatches: 1000 }),
    modes: [t.bracketedPasteMode, t.sendFocusMode, t.applicationCursorKeys, t.mouseTrackingMode, t.isAlternateScreen],
    keyboard: [t.keyboard.kittyFlags, t.keyboard.modifyOtherKeys],
    cursor: t.cursor(),
    pen: t.printPen(),
    title: t.title,
    progress: t.progress,
    revision: t.revision,
    parseErrors: t.parseErrors,
    size: [t.cols, t.rows],
    serialized: t.serialize(),
    cells,
  };
}

/** Output a program might write, hidden state included: pens, charsets, modes, regions, saved cursors, tabs, titles, half-sent sequences. */
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.stringMatching(/^[a-z0-9 界é]{1,24}$/) },
  { weight: 4, arbitrary: fc.constantFrom('\r\n', '\n', '\r', '\t', '\b') },
  fc.constantFrom('🚀', 'e\u0301', '✔\ufe0f', '\x1bM', '\x1bD', '\x1bE', '\x07'),
  fc.constantFrom('\x1b[31m', '\x1b[1;44m', '\x1b[38;2;1;2;3m', '\x1b[48;5;200m', '\x1b[7m', '\x1b[4:3m', '\x1b[58;5;9m', '\x1b[0m'),
  fc.constantFrom('\x1b[K', '\x1b[2J', '\x1b[3J', '\x1b[3S', '\x1b[2T', '\x1b[L', '\x1b[M', '\x1b[3X', '\x1b[2P', '\x1b[2@', '\x1b[3b'),
  fc.constantFrom('\x1b[?1049h', '\x1b[?1049l', '\x1b[?47h', '\x1b[?47l', '\x1b[2;3r', '\x1b[r', '\x1b[?7l', '\x1b[?7h', '\x1b[?6h', '\x1b[?6l'),
  fc.constantFrom('\x1b[?2004h', '\x1b[?2004l', '\x1b[?1h', '\x1b[?1l', '\x1b[?1000h', '\x1b[?1002h', '\x1b[?1006h', '\x1b[?1000l', '\x1b[?1004h', '\x1b[4h', '\x1b[4l'),
  fc.constantFrom('\x1b[>1u', '\x1b[>3u', '\x1b[<u', '\x1b[=5;1u', '\x1b[>4;2m', '\x1b[?u'),
  fc.constantFrom('\x1b(0', '\x1b(B', '\x1b)0', '\x0e', '\x0f', 'lqk'),
  fc.constantFrom('\x1b7', '\x1b8', '\x1b[s', '\x1b[u', '\x1bH', '\x1b[3g', '\x1b[g', '\x1b[?25l', '\x1b[?25h', '\x1b[5 q', '\x1b[2 q'),
  fc.constantFrom('\x1b]0;title one\x07', '\x1b]2;two\x1b\\', '\x1b]9;4;1;40\x07', '\x1b]9;4;0;0\x07', '\x1b[22;0t', '\x1b[23;0t'),
  // Sequences cut where a read could cut them: finished by the next piece, or not at all.
  fc.constantFrom('\x1b', '\x1b[', '\x1b[3', '\x1b]0;half', '\xe7'),
  fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 14 })).map(([r, c]) => `\x1b[${r};${c}H`),
  { weight: 1, arbitrary: fc.constant('\x1bc') },
);

/** A write, as text or as UTF-8 bytes cut anywhere (a multi-byte character may straddle two writes). */
const write = fc.tuple(fc.array(piece, { minLength: 1, maxLength: 10 }), fc.boolean(), fc.nat()).map(([pieces, bytes, cut]) => {
  const text = pieces.join('');
  if (!bytes) return { write: [text] as (string | Uint8Array)[] };
  const all = new TextEncoder().encode(text);
  const at = all.length > 1 ? 1 + (cut % (all.length - 1)) : all.length;
  return { write: [all.subarray(0, at), all.subarray(at)].filter((b) => b.length > 0) };
});

const op = fc.oneof(
  { weight: 6, arbitrary: write },
  { weight: 1, arbitrary: fc.record({ cols: fc.integer({ min: 2, max: 20 }), rows: fc.integer({ min: 1, max: 7 }) }) },
  { weight: 3, arbitrary: fc.constant({ sleep: true }) },
);

/**
 * Counts what a terminal announces: revisions, replies to the application, bells, resizes;
 * scrolls only while `shown` runs (a scroll listener means a client shows the pane, which
 * keeps it awake).
 */
function announcements(t: PaneTerminal): Record<string, number> {
  const seen = { revisions: 0, replies: 0, bells: 0, scrolls: 0, resizes: 0, before: 0 };
  t.onRevision(() => seen.revisions++);
  t.onReply(() => seen.replies++);
  t.onBell(() => seen.bells++);
  t.onResize(() => seen.resizes++);
  t.onBeforeParse(() => seen.before++);
  return seen;
}

async function shown(t: PaneTerminal, seen: Record<string, number>, action: () => Promise<void> | void): Promise<void> {
  const listening = t.onScroll(() => seen.scrolls!++);
  try {
    await action();
  } finally {
    listening.dispose();
  }
}

describe('hibernation', () => {
  it('a terminal that slept and woke is the one that never slept, for every read and for the output after', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), fc.integer({ min: 5, max: 60 }), async (ops, scrollback) => {
        const size = { cols: 12, rows: 4 };
        const awake = make(false, size, scrollback);
        const sleeper = make(true, size, scrollback);
        const told = [announcements(awake), announcements(sleeper)];
        for (const o of ops) {
          if ('write' in o) {
            for (const chunk of o.write) {
              await shown(awake, told[0]!, () => awake.write(chunk));
              await shown(sleeper, told[1]!, () => sleeper.write(chunk));
            }
          } else if ('cols' in o) {
            await shown(awake, told[0]!, () => awake.resize(o.cols, o.rows));
            await shown(sleeper, told[1]!, () => sleeper.resize(o.cols, o.rows));
          } else {
            const wasAwake = !sleeper.hibernating;
            expect(sleeper.hibernate()).toBe(wasAwake);
            expect(sleeper.hibernating).toBe(true);
            continue;
          }
          expect(sleeper.endLine).toBe(awake.endLine);
        }
        expect(observe(sleeper)).toEqual(observe(awake));
        expect(told[1]).toEqual(told[0]);
        // And once more after a last sleep, read first thing on waking.
        sleeper.hibernate();
        expect(observe(sleeper)).toEqual(observe(awake));
        awake.dispose();
        sleeper.dispose();
      }),
      { numRuns: Number(process.env.HIBERNATION_RUNS ?? 300) },
    );
  }, 600_000);

  it('a copy-mode reader taken before a sleep reads the woken terminal', async () => {
    const t = make(true, { cols: 10, rows: 3 }, 50);
    await t.write(Array.from({ length: 20 }, (_, i) => `row ${i}`).join('\r\n'));
    const reader = t.scrollbackReader();
    const before = Array.from({ length: reader.lineCount }, (_, i) => reader.text(i, true));
    expect(t.hibernate()).toBe(true);
    expect(Array.from({ length: reader.lineCount }, (_, i) => reader.text(i, true))).toEqual(before);
    expect(t.hibernating).toBe(false);
  });

  it('a pane a client shows (its compositor listens for scrolls) stays awake', async () => {
    const t = make(true, { cols: 10, rows: 3 }, 50);
    await t.write('$ ');
    const shown = t.onScroll(() => {});
    expect(t.hibernate()).toBe(false);
    expect(t.canHibernate).toBe(true);
    shown.dispose();
    expect(t.hibernate()).toBe(true);
  });

  it('a pane that wrote more than the log holds never hibernates, and a pending parse waits', async () => {
    const big = make(true, { cols: 20, rows: 5 }, 100);
    await big.write('x'.repeat(40 * 1024));
    expect(big.canHibernate).toBe(false);
    expect(big.hibernate()).toBe(false);
    expect(big.read({ source: 'visible' }).text).toContain('xxxx');
  });

  it('sleeps through the sweep, wakes on a read, and leaves the count when disposed asleep', async () => {
    let now = 0;
    const sweep = new HibernationSweep(30_000, () => now);
    const t = new PaneTerminal({ cols: 10, rows: 3, hibernation: sweep });
    terminals.push(t);
    await t.write('hello\r\n$ ');
    now = 10_000;
    sweep.sweep();
    now = 40_000;
    sweep.sweep();
    expect(t.hibernating).toBe(true);
    expect(sweep.stats()).toEqual({ asleep: 1, hibernations: 1, wakes: 0 });
    expect(t.read({ source: 'visible' }).text).toBe('hello\n$');
    expect(sweep.stats()).toEqual({ asleep: 0, hibernations: 1, wakes: 1 });
    now = 50_000;
    sweep.sweep();
    now = 80_000;
    sweep.sweep();
    expect(sweep.stats().asleep).toBe(1);
    t.dispose();
    expect(sweep.stats().asleep).toBe(0);
  });
});

describe('the sweep', () => {
  class Fake implements Hibernatable {
    touches = 0;
    canHibernate = true;
    asleep = false;
    hibernate(): boolean {
      if (this.asleep) return false;
      this.asleep = true;
      return true;
    }
  }

  it('puts to sleep what nothing touched for idleMs, keeps what was touched, forgets what never can', () => {
    let now = 0;
    const sweep = new HibernationSweep(30_000, () => now);
    const [idle, busy, full] = [new Fake(), new Fake(), new Fake()];
    for (const f of [idle, busy, full]) sweep.add(f);
    full.canHibernate = false;
    for (let t = 10_000; t <= 40_000; t += 10_000) {
      now = t;
      busy.touches++;
      sweep.sweep();
    }
    expect(idle.asleep).toBe(true);
    expect(busy.asleep).toBe(false);
    expect(full.asleep).toBe(false);
    expect(sweep.stats()).toEqual({ asleep: 1, hibernations: 1, wakes: 0 });
    sweep.woke(idle);
    idle.asleep = false;
    expect(sweep.stats()).toEqual({ asleep: 0, hibernations: 1, wakes: 1 });
    // Woken at 40 s: it sleeps again only 30 s later.
    now = 60_000;
    busy.touches++;
    sweep.sweep();
    expect(idle.asleep).toBe(false);
    now = 70_000;
    busy.touches++;
    sweep.sweep();
    expect(idle.asleep).toBe(true);
    sweep.remove(idle, true);
    sweep.remove(busy);
    expect(sweep.stats().asleep).toBe(0);
  });

  it('off when the idle time is 0', () => {
    const sweep = new HibernationSweep(0, () => 1e9);
    const f = new Fake();
    sweep.add(f);
    sweep.sweep();
    expect(f.asleep).toBe(false);
  });
});

describe('the output log', () => {
  it('keeps writes and resizes in order, copies bytes, and drops everything past its limit', () => {
    const log = new OutputLog(10);
    const bytes = new Uint8Array([104, 105]);
    log.write('ab');
    log.resize(5, 2);
    log.write(bytes);
    bytes[0] = 0;
    expect(log.replay()).toEqual(['ab', { cols: 5, rows: 2 }, new Uint8Array([104, 105])]);
    log.write('x'.repeat(7));
    expect(log.overflowed).toBe(true);
    expect(log.replay()).toEqual([]);
  });
});
