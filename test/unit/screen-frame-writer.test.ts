import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTR,
  CellGrid,
  COLOR_MODE,
  diffFrame,
  palette256Color,
  paletteColor,
  rgbColor,
  type CellInput,
  type CursorState,
} from '../../src/screen/index.js';
import { TerminalProbe } from '../../src/terminal/terminal-probe.js';

const probes: TerminalProbe[] = [];
function probe(cols: number, rows: number): TerminalProbe {
  const p = new TerminalProbe(cols, rows);
  probes.push(p);
  return p;
}
afterEach(() => {
  for (const p of probes.splice(0)) p.dispose();
});

const cursorAt = (x: number, y: number, extra: Partial<CursorState> = {}): CursorState => ({
  x, y, visible: true, shape: 'default', blink: false, ...extra,
});

/** Fails with the first differing cell, which says far more than "grids differ". */
function expectScreen(actual: CellGrid, expected: CellGrid): void {
  for (let y = 0; y < expected.rows; y++) {
    for (let x = 0; x < expected.cols; x++) {
      const i = expected.index(x, y);
      if (!actual.cellEquals(i, expected, i)) {
        expect({ x, y, cell: actual.get(x, y) }).toEqual({ x, y, cell: expected.get(x, y) });
      }
    }
  }
}

/** A terminal that shows `grid`, drawn by a full frame, plus the cursor it ends with. */
async function shown(grid: CellGrid, cursor = cursorAt(0, 0)): Promise<TerminalProbe> {
  const p = probe(grid.cols, grid.rows);
  await p.write(diffFrame(grid, grid, cursor, { full: true }));
  expectScreen(p.grid(), grid);
  return p;
}

function clone(grid: CellGrid): CellGrid {
  const copy = new CellGrid(grid.cols, grid.rows, grid.clusters);
  copy.copyRegion(grid, { x: 0, y: 0, cols: grid.cols, rows: grid.rows }, 0, 0);
  return copy;
}

describe('diffFrame', () => {
  it('returns nothing when nothing changed', () => {
    const g = new CellGrid(20, 5);
    const c = cursorAt(3, 3);
    expect(diffFrame(g, g, c, { shownCursor: c })).toBe('');
  });

  it('echoes one typed character in a handful of bytes', async () => {
    const prev = new CellGrid(80, 24);
    for (let x = 0; x < 10; x++) prev.set(x, 5, { char: '$>abcdefgh'[x] });
    const p = await shown(prev, cursorAt(10, 5));
    const next = clone(prev);
    next.set(10, 5, { char: 'x' });
    const out = diffFrame(prev, next, cursorAt(11, 5), { shownCursor: cursorAt(10, 5) });
    // 8 + 8 bytes of synchronized-output bracket, 1 byte of character.
    expect(Buffer.byteLength(out)).toBeLessThan(30);
    await p.write(out);
    expectScreen(p.grid(), next);
    expect(p.cursor()).toMatchObject({ x: 11, y: 5 });
  });

  it('writes only the changed cell, with one cursor move, when the cursor is elsewhere', async () => {
    const prev = new CellGrid(80, 24);
    prev.fill({ char: '.' });
    const p = await shown(prev, cursorAt(0, 0));
    const next = clone(prev);
    next.set(40, 12, { char: 'Q' });
    const out = diffFrame(prev, next, cursorAt(0, 0), { shownCursor: cursorAt(0, 0) });
    expect(out.split('Q').length).toBe(2);
    expect(out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')).toBe('Q');
    expect(Buffer.byteLength(out)).toBeLessThan(40);
    await p.write(out);
    expectScreen(p.grid(), next);
  });

  it('emits a colour once for a run of same-styled characters', async () => {
    const prev = new CellGrid(100, 3);
    const p = await shown(prev);
    const next = clone(prev);
    for (let x = 0; x < 80; x++) next.set(x, 1, { char: 'r', fg: paletteColor(1) });
    const out = diffFrame(prev, next, cursorAt(0, 0), { shownCursor: cursorAt(0, 0) });
    expect(out.match(/\x1b\[31m/g)).toHaveLength(1);
    expect(out).toContain('r'.repeat(80));
    await p.write(out);
    expectScreen(p.grid(), next);
  });

  it('rewrites a short unchanged gap instead of moving the cursor around it', async () => {
    const prev = new CellGrid(40, 2);
    for (let x = 0; x < 10; x++) prev.set(x, 0, { char: 'a' });
    const p = await shown(prev, cursorAt(2, 0));
    const next = clone(prev);
    next.set(2, 0, { char: 'X' });
    next.set(4, 0, { char: 'Y' });
    const out = diffFrame(prev, next, cursorAt(5, 0), { shownCursor: cursorAt(2, 0), synchronized: false });
    // "X", the unchanged "a" rewritten (1 byte, cheaper than a 3-byte move), "Y".
    expect(Buffer.byteLength(out)).toBe(3);
    await p.write(out);
    expectScreen(p.grid(), next);
  });

  it('round-trips 16, 256 and truecolor colours and every attribute', async () => {
    const prev = new CellGrid(40, 6);
    const p = await shown(prev);
    const next = clone(prev);
    const styles: CellInput[] = [
      { char: 'a', fg: paletteColor(3) },
      { char: 'b', fg: paletteColor(12), bg: paletteColor(4) },
      { char: 'c', fg: palette256Color(5), bg: palette256Color(200) },
      { char: 'd', fg: rgbColor(255, 128, 1), bg: rgbColor(0, 0, 0) },
      { char: 'e', attrs: ATTR.bold },
      { char: 'f', attrs: ATTR.dim },
      { char: 'g', attrs: ATTR.bold | ATTR.dim | ATTR.italic },
      { char: 'h', attrs: ATTR.underline | ATTR.blink },
      { char: 'i', attrs: ATTR.inverse, fg: paletteColor(2) },
      { char: 'j', attrs: ATTR.invisible },
      { char: 'k', attrs: ATTR.strikethrough | ATTR.overline },
      { char: 'l', attrs: ATTR.dim },
      { char: 'm' },
    ];
    styles.forEach((s, k) => next.set(k * 2, 2, s));
    styles.forEach((s, k) => next.set(k, 4, s));
    await p.write(diffFrame(prev, next, cursorAt(0, 0), { shownCursor: cursorAt(0, 0) }));
    expectScreen(p.grid(), next);
    expect(p.grid().get(4, 2).fg).toBe(COLOR_MODE.p256 | 5);
    expect(p.grid().get(6, 2).fg).toBe(rgbColor(255, 128, 1));
  });

  it('keeps wide characters whole when they replace or are replaced by narrow ones', async () => {
    const prev = new CellGrid(12, 3);
    prev.set(0, 0, { char: '中' });
    prev.set(2, 0, { char: '文' });
    prev.set(0, 1, { char: 'a' });
    prev.set(1, 1, { char: 'b' });
    prev.set(2, 1, { char: 'c' });
    const p = await shown(prev);
    const next = clone(prev);
    next.set(1, 0, { char: 'x' }); // cuts both wide characters
    next.set(1, 1, { char: '字' }); // covers b and c
    next.set(10, 2, { char: '字' });
    await p.write(diffFrame(prev, next, cursorAt(0, 0), { shownCursor: cursorAt(0, 0) }));
    expectScreen(p.grid(), next);
    expect(p.lines()[1]).toBe('a字         ');
  });

  it('rewrites both halves when only the style of a wide character changes', async () => {
    const prev = new CellGrid(6, 1);
    prev.set(2, 0, { char: '字' });
    const p = await shown(prev);
    const next = clone(prev);
    next.set(2, 0, { char: '字', fg: paletteColor(2) });
    await p.write(diffFrame(prev, next, cursorAt(0, 0), { shownCursor: cursorAt(0, 0) }));
    expectScreen(p.grid(), next);
  });

  it('keeps text aligned in terminals that disagree on emoji width', async () => {
    const prev = new CellGrid(20, 1);
    // This probe uses xterm's Unicode 6 tables: emoji are 1 wide there, 2 wide in the grid.
    const p = await shown(prev);
    const next = clone(prev);
    next.set(0, 0, { char: '😀' });
    next.set(2, 0, { char: 'a' });
    next.set(3, 0, { char: '😀' });
    next.set(5, 0, { char: 'b' });
    await p.write(diffFrame(prev, next, cursorAt(6, 0), { shownCursor: cursorAt(0, 0) }));
    expect(p.grid().charAt(2, 0)).toBe('a');
    expect(p.grid().charAt(5, 0)).toBe('b');
    expect(p.cursor().x).toBe(6);
  });

  it('full redraw clears and paints everything', async () => {
    const g = new CellGrid(30, 4);
    g.set(5, 1, { char: 'z', bg: paletteColor(4) });
    const p = probe(30, 4);
    await p.write('garbage everywhere\r\nmore garbage');
    const out = diffFrame(g, g, cursorAt(0, 3), { full: true });
    expect(out).toContain('\x1b[2J');
    await p.write(out);
    expectScreen(p.grid(), g);
  });

  it('positions, shows, hides and shapes the cursor only when it changes', async () => {
    const g = new CellGrid(20, 5);
    const p = await shown(g, cursorAt(0, 0));
    const bar = cursorAt(7, 3, { shape: 'bar', blink: true });
    const out = diffFrame(g, g, bar, { shownCursor: cursorAt(0, 0) });
    expect(out).toContain('\x1b[5 q');
    await p.write(out);
    expect(p.cursor()).toMatchObject({ x: 7, y: 3 });
    expect(diffFrame(g, g, bar, { shownCursor: bar })).toBe('');
    const hidden = { ...bar, visible: false };
    const hide = diffFrame(g, g, hidden, { shownCursor: bar });
    expect(hide).toContain('\x1b[?25l');
    expect(hide).not.toContain(' q');
    const show = diffFrame(g, g, bar, { shownCursor: hidden });
    expect(show).toContain('\x1b[?25h');
  });

  it('applied to a terminal showing the previous frame, always yields the next frame', async () => {
    const cols = 14;
    const rows = 5;
    const color = fc.oneof(
      fc.constant(COLOR_MODE.default),
      fc.integer({ min: 0, max: 15 }).map(paletteColor),
      fc.integer({ min: 0, max: 255 }).map(palette256Color),
      fc.tuple(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 255 }))
        .map(([r, g, b]) => rgbColor(r, g, b)),
    );
    const edit = fc.record({
      x: fc.integer({ min: 0, max: cols - 1 }),
      y: fc.integer({ min: 0, max: rows - 1 }),
      char: fc.constantFrom('a', 'b', ' ', '#', '中', '字', 'é', 'ö', '─'),
      fg: color,
      bg: color,
      attrs: fc.integer({ min: 0, max: 0x1ff }),
    });
    const frame = fc.record({
      edits: fc.array(edit, { maxLength: 12 }),
      cursor: fc.record({
        x: fc.integer({ min: 0, max: cols - 1 }),
        y: fc.integer({ min: 0, max: rows - 1 }),
        visible: fc.boolean(),
        shape: fc.constantFrom('default' as const, 'block' as const, 'underline' as const, 'bar' as const),
        blink: fc.boolean(),
      }),
      full: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(frame, { minLength: 1, maxLength: 8 }), async (frames) => {
        const p = new TerminalProbe(cols, rows);
        try {
          let prev = new CellGrid(cols, rows);
          let shownCursor: CursorState | null = null;
          await p.write(diffFrame(prev, prev, cursorAt(0, 0), { full: true }));
          shownCursor = cursorAt(0, 0);
          for (const f of frames) {
            const next = clone(prev);
            for (const e of f.edits) next.set(e.x, e.y, e);
            const out = diffFrame(prev, next, f.cursor, { shownCursor, full: f.full });
            await p.write(out);
            const screen = p.grid();
            for (let i = 0; i < cols * rows; i++) {
              if (!screen.cellEquals(i, next, i)) return false;
            }
            const c = p.cursor();
            if (c.x !== f.cursor.x || c.y !== f.cursor.y || c.visible !== f.cursor.visible || c.shape !== f.cursor.shape) return false;
            if (c.shape !== 'default' && c.blink !== f.cursor.blink) return false;
            prev = next;
            shownCursor = f.cursor;
          }
          return true;
        } finally {
          p.dispose();
        }
      }),
      { numRuns: 150 },
    );
  });
});
