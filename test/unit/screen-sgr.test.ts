import { describe, expect, it } from 'vitest';
import { ATTR, COLOR_MODE, palette256Color, paletteColor, rgbColor, sgrFor, sgrTransition } from '../../src/screen/index.js';

const D = COLOR_MODE.default;

describe('sgrTransition', () => {
  it('is empty between equal styles', () => {
    expect(sgrTransition(paletteColor(1), D, ATTR.bold, paletteColor(1), D, ATTR.bold)).toBe('');
  });

  it('encodes 16-colour, bright, 256 and truecolor', () => {
    expect(sgrFor(paletteColor(1), D, 0)).toBe('\x1b[31m');
    expect(sgrFor(D, paletteColor(2), 0)).toBe('\x1b[42m');
    expect(sgrFor(paletteColor(9), paletteColor(15), 0)).toBe('\x1b[91;107m');
    expect(sgrFor(palette256Color(1), D, 0)).toBe('\x1b[38;5;1m');
    expect(sgrFor(D, palette256Color(200), 0)).toBe('\x1b[48;5;200m');
    expect(sgrFor(rgbColor(1, 2, 3), D, 0)).toBe('\x1b[38;2;1;2;3m');
  });

  it('changes only what differs', () => {
    expect(sgrTransition(paletteColor(1), D, ATTR.bold, paletteColor(2), D, ATTR.bold)).toBe('\x1b[32m');
    expect(sgrTransition(D, D, ATTR.italic | ATTR.underline, D, D, ATTR.italic)).toBe('\x1b[24m');
    expect(sgrTransition(D, paletteColor(4), 0, D, paletteColor(4), ATTR.inverse)).toBe('\x1b[7m');
  });

  it('re-adds dim after 22 turns bold off, since 22 clears both', () => {
    const red = paletteColor(1);
    expect(sgrTransition(red, D, ATTR.bold | ATTR.dim, red, D, ATTR.dim)).toBe('\x1b[22;2m');
  });

  it('uses a reset when that is shorter', () => {
    expect(sgrTransition(paletteColor(1), paletteColor(2), ATTR.bold | ATTR.underline, D, D, 0)).toBe('\x1b[m');
    expect(sgrTransition(rgbColor(9, 9, 9), D, ATTR.bold | ATTR.italic | ATTR.strikethrough, D, D, ATTR.blink)).toBe('\x1b[0;5m');
  });

  it('has individual off codes for every attribute', () => {
    const all = ATTR.italic | ATTR.underline | ATTR.blink | ATTR.inverse | ATTR.invisible | ATTR.strikethrough | ATTR.overline;
    expect(sgrTransition(rgbColor(1, 1, 1), D, all, rgbColor(1, 1, 1), D, 0)).toBe('\x1b[0;38;2;1;1;1m');
    expect(sgrTransition(D, D, ATTR.overline | ATTR.bold, D, D, ATTR.bold)).toBe('\x1b[55m');
    expect(sgrTransition(D, D, ATTR.invisible | ATTR.bold, D, D, ATTR.bold)).toBe('\x1b[28m');
  });
});
