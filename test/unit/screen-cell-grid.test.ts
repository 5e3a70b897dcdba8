import { describe, expect, it } from 'vitest';
import { ATTR, CellGrid, ClusterTable, COLOR_MODE, paletteColor, rgbColor } from '../../src/screen/index.js';

describe('CellGrid', () => {
  it('starts blank and round-trips a styled cell', () => {
    const g = new CellGrid(10, 3);
    expect(g.toLines()).toEqual(['          ', '          ', '          ']);
    g.set(2, 1, { char: 'x', fg: paletteColor(1), bg: rgbColor(1, 2, 3), attrs: ATTR.bold | ATTR.italic });
    expect(g.get(2, 1)).toEqual({
      char: 'x', width: 1, fg: COLOR_MODE.p16 | 1, bg: rgbColor(1, 2, 3), attrs: ATTR.bold | ATTR.italic, transparent: false,
    });
  });

  it('stores a wide character as lead plus continuation', () => {
    const g = new CellGrid(6, 1);
    g.set(1, 0, { char: '中' });
    expect(g.get(1, 0).width).toBe(2);
    expect(g.get(2, 0)).toMatchObject({ char: '', width: 0 });
    expect(g.toLines()).toEqual([' 中   ']);
  });

  it('never leaves half a wide character when either half is overwritten', () => {
    const g = new CellGrid(6, 1);
    g.set(1, 0, { char: '中' });
    g.set(2, 0, { char: 'a' });
    expect(g.get(1, 0)).toMatchObject({ char: ' ', width: 1 });
    g.set(3, 0, { char: '文' });
    g.set(3, 0, { char: 'b' });
    expect(g.get(4, 0)).toMatchObject({ char: ' ', width: 1 });
    g.set(0, 0, { char: '中' });
    g.set(1, 0, { char: '文' });
    expect(g.toLines()).toEqual([' 文b  ']);
  });

  it('turns a wide character in the last column into a space', () => {
    const g = new CellGrid(3, 1);
    g.set(2, 0, { char: '中' });
    expect(g.get(2, 0)).toMatchObject({ char: ' ', width: 1 });
  });

  it('interns multi-code-point clusters and compares them across tables', () => {
    const a = new CellGrid(4, 1);
    const b = new CellGrid(4, 1, new ClusterTable());
    b.set(1, 0, { char: '👍🏽' }); // shift b's ids so they differ from a's
    b.set(0, 0, { char: 'é'.normalize('NFD'), width: 1 });
    a.set(0, 0, { char: 'é'.normalize('NFD'), width: 1 });
    expect(a.charAt(0, 0)).toBe('e\u0301');
    expect(a.cellEquals(0, b, 0)).toBe(true);
    b.set(0, 0, { char: 'a\u0301', width: 1 });
    expect(a.cellEquals(0, b, 0)).toBe(false);
  });

  it('resizes keeping content and cutting wide characters at the new edge', () => {
    const g = new CellGrid(6, 2);
    g.set(0, 0, { char: 'a' });
    g.set(2, 0, { char: '中' });
    g.resize(3, 3);
    expect(g.toLines()).toEqual(['a  ', '   ', '   ']);
    g.resize(5, 1);
    expect(g.toLines()).toEqual(['a    ']);
  });

  it('copies regions with clipping and optional transparency', () => {
    const src = new CellGrid(4, 2);
    src.clear(true);
    src.set(0, 0, { char: 'A' });
    src.set(1, 1, { char: 'B' });
    const dst = new CellGrid(5, 3);
    dst.fill({ char: '.' });
    dst.copyRegion(src, { x: 0, y: 0, cols: 4, rows: 2 }, 2, 1, true);
    expect(dst.toLines()).toEqual(['.....', '..A..', '...B.']);
    dst.copyRegion(src, { x: 0, y: 0, cols: 4, rows: 2 }, -1, 0, false);
    expect(dst.toLines()).toEqual(['   ..', 'B  ..', '...B.']);
    expect(dst.get(0, 0).transparent).toBe(true);
  });

  it('repairs wide characters split by a region copy', () => {
    const src = new CellGrid(2, 1);
    src.fill({ char: 'x' });
    const dst = new CellGrid(6, 1);
    dst.set(0, 0, { char: '中' });
    dst.set(2, 0, { char: '文' });
    dst.copyRegion(src, { x: 0, y: 0, cols: 2, rows: 1 }, 1, 0);
    expect(dst.toLines()).toEqual([' xx   ']);
  });

  it('compares rows and whole grids', () => {
    const a = new CellGrid(3, 2);
    const b = new CellGrid(3, 2);
    expect(a.equals(b)).toBe(true);
    b.set(1, 1, { char: 'q', attrs: ATTR.underline });
    expect(a.rowEquals(0, b)).toBe(true);
    expect(a.rowEquals(1, b)).toBe(false);
    a.copyRowFrom(b, 1);
    expect(a.equals(b)).toBe(true);
  });
});
