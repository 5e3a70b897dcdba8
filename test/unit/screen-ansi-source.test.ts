import { Box, Text, renderToString } from 'ink';
import { createElement as h } from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ansiToGrid,
  ATTR,
  CellGrid,
  drawAnsi,
  palette256Color,
  paletteColor,
  rgbColor,
} from '../../src/screen/index.js';
import { TerminalProbe } from '../../src/terminal/terminal-probe.js';

const probes: TerminalProbe[] = [];
afterEach(() => {
  for (const p of probes.splice(0)) p.dispose();
});

/** What a real terminal shows for the same text, for comparison. */
async function xtermView(text: string, cols: number, rows: number): Promise<CellGrid> {
  const p = new TerminalProbe(cols, rows);
  probes.push(p);
  await p.write(text.replaceAll('\n', '\r\n'));
  return p.grid();
}

function expectSameCells(actual: CellGrid, expected: CellGrid): void {
  for (let y = 0; y < expected.rows; y++) {
    for (let x = 0; x < expected.cols; x++) {
      const a = actual.get(x, y);
      const e = expected.get(x, y);
      expect({ x, y, ...a, transparent: false }).toEqual({ x, y, ...e });
    }
  }
}

describe('ansiToGrid', () => {
  it('parses SGR colours and attributes like a terminal does', async () => {
    const text = [
      '\x1b[31mred\x1b[39m \x1b[1;4mbold-under\x1b[22;24m \x1b[38;5;123m256\x1b[0m',
      '\x1b[38;2;10;20;30;48;2;1;2;3mrgb\x1b[m \x1b[7minv\x1b[27m \x1b[9;53mstrike\x1b[m',
      '\x1b[38:2::5:6:7mcolon\x1b[38:5:99m!\x1b[4:0m\x1b[93;104mbright\x1b[m',
    ].join('\n');
    const grid = ansiToGrid(text, 30, 3);
    expectSameCells(grid, await xtermView(text, 30, 3).then((v) => {
      // The probe shows blanks where nothing was printed; the layer has transparent cells there.
      for (let y = 0; y < 3; y++) for (let x = 0; x < 30; x++) if (grid.get(x, y).transparent) v.set(x, y, { char: ' ' });
      return v;
    }));
    expect(grid.get(0, 0).fg).toBe(paletteColor(1));
    expect(grid.get(4, 0).attrs).toBe(ATTR.bold | ATTR.underline);
    expect(grid.get(16, 0).fg).toBe(palette256Color(123));
    expect(grid.get(0, 1)).toMatchObject({ fg: rgbColor(10, 20, 30), bg: rgbColor(1, 2, 3) });
    expect(grid.get(0, 2).fg).toBe(rgbColor(5, 6, 7));
  });

  it('leaves unprinted cells transparent and printed spaces opaque', () => {
    const grid = ansiToGrid('ab  c\n\n x', 8, 4);
    expect(grid.get(2, 0)).toMatchObject({ char: ' ', transparent: false });
    expect(grid.get(5, 0).transparent).toBe(true);
    expect(grid.get(0, 1).transparent).toBe(true);
    expect(grid.get(0, 2)).toMatchObject({ char: ' ', transparent: false });
    expect(grid.get(1, 2)).toMatchObject({ char: 'x', transparent: false });
    expect(grid.get(0, 3).transparent).toBe(true);
  });

  it('measures wide characters and clusters, and clips at the edges', () => {
    const grid = ansiToGrid('中a😀b\nabcdefgh中\ne\u0301x', 8, 2);
    expect(grid.toLines()).toEqual(['中a😀b  ', 'abcdefgh']);
    expect(grid.get(3, 0)).toMatchObject({ char: '😀', width: 2 });
    const narrow = ansiToGrid('abcdefg中', 8, 1);
    expect(narrow.get(7, 0)).toMatchObject({ char: ' ', width: 1 });
    const cluster = ansiToGrid('e\u0301x👍🏽!', 8, 1);
    expect(cluster.charAt(0, 0)).toBe('e\u0301');
    expect(cluster.get(2, 0)).toMatchObject({ char: '👍🏽', width: 2 });
    expect(cluster.charAt(4, 0)).toBe('!');
  });

  it('skips cursor movement, OSC hyperlinks and other escapes', () => {
    const text = '\x1b]8;;https://example.com\x07link\x1b]8;;\x07 \x1b[2Kx\x1b(By\x1b]0;title\x1b\\z';
    expect(ansiToGrid(text, 12, 1).toLines()).toEqual(['link xyz    ']);
  });

  it('expands tabs to the next stop', () => {
    expect(ansiToGrid('a\tb', 12, 1).toLines()).toEqual(['a       b   ']);
  });

  it('draws at an offset into an existing grid', () => {
    const grid = new CellGrid(6, 3);
    grid.fill({ char: '.' });
    drawAnsi(grid, 'ab\ncd', 3, 1);
    expect(grid.toLines()).toEqual(['......', '...ab.', '...cd.']);
  });

  it('matches what a terminal shows for real Ink output', async () => {
    const ui = h(
      Box,
      { flexDirection: 'column', width: 40 },
      h(Box, { borderStyle: 'round', borderColor: 'cyan', paddingX: 1 },
        h(Text, { bold: true, color: 'green' }, 'corral '), h(Text, { color: '#ff8800' }, 'pane 中文'),
      ),
      h(Text, { inverse: true, dimColor: true }, ' status: working '),
      h(Text, { backgroundColor: 'blue', underline: true, italic: true, strikethrough: true }, 'styled'),
    );
    const text = renderToString(ui, { columns: 40 });
    const rows = text.split('\n').length;
    const grid = ansiToGrid(text, 40, rows);
    const view = await xtermView(text, 40, rows);
    for (let y = 0; y < rows; y++) for (let x = 0; x < 40; x++) if (grid.get(x, y).transparent) grid.set(x, y, { char: ' ' });
    expectSameCells(grid, view);
    expect(grid.toLines()[0].startsWith('╭')).toBe(true);
  });
});
