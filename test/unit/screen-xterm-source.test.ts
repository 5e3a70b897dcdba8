import xterm from '@xterm/headless';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ATTR,
  CellGrid,
  COLOR_MODE,
  palette256Color,
  paletteColor,
  rgbColor,
  topLineFor,
} from '../../src/screen/index.js';
import { copyXtermRows, cursorFor } from '../../src/terminal/xterm-screen.js';
import { internalCursorModes, trackCursorModes } from '../../src/terminal/cursor-modes.js';
import { useModernUnicode } from '../../src/terminal/unicode-provider.js';

const { Terminal } = xterm;
type Term = InstanceType<typeof Terminal>;

const terminals: Term[] = [];
function terminal(cols: number, rows: number, scrollback = 100): Term {
  const t = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  terminals.push(t);
  return t;
}
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});
const write = (t: Term, s: string): Promise<void> => new Promise((resolve) => t.write(s, resolve));
const whole = (t: Term) => ({ x: 0, y: 0, cols: t.cols, rows: t.rows });

describe('copyXtermRows', () => {
  it('copies characters, colours and attributes', async () => {
    const t = terminal(20, 3);
    await write(t, '\x1b[31ma\x1b[38;5;100mb\x1b[38;2;1;2;3;48;5;7mc\x1b[0;1;3;4;5;7;8;9;53md\x1b[0;2me\x1b[0;94;101mf');
    const g = new CellGrid(20, 3);
    expect(copyXtermRows(t.buffer.active, g, whole(t))).toBe(1);
    expect(g.toLines()[0]).toBe('abcdef              ');
    expect(g.get(0, 0).fg).toBe(paletteColor(1));
    expect(g.get(1, 0).fg).toBe(palette256Color(100));
    expect(g.get(2, 0)).toMatchObject({ fg: rgbColor(1, 2, 3), bg: COLOR_MODE.p256 | 7 });
    expect(g.get(3, 0).attrs).toBe(
      ATTR.bold | ATTR.italic | ATTR.underline | ATTR.blink | ATTR.inverse | ATTR.invisible | ATTR.strikethrough | ATTR.overline,
    );
    expect(g.get(4, 0).attrs).toBe(ATTR.dim);
    expect(g.get(5, 0)).toMatchObject({ fg: paletteColor(12), bg: paletteColor(9) });
  });

  it('copies runs of equal cells the same as cell by cell: clusters, wide characters, underline styles, cut edges (property)', async () => {
    useModernUnicode(terminal(1, 1));
    // Pieces that make runs (spaces, borders, a colour held) and pieces a run must not swallow.
    const piece = fc.constantFrom(
      ' ', '   ', '─', '──', 'a', 'aa', '中', '中中', '👍', 'e\u0301', 'e\u0301e\u0301', 'a\u0301', 'e\u0308', '\t',
      '\x1b[31m', '\x1b[38;5;214m', '\x1b[48;2;1;2;3m', '\x1b[1m', '\x1b[0m', '\x1b[4:3m', '\x1b[58;5;9m', '\x1b[4:0m',
      '\x1b[K', '\x1b[2K', '\x1b[G', '\x1b[3D', '\r\n', '\x1b]8;;http://x\x07', '\x1b]8;;\x07',
    );
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 120 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 3, max: 14 }), async (pieces, x, cols) => {
        const t = terminal(14, 4);
        useModernUnicode(t);
        await write(t, pieces.join(''));
        const rect = { x, y: 0, cols, rows: 4 };
        const fast = new CellGrid(20, 4);
        copyXtermRows(t.buffer.active, fast, rect);
        // The same buffer with its lines' words out of reach: every cell through xterm's getters.
        const active = t.buffer.active;
        const slow = new CellGrid(20, 4);
        const opaque = {
          type: active.type,
          baseY: active.baseY,
          viewportY: active.viewportY,
          getNullCell: () => active.getNullCell(),
          getLine: (y: number) => {
            const line = active.getLine(y);
            return line && { isWrapped: line.isWrapped, length: line.length, getCell: line.getCell.bind(line), translateToString: line.translateToString.bind(line) };
          },
        };
        copyXtermRows(opaque, slow, rect);
        expect(fast.equals(slow)).toBe(true);
        expect(fast.toLines()).toEqual(slow.toLines());
      }),
      { numRuns: 300 },
    );
  });

  it('places the pane at its rect and clips it', async () => {
    const t = terminal(10, 3);
    await write(t, 'abcdefghij\r\nklmnopqrst\r\nuvwxyz');
    const g = new CellGrid(12, 4);
    g.fill({ char: '.' });
    copyXtermRows(t.buffer.active, g, { x: 2, y: 1, cols: 4, rows: 2 });
    expect(g.toLines()).toEqual(['............', '..abcd......', '..klmn......', '............']);
  });

  it('turns a wide character cut by the right edge into a space', async () => {
    const t = terminal(10, 2);
    await write(t, 'ab中文');
    const g = new CellGrid(5, 1);
    copyXtermRows(t.buffer.active, g, { x: 0, y: 0, cols: 5, rows: 1 });
    expect(g.toLines()).toEqual(['ab中 ']);
    expect(g.get(4, 0).width).toBe(1);
  });

  it('turns a cut emoji into a space when emoji are 2 wide', async () => {
    const t = terminal(10, 2);
    useModernUnicode(t);
    await write(t, 'abc😀x');
    const g = new CellGrid(4, 1);
    copyXtermRows(t.buffer.active, g, { x: 0, y: 0, cols: 4, rows: 1 });
    expect(g.toLines()).toEqual(['abc ']);
    const wide = new CellGrid(6, 1);
    copyXtermRows(t.buffer.active, wide, { x: 0, y: 0, cols: 6, rows: 1 });
    expect(wide.get(3, 0)).toMatchObject({ char: '😀', width: 2 });
    expect(wide.get(5, 0).char).toBe('x');
  });

  it('copies only the requested rows and reports which changed', async () => {
    const t = terminal(6, 3);
    await write(t, 'aaa\r\nbbb\r\nccc');
    const g = new CellGrid(6, 3);
    copyXtermRows(t.buffer.active, g, whole(t));
    await write(t, '\x1b[1;1Hxxx\x1b[3;1Hzzz');
    const changed = new Uint8Array(3);
    expect(copyXtermRows(t.buffer.active, g, whole(t), { rows: [1, 2], changed })).toBe(1);
    expect([...changed]).toEqual([0, 0, 1]);
    expect(g.toLines()).toEqual(['aaa   ', 'bbb   ', 'zzz   ']);
  });

  it('shows scrollback for a scroll offset', async () => {
    const t = terminal(8, 3);
    for (let i = 0; i < 10; i++) await write(t, `line${i}\r\n`);
    const buffer = t.buffer.active;
    expect(topLineFor(buffer)).toBe(buffer.viewportY);
    const g = new CellGrid(8, 3);
    copyXtermRows(buffer, g, whole(t), { top: topLineFor(buffer, 4) });
    expect(g.toLines()).toEqual(['line4   ', 'line5   ', 'line6   ']);
    copyXtermRows(buffer, g, whole(t), { top: topLineFor(buffer, 1000) });
    expect(g.toLines()[0]).toBe('line0   ');
  });
});

describe('cursorFor', () => {
  it('reads position, DECTCEM and DECSCUSR from xterm internals', async () => {
    const t = terminal(20, 5);
    await write(t, '\x1b[3;7H');
    expect(cursorFor(t)).toEqual({ x: 6, y: 2, visible: true, shape: 'default', blink: false });
    await write(t, '\x1b[?25l\x1b[5 q');
    expect(internalCursorModes(t)).toEqual({ visible: false, shape: 'bar', blink: true });
    expect(cursorFor(t)).toMatchObject({ visible: false, shape: 'bar', blink: true });
    await write(t, '\x1b[?25h\x1b[4 q');
    expect(cursorFor(t)).toMatchObject({ visible: true, shape: 'underline', blink: false });
  });

  it('tracks the same modes through public parser hooks', async () => {
    const t = terminal(20, 5);
    const modes = trackCursorModes(t);
    await write(t, '\x1b[?1049;25l\x1b[2 qhello');
    expect(cursorFor(t, modes)).toEqual({ x: 5, y: 0, visible: false, shape: 'block', blink: false });
    await write(t, '\x1b[?25h\x1b[0 q');
    expect(cursorFor(t, modes)).toMatchObject({ visible: true, shape: 'default' });
    await write(t, '\x1b[?25l\x1bc');
    expect(modes.visible).toBe(true);
    modes.dispose();
    await write(t, '\x1b[?25l');
    expect(modes.visible).toBe(true);
  });

  it('keeps the cursor in the last column while a wrap is pending', async () => {
    const t = terminal(5, 2);
    await write(t, 'abcde');
    expect(cursorFor(t).x).toBe(4);
  });
});
