import xterm from '@xterm/headless';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CellGrid,
  Compositor,
  FRAME,
  ManualScheduler,
  type PaneLayer,
} from '../../src/screen/index.js';
import { TerminalProbe } from '../../src/terminal/terminal-probe.js';
import { useModernUnicode } from '../../src/terminal/unicode-provider.js';
import { XtermScreen } from '../../src/terminal/xterm-screen.js';

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

/** One `PaneScreen` per terminal, as the core hands out one view per pane. */
const screens = new WeakMap<Term, XtermScreen>();
function screenOf(t: Term): XtermScreen {
  let screen = screens.get(t);
  if (!screen) screens.set(t, (screen = new XtermScreen(t)));
  return screen;
}

const disposables: { dispose(): void }[] = [];
afterEach(() => {
  for (const d of disposables.splice(0)) d.dispose();
});

function paneTerminal(cols: number, rows: number): Term {
  const t = new Terminal({ cols, rows, scrollback: 200, allowProposedApi: true });
  disposables.push(t);
  return t;
}
const feed = (t: Term, s: string): Promise<void> => new Promise((resolve) => t.write(s, resolve));

/** A compositor wired to a probe terminal standing in for the user's screen. */
function setup(cols: number, rows: number, options: { modernUnicode?: boolean } = {}) {
  const scheduler = new ManualScheduler();
  const probe = new TerminalProbe(cols, rows, options);
  const writes: string[] = [];
  const compositor = new Compositor({ cols, rows, scheduler, write: (s) => { writes.push(s); } });
  disposables.push(probe, compositor);
  /** Renders a frame, shows it on the probe and checks the probe matches the compositor's idea of the screen. */
  const frame = async (): Promise<string> => {
    const out = compositor.renderNow();
    await probe.write(out);
    expect(probe.grid().equals(compositor.screen)).toBe(true);
    return out;
  };
  return { scheduler, probe, writes, compositor, frame };
}

/** Chrome like PaneFrames draws: a border around each pane rect, nothing inside. */
function frameAround(cols: number, rows: number, rect: { x: number; y: number; cols: number; rows: number }, title: string): string {
  const lines: string[] = [];
  for (let y = 0; y < rows; y++) {
    let line = '';
    for (let x = 0; x < cols; x++) {
      const top = y === rect.y - 1;
      const bottom = y === rect.y + rect.rows;
      const left = x === rect.x - 1;
      const right = x === rect.x + rect.cols;
      const insideX = x >= rect.x - 1 && x <= rect.x + rect.cols;
      const insideY = y >= rect.y - 1 && y <= rect.y + rect.rows;
      if (insideX && insideY && (top || bottom)) line += left ? (top ? '┌' : '└') : right ? (top ? '┐' : '┘') : '─';
      else if (insideX && insideY && (left || right)) line += '│';
      else line += ' ';
    }
    lines.push(line);
  }
  lines[0] = `\x1b[1;36m${title}\x1b[0m${lines[0].slice(title.length)}`;
  return lines.join('\n');
}

describe('Compositor', () => {
  it('shows the UI chrome with pane contents inside the frames', async () => {
    const { compositor, probe, frame } = setup(30, 8);
    const rect = { x: 2, y: 2, cols: 12, rows: 4 };
    const t = paneTerminal(12, 4);
    await feed(t, '\x1b[32mhello\x1b[0m\r\nworld');
    compositor.setUiLayer(frameAround(30, 8, rect, 'corral'));
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect, focused: true }]);
    const out = await frame();
    expect(out).toContain('\x1b[2J');
    const lines = probe.lines();
    expect(lines[0].startsWith('corral')).toBe(true);
    expect(lines[2].slice(1, 15)).toBe('│hello       │');
    expect(lines[3].slice(1, 15)).toBe('│world       │');
    expect(probe.grid().get(2, 2).fg).toBe(t.buffer.active.getLine(0)!.getCell(0)!.getFgColor() | (1 << 24));
    expect(probe.cursor()).toMatchObject({ x: 7, y: 3 });
  });

  it('echoes a keystroke in a few bytes, writing only that cell', async () => {
    const { compositor, probe, frame } = setup(80, 24);
    const t = paneTerminal(78, 22);
    await feed(t, 'some output\r\n$ ');
    compositor.setUiLayer(frameAround(80, 24, { x: 1, y: 1, cols: 78, rows: 22 }, 'x'));
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 1, y: 1, cols: 78, rows: 22 }, focused: true }]);
    await frame();
    await feed(t, 'l');
    compositor.markPaneDirty('a', [t.buffer.active.cursorY]);
    const out = await frame();
    expect(Buffer.byteLength(out)).toBeLessThan(30);
    expect(probe.lines()[2].slice(1, 5)).toBe('$ l ');
    expect(probe.cursor()).toMatchObject({ x: 4, y: 2 });
    expect(compositor.stats.lastFrameBytes).toBe(Buffer.byteLength(out));
  });

  it('finds the changed rows itself when told only that a pane changed', async () => {
    const { compositor, probe, frame } = setup(40, 12);
    const t = paneTerminal(40, 12);
    for (let i = 0; i < 11; i++) await feed(t, `row ${i}\r\n`);
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 40, rows: 12 }, focused: true }]);
    await frame();
    await feed(t, '\x1b[5;1Hchanged');
    compositor.markPaneDirty('a');
    const out = await frame();
    expect(Buffer.byteLength(out)).toBeLessThan(40);
    expect(probe.lines()[4].trimEnd()).toBe('changed');
  });

  it('redraws a whole pane when it scrolls, even if told only about the cursor row', async () => {
    const { compositor, probe, frame } = setup(10, 3);
    const t = new Terminal({ cols: 10, rows: 3, scrollback: 2, allowProposedApi: true });
    disposables.push(t);
    for (let i = 0; i < 8; i++) await feed(t, `l${i}\r\n`);
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 10, rows: 3 }, focused: true }]);
    await frame();
    const top = t.buffer.active.viewportY;
    await feed(t, 'l8\r\nl9');
    // With the scrollback full the top line number stays put; the scroll event gives it away.
    expect(t.buffer.active.viewportY).toBe(top);
    compositor.markPaneDirty('a', [t.buffer.active.cursorY]);
    await frame();
    expect(probe.lines().map((l) => l.trimEnd())).toEqual(['l7', 'l8', 'l9']);
  });

  it('puts overlays above panes and uncovers them when removed', async () => {
    const { compositor, probe, frame } = setup(30, 8);
    const t = paneTerminal(30, 8);
    for (let i = 0; i < 8; i++) await feed(t, `${'pane'.repeat(7)}${i}${i < 7 ? '\r\n' : ''}`);
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 30, rows: 8 }, focused: true }]);
    await frame();
    const before = probe.lines();
    compositor.setOverlay('help', '\x1b[7m HELP \x1b[0m\n\x1b[7m  ?   \x1b[0m', { x: 10, y: 3 });
    await frame();
    expect(probe.lines()[3].slice(10, 16)).toBe(' HELP ');
    expect(probe.lines()[4].slice(10, 16)).toBe('  ?   ');
    expect(probe.lines()[2]).toBe(before[2]);
    compositor.setOverlay('help', null);
    await frame();
    expect(probe.lines()).toEqual(before);
  });

  it('lets pane content show through transparent overlay cells', async () => {
    const { compositor, probe, frame } = setup(20, 3);
    const t = paneTerminal(20, 3);
    await feed(t, 'abcdefghijklmnopqrst');
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 20, rows: 3 } }]);
    compositor.setOverlay('tip', 'XY', { x: 2, y: 0 });
    await frame();
    expect(probe.lines()[0]).toBe('abXYefghijklmnopqrst');
  });

  it('hides the cursor while an overlay covers it', async () => {
    const { compositor, probe, frame } = setup(20, 4);
    const t = paneTerminal(20, 4);
    await feed(t, 'ab');
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 20, rows: 4 }, focused: true }]);
    await frame();
    expect(probe.cursor().visible).toBe(true);
    compositor.setOverlay('menu', '[menu]', { x: 0, y: 0 });
    await frame();
    expect(probe.cursor().visible).toBe(false);
    compositor.setOverlay('menu', null);
    await frame();
    expect(probe.cursor()).toMatchObject({ x: 2, y: 0, visible: true });
  });

  it('passes the application cursor shape and visibility through', async () => {
    const { compositor, probe, frame } = setup(20, 4);
    const t = paneTerminal(20, 4);
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 20, rows: 4 }, focused: true }]);
    await feed(t, '\x1b[6 q');
    await frame();
    expect(probe.cursor()).toMatchObject({ shape: 'bar', blink: false, visible: true });
    await feed(t, '\x1b[?25l');
    compositor.markPaneDirty('a', []);
    await frame();
    expect(probe.cursor().visible).toBe(false);
  });

  it('never splits wide characters at pane edges or under overlays', async () => {
    const { compositor, probe, frame } = setup(16, 3, { modernUnicode: true });
    const left = paneTerminal(12, 3);
    useModernUnicode(left);
    await feed(left, 'abcdef中文\r\n😀😀😀😀😀x');
    compositor.setUiLayer('       │        \n       │        \n       │        ');
    compositor.setPaneLayers([{ id: 'l', screen: screenOf(left), rect: { x: 0, y: 0, cols: 7, rows: 3 }, focused: true }]);
    await frame();
    expect(probe.lines()[0]).toBe('abcdef │        ');
    expect(probe.lines()[1]).toBe('😀😀😀 │        ');
    compositor.setOverlay('o', 'Z', { x: 3, y: 1 });
    await frame();
    // The overlay covers the right half of the second emoji: the left half becomes a space.
    expect(probe.lines()[1]).toBe('😀 Z😀 │        ');
    compositor.setOverlay('o', null);
    await frame();
    expect(probe.lines()[1]).toBe('😀😀😀 │        ');
  });

  it('redraws everything after a resize', async () => {
    const { compositor, probe, frame } = setup(20, 4);
    const t = paneTerminal(20, 4);
    await feed(t, 'pane text');
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 1, cols: 20, rows: 3 }, focused: true }]);
    compositor.setUiLayer('title');
    await frame();
    probe.resize(30, 6);
    compositor.resize(30, 6);
    compositor.setUiLayer('title wider');
    t.resize(30, 5);
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 1, cols: 30, rows: 5 }, focused: true }]);
    const out = await frame();
    expect(out).toContain('\x1b[2J');
    expect(probe.lines().map((l) => l.trimEnd())).toEqual(['title wider', 'pane text', '', '', '', '']);
  });

  it('shows scrollback for a scrolled pane and follows the live screen otherwise', async () => {
    const { compositor, probe, frame } = setup(10, 3);
    const t = paneTerminal(10, 3);
    for (let i = 0; i < 20; i++) await feed(t, `\r\nline${i}`);
    const pane: PaneLayer = { id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 10, rows: 3 }, focused: true };
    compositor.setPaneLayers([pane]);
    await frame();
    expect(probe.lines().map((l) => l.trimEnd())).toEqual(['line17', 'line18', 'line19']);
    compositor.setPaneLayers([{ ...pane, scrollOffset: 5 }]);
    await frame();
    expect(probe.lines().map((l) => l.trimEnd())).toEqual(['line12', 'line13', 'line14']);
    expect(probe.cursor().visible).toBe(false);
    compositor.setPaneLayers([pane]);
    await frame();
    expect(probe.lines().map((l) => l.trimEnd())).toEqual(['line17', 'line18', 'line19']);
    expect(probe.cursor()).toMatchObject({ visible: true, y: 2 });
  });

  it('moves the cursor with focus and uncovers the chrome when a pane goes away', async () => {
    const { compositor, probe, frame } = setup(21, 3);
    const a = paneTerminal(10, 3);
    const b = paneTerminal(10, 3);
    await feed(a, 'left');
    await feed(b, 'right!');
    compositor.setUiLayer(`${' '.repeat(10)}|\n${' '.repeat(10)}|\n${'~'.repeat(21)}`);
    compositor.setPaneLayers([
      { id: 'a', screen: screenOf(a), rect: { x: 0, y: 0, cols: 10, rows: 2 }, focused: true },
      { id: 'b', screen: screenOf(b), rect: { x: 11, y: 0, cols: 10, rows: 2 } },
    ]);
    await frame();
    expect(probe.lines()[0]).toBe('left      |right!    ');
    expect(probe.cursor()).toMatchObject({ x: 4, y: 0 });
    compositor.setPaneLayers([
      { id: 'a', screen: screenOf(a), rect: { x: 0, y: 0, cols: 10, rows: 2 } },
      { id: 'b', screen: screenOf(b), rect: { x: 11, y: 0, cols: 10, rows: 2 }, focused: true },
    ]);
    const focusOnly = await frame();
    expect(focusOnly).not.toContain('left');
    expect(probe.cursor()).toMatchObject({ x: 17, y: 0 });
    compositor.setPaneLayers([{ id: 'a', screen: screenOf(a), rect: { x: 0, y: 0, cols: 10, rows: 2 }, focused: true }]);
    await frame();
    expect(probe.lines()).toEqual(['left      |          ', '          |          ', '~'.repeat(21)]);
  });

  it('accepts a prepared UI grid and a cursor override', async () => {
    const { compositor, probe, frame } = setup(10, 2);
    const grid = new CellGrid(10, 2);
    grid.set(0, 1, { char: '>' });
    compositor.setUiGrid(grid);
    compositor.setCursorOverride({ x: 2, y: 1, visible: true, shape: 'bar', blink: true });
    await frame();
    expect(probe.lines()[1]).toBe('>         ');
    expect(probe.cursor()).toMatchObject({ x: 2, y: 1, visible: true, shape: 'bar', blink: true });
  });

  it('does not redraw when the UI layer is set to the same text', async () => {
    const { compositor, frame } = setup(10, 2);
    compositor.setUiLayer('same');
    await frame();
    compositor.setUiLayer('same');
    expect(await frame()).toBe('');
    compositor.setUiLayer('sane');
    const out = await frame();
    expect(out.replace(/\x1b\[[0-9;?]*[A-Za-z ]/g, '').trim()).toMatch(/^(sa)?n$/);
    expect(Buffer.byteLength(out)).toBeLessThan(25);
  });

  describe('frame scheduling', () => {
    it('flushes the first request on the next tick', () => {
      const { compositor, scheduler, writes } = setup(10, 2);
      compositor.setUiLayer('hi');
      expect(writes).toHaveLength(0);
      scheduler.advance(0);
      expect(writes).toHaveLength(1);
    });

    it('coalesces a flood to one frame per interval', async () => {
      const { compositor, scheduler, writes } = setup(20, 10);
      const t = paneTerminal(20, 10);
      compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 20, rows: 10 }, focused: true }]);
      scheduler.advance(0);
      expect(writes).toHaveLength(1);
      for (let i = 0; i < 50; i++) {
        await feed(t, `${i} `);
        compositor.markPaneDirty('a');
        scheduler.advance(1);
      }
      // 50 ms of continuous output: one frame per 16 ms interval, not one per write.
      expect(writes.length - 1).toBeLessThanOrEqual(Math.ceil(50 / FRAME.intervalMs));
      expect(writes.length - 1).toBeGreaterThanOrEqual(Math.floor(50 / FRAME.intervalMs));
      scheduler.advance(FRAME.intervalMs);
      expect(compositor.screen.toLines().join('')).toMatch(/^0 1 2 3 .* 48 49 /);
    });

    it('spaces a flood\'s frames by their cost when frames are slow (a loaded machine), urgent ones still at once', async () => {
      const scheduler = new ManualScheduler();
      const writes: string[] = [];
      const frameCostMs = 5;
      // Each frame takes 5 ms of the scheduler's clock to write.
      const compositor = new Compositor({ cols: 20, rows: 10, scheduler, write: (s) => { writes.push(s); scheduler.advance(frameCostMs); } });
      disposables.push(compositor);
      const t = paneTerminal(20, 10);
      compositor.setPaneLayers([{ id: 'a', screen: screenOf(t), rect: { x: 0, y: 0, cols: 20, rows: 10 }, focused: true }]);
      scheduler.advance(0);
      const before = writes.length;
      for (let i = 0; i < 200; i++) {
        await feed(t, `${i} `);
        compositor.markPaneDirty('a');
        scheduler.advance(1);
      }
      const interval = frameCostMs * FRAME.costFactor;
      expect(interval).toBeGreaterThan(FRAME.intervalMs);
      // ~260 ms of clock (200 ms of writes plus the frames' own time): one frame per interval.
      const frames = writes.length - before;
      expect(frames).toBeLessThanOrEqual(Math.ceil((200 + frames * frameCostMs) / interval) + 1);
      expect(frames).toBeGreaterThanOrEqual(Math.floor(200 / interval) - 1);
      // An urgent change does not wait for the longer interval.
      const typed = writes.length;
      compositor.markPaneDirty('a', [0], { urgent: true });
      scheduler.advance(0);
      expect(writes).toHaveLength(typed + 1);
    });

    it('sends a keystroke at once after an idle period', () => {
      const { compositor, scheduler, writes } = setup(10, 2);
      compositor.setUiLayer('a');
      scheduler.advance(0);
      scheduler.advance(100);
      compositor.setUiLayer('ab');
      scheduler.advance(0);
      expect(writes).toHaveLength(2);
    });

    it('draws an urgent change (a keystroke echo) at once, even inside a flood\'s interval', async () => {
      const { compositor, scheduler, writes } = setup(20, 2);
      const flood = paneTerminal(10, 2);
      const typed = paneTerminal(10, 2);
      compositor.setPaneLayers([
        { id: 'flood', screen: screenOf(flood), rect: { x: 0, y: 0, cols: 10, rows: 2 } },
        { id: 'typed', screen: screenOf(typed), rect: { x: 10, y: 0, cols: 10, rows: 2 }, focused: true },
      ]);
      scheduler.advance(0);
      await feed(flood, 'yyyy');
      compositor.markPaneDirty('flood');
      scheduler.advance(0); // the flood's frame: the next one is paced to the interval
      await feed(flood, 'zzzz');
      compositor.markPaneDirty('flood');
      const before = writes.length;
      await feed(typed, 'k');
      compositor.markPaneDirty('typed', [0], { urgent: true });
      scheduler.advance(0);
      expect(writes).toHaveLength(before + 1);
      expect(compositor.screen.toLines()[0]).toContain('k');
      // The urgent frame carried the flood's change too; nothing is left for the interval.
      expect(compositor.screen.toLines()[0]).toContain('zzzz');
      scheduler.advance(FRAME.intervalMs);
      expect(writes).toHaveLength(before + 1);
    });

    it('holds frames while the output is full and sends only the latest after drain', () => {
      const scheduler = new ManualScheduler();
      const writes: string[] = [];
      const compositor = new Compositor({ cols: 10, rows: 1, scheduler, write: (s) => { writes.push(s); return false; } });
      disposables.push(compositor);
      compositor.setUiLayer('one');
      scheduler.advance(0);
      compositor.setUiLayer('two');
      compositor.setUiLayer('six');
      scheduler.advance(100);
      expect(writes).toHaveLength(1);
      compositor.outputDrained();
      scheduler.advance(0);
      expect(writes).toHaveLength(2);
      expect(compositor.screen.toLines()).toEqual(['six       ']);
    });

    it('renderNow cancels the scheduled frame', () => {
      const { compositor, scheduler, writes } = setup(10, 2);
      compositor.setUiLayer('a');
      compositor.renderNow();
      expect(scheduler.pending).toBe(0);
      expect(writes).toHaveLength(1);
    });
  });
});

describe('Compositor, incrementally', () => {
  it('always shows what a fresh compositor would draw from the same layers', async () => {
    const cols = 24;
    const rows = 8;
    const paneText = fc.constantFrom('abc', '中文', 'x', '\r\n', '\x1b[31mred\x1b[0m', '\x1b[2;3H', '\x1b[K', '\x1b[1;44mhi\x1b[m',
      '\x1b[?25l', '\x1b[?25h', '\x1b[4 q', 'long line that wraps around', '\x1b[2J', '字字字字字');
    const rect = fc.constantFrom(
      { x: 1, y: 1, cols: 10, rows: 6 }, { x: 0, y: 0, cols: 12, rows: 8 }, { x: 12, y: 1, cols: 11, rows: 6 },
      { x: 5, y: 2, cols: 7, rows: 3 },
    );
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), pane: fc.constantFrom(0, 1), text: paneText }),
      fc.record({
        kind: fc.constant('layout' as const),
        rects: fc.tuple(fc.option(rect), fc.option(rect)),
        focus: fc.constantFrom(0, 1, -1),
        scroll: fc.constantFrom(undefined, 0, 2),
      }),
      fc.record({
        kind: fc.constant('overlay' as const),
        content: fc.option(fc.constantFrom('HELP', '中x', '\x1b[7m box \x1b[0m\n  ab', ' 字 ')),
        x: fc.integer({ min: 0, max: cols - 1 }),
        y: fc.integer({ min: 0, max: rows - 1 }),
      }),
      fc.record({ kind: fc.constant('ui' as const), text: fc.constantFrom('', 'title', '\x1b[1mcorral\x1b[0m 中\n|\n|\n|', '-'.repeat(cols)) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const terms = [12, 11].map((c) => new Terminal({ cols: c, rows: 6, scrollback: 20, allowProposedApi: true }));
        const probe = new TerminalProbe(cols, rows);
        const live = new Compositor({ cols, rows, scheduler: new ManualScheduler(), write: () => {} });
        let panes: PaneLayer[] = [];
        let ui = '';
        let overlay: { content: string; x: number; y: number } | null = null;
        try {
          for (const o of ops) {
            if (o.kind === 'write') {
              await feed(terms[o.pane], o.text);
              live.markPaneDirty(String(o.pane));
            } else if (o.kind === 'layout') {
              panes = [];
              o.rects.forEach((r, k) => {
                if (r) panes.push({ id: String(k), screen: screenOf(terms[k]), rect: r, focused: o.focus === k, scrollOffset: k === 0 ? o.scroll : undefined });
              });
              live.setPaneLayers(panes);
            } else if (o.kind === 'overlay') {
              overlay = o.content === null ? null : { content: o.content, x: o.x, y: o.y };
              live.setOverlay('o', overlay?.content ?? null, overlay ?? undefined);
            } else {
              ui = o.text;
              live.setUiLayer(ui);
            }
            await probe.write(live.renderNow());

            const fresh = new Compositor({ cols, rows, scheduler: new ManualScheduler(), write: () => {} });
            fresh.setUiLayer(ui);
            fresh.setPaneLayers(panes);
            if (overlay) fresh.setOverlay('o', overlay.content, overlay);
            const freshProbe = new TerminalProbe(cols, rows);
            await freshProbe.write(fresh.renderNow());
            const same = probe.grid().equals(fresh.screen) && live.screen.equals(fresh.screen);
            const a = probe.cursor();
            const b = freshProbe.cursor();
            freshProbe.dispose();
            fresh.dispose();
            if (!same) return false;
            if (a.visible !== b.visible || (b.visible && (a.x !== b.x || a.y !== b.y || a.shape !== b.shape))) return false;
          }
          return true;
        } finally {
          live.dispose();
          probe.dispose();
          for (const t of terms) t.dispose();
        }
      }),
      { numRuns: 60 },
    );
  });
});
