import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { CellGrid, COLOR_MODE, diffFrame, palette256Color, paletteColor, rgbColor, type CursorState } from '../../src/screen/index.js';
import { TRUECOLOR, colorDistance, colorMapperFor, nearest16, nearest256, paletteRgb } from '../../src/screen/color-depth.js';
import { TerminalProbe } from '../../src/terminal/terminal-probe.js';
import { detectColors } from '../../src/client/capabilities.js';

const rgb = (hex: number) => rgbColor((hex >> 16) & 0xff, (hex >> 8) & 0xff, hex & 0xff);

describe('the xterm 256-colour palette', () => {
  it('has the 16 system colours, the 6×6×6 cube and the grey ramp at xterm’s RGB', () => {
    expect(paletteRgb(1)).toBe(0xcd0000);
    expect(paletteRgb(16)).toBe(0x000000);
    expect(paletteRgb(17)).toBe(0x00005f);
    expect(paletteRgb(196)).toBe(0xff0000);
    expect(paletteRgb(208)).toBe(0xff8700);
    expect(paletteRgb(231)).toBe(0xffffff);
    expect(paletteRgb(232)).toBe(0x080808);
    expect(paletteRgb(255)).toBe(0xeeeeee);
  });

  it('maps every cube and grey entry to itself', () => {
    for (let index = 16; index < 256; index++) expect(nearest256(paletteRgb(index))).toBe(index);
  });

  it('picks the nearest entry by a perceptual distance', () => {
    expect(nearest256(0xff8000)).toBe(208); // orange → ff8700
    expect(nearest256(0x808080)).toBe(244); // mid grey → the grey ramp, not the cube's 666666/878787
    expect(nearest256(0x1e1e1e)).toBe(234); // near-black grey → 1c1c1c
    expect(nearest256(0x000001)).toBe(16);
    expect(nearest256(0x3b82f6)).toBe(69); // tailwind blue-500 → 5f87ff
  });

  it('never picks an entry farther than another (any colour)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffffff }), (color) => {
        const chosen = colorDistance(color, paletteRgb(nearest256(color)));
        for (let index = 16; index < 256; index++) if (colorDistance(color, paletteRgb(index)) < chosen) return false;
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('maps to the 16 system colours for a 16-colour terminal', () => {
    expect(nearest16(0xfa0a0a)).toBe(9);
    expect(nearest16(0xc00000)).toBe(1);
    expect(nearest16(0x808080)).toBe(8);
    expect(nearest16(0xf0f0f0)).toBe(7);
    expect(nearest16(0x000010)).toBe(0);
  });
});

describe('colorMapperFor', () => {
  it('leaves every colour alone on a truecolor terminal', () => {
    expect(colorMapperFor(TRUECOLOR)).toBeNull();
  });

  it('turns 24-bit colours into 256-palette ones and leaves the rest', () => {
    const map = colorMapperFor(256)!;
    expect(map(rgb(0xff8000))).toBe(palette256Color(208));
    expect(map(palette256Color(100))).toBe(palette256Color(100));
    expect(map(paletteColor(3))).toBe(paletteColor(3));
    expect(map(COLOR_MODE.default)).toBe(COLOR_MODE.default);
    // Cached: the same answer every time.
    expect(map(rgb(0xff8000))).toBe(palette256Color(208));
  });

  it('turns 24-bit and 256-palette colours into the 16 for a 16-colour terminal', () => {
    const map = colorMapperFor(16)!;
    expect(map(rgb(0xff0000))).toBe(paletteColor(9));
    expect(map(palette256Color(196))).toBe(paletteColor(9));
    expect(map(palette256Color(4))).toBe(paletteColor(4));
    expect(map(palette256Color(236))).toBe(paletteColor(0));
    expect(map(paletteColor(12))).toBe(paletteColor(12));
  });
});

describe('detectColors', () => {
  it('reads COLORTERM and TERM as ncurses and tmux do', () => {
    expect(detectColors('xterm-256color', 'truecolor')).toBe(16777216);
    expect(detectColors('xterm-256color', '24bit')).toBe(16777216);
    expect(detectColors('xterm-direct', '')).toBe(16777216);
    expect(detectColors('xterm-kitty', '')).toBe(16777216);
    expect(detectColors('xterm-256color', '')).toBe(256);
    expect(detectColors('tmux-256color', '')).toBe(256);
    expect(detectColors('xterm', '')).toBe(16);
    expect(detectColors('screen', '')).toBe(16);
    expect(detectColors('linux', '')).toBe(16);
  });
});

describe('diffFrame for a terminal with fewer colours', () => {
  const probes: TerminalProbe[] = [];
  afterEach(() => {
    for (const p of probes.splice(0)) p.dispose();
  });
  const cursor: CursorState = { x: 0, y: 0, visible: true, shape: 'default', blink: false };

  it('writes the nearest palette colour instead of 38;2 / 48;2', () => {
    const grid = new CellGrid(10, 2);
    grid.set(0, 0, { char: 'A', fg: rgb(0xff8000), bg: rgb(0x1e1e1e) });
    const full = diffFrame(grid, grid, cursor, { full: true });
    expect(full).toContain('38;2;255;128;0');
    const at256 = diffFrame(grid, grid, cursor, { full: true, colors: 256 });
    expect(at256).toContain('38;5;208');
    expect(at256).toContain('48;5;234');
    expect(at256).not.toContain(';2;');
    const at16 = diffFrame(grid, grid, cursor, { full: true, colors: 16 });
    expect(at16).not.toMatch(/[34]8;[25];/);
    // Orange is nearest xterm's yellow (cdcd00), the near-black grey is black.
    expect(at16).toContain('\x1b[33;40mA');
  });

  it('shows any screen with each colour mapped, the pen tracked right across colours that map alike', async () => {
    const colour = fc.oneof(
      fc.constant(COLOR_MODE.default),
      fc.integer({ min: 0, max: 15 }).map(paletteColor),
      fc.integer({ min: 0, max: 255 }).map(palette256Color),
      // Few distinct values per channel, so neighbouring cells often map to the same entry.
      fc.tuple(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 4 })).map(([r, g, b]) => rgbColor(r * 60, g * 60, b * 60)),
    );
    const cell = fc.record({ char: fc.constantFrom('a', 'b', ' ', 'x'), fg: colour, bg: colour });
    await fc.assert(
      fc.asyncProperty(fc.array(cell, { minLength: 24, maxLength: 24 }), fc.constantFrom(16 as const, 256 as const), async (cells, depth) => {
        const grid = new CellGrid(8, 3);
        cells.forEach((c, i) => grid.set(i % 8, Math.floor(i / 8), c));
        const p = new TerminalProbe(8, 3);
        probes.push(p);
        await p.write(diffFrame(new CellGrid(8, 3), grid, cursor, { full: true, colors: depth }));
        const map = colorMapperFor(depth)!;
        const seen = p.grid();
        for (let i = 0; i < cells.length; i++) {
          const x = i % 8;
          const y = Math.floor(i / 8);
          const got = seen.get(x, y);
          // The probe reads 38;5;n below 16 back as a 16-colour entry: compare the palette index.
          const index = (c: number) => ((c & COLOR_MODE.mask) === COLOR_MODE.default ? -1 : c & COLOR_MODE.valueMask);
          expect({ x, y, fg: index(got.fg), bg: index(got.bg) }).toEqual({ x, y, fg: index(map(cells[i]!.fg)), bg: index(map(cells[i]!.bg)) });
          if (depth === 16) expect((got.fg & COLOR_MODE.mask) === COLOR_MODE.p256 || (got.fg & COLOR_MODE.mask) === COLOR_MODE.rgb).toBe(false);
          expect((got.fg & COLOR_MODE.mask) === COLOR_MODE.rgb || (got.bg & COLOR_MODE.mask) === COLOR_MODE.rgb).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });
});
