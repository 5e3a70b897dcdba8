/**
 * Colours for a terminal that shows fewer of them (SPEC §1: the outer terminal belongs to the
 * client). A client whose terminal has no truecolor gets each 24-bit colour as the nearest of
 * the xterm 256-colour palette; a terminal with only 16 colours gets the nearest of those.
 * Pure; each distinct colour is mapped once and remembered (the compositor asks on every
 * change of pen, and a screen holds few distinct colours).
 */
import { COLOR_MODE, palette256Color, paletteColor } from './cell.js';

/** How many colours a terminal shows: 16 (8 + bright), the xterm 256 palette, or 24-bit. */
export type ColorDepth = 16 | 256 | 16777216;

export const TRUECOLOR: ColorDepth = 16777216;

/** xterm's default RGB for the 16 system colours (a terminal's theme may differ: see nearest256). */
const SYSTEM_RGB: readonly number[] = [
  0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
  0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
];

/** The six levels of each axis of the 6×6×6 colour cube (indexes 16–231). */
const CUBE_LEVELS = [0, 95, 135, 175, 215, 255] as const;

/** The RGB (0xRRGGBB) of palette index 0–255 as xterm draws it by default. */
export function paletteRgb(index: number): number {
  if (index < 16) return SYSTEM_RGB[index]!;
  if (index < 232) {
    const i = index - 16;
    return (CUBE_LEVELS[Math.floor(i / 36)]! << 16) | (CUBE_LEVELS[Math.floor(i / 6) % 6]! << 8) | CUBE_LEVELS[i % 6]!;
  }
  const grey = 8 + (index - 232) * 10;
  return (grey << 16) | (grey << 8) | grey;
}

/**
 * Squared "redmean" distance: Euclidean RGB weighted by how the eye weighs red, green and
 * blue at that redness — close to CIE76 for picking a palette entry, at a fraction of the cost.
 */
export function colorDistance(a: number, b: number): number {
  const r1 = (a >> 16) & 0xff;
  const r2 = (b >> 16) & 0xff;
  const rmean = (r1 + r2) >> 1;
  const dr = r1 - r2;
  const dg = ((a >> 8) & 0xff) - ((b >> 8) & 0xff);
  const db = (a & 0xff) - (b & 0xff);
  return (((512 + rmean) * dr * dr) >> 8) + 4 * dg * dg + (((767 - rmean) * db * db) >> 8);
}

function nearestIn(rgb: number, from: number, to: number): number {
  let best = from;
  let bestDistance = Infinity;
  for (let index = from; index < to; index++) {
    const distance = colorDistance(rgb, paletteRgb(index));
    if (distance < bestDistance) {
      best = index;
      bestDistance = distance;
      if (distance === 0) break;
    }
  }
  return best;
}

/**
 * The palette index (16–255) nearest to a 24-bit colour. The 16 system colours are left out,
 * as tmux does: their RGB is whatever the user's theme says, so only the cube and the grey
 * ramp, which every terminal draws alike, give a predictable result.
 */
export function nearest256(rgb: number): number {
  return nearestIn(rgb, 16, 256);
}

/** The system colour index (0–15) nearest to a 24-bit colour, by xterm's default RGB. */
export function nearest16(rgb: number): number {
  return nearestIn(rgb, 0, 16);
}

/** A cell colour (src/screen/cell.ts encoding) as a terminal of `depth` colours can show it. */
export type ColorMapper = (color: number) => number;

/** Mapped colours kept per depth; cleared when a gradient-heavy screen fills it. */
const CACHE_LIMIT = 65_536;

/**
 * `map` remembered per colour, asked only for 24-bit colours and, with `palette256`, for
 * 256-palette ones; every other colour is shown as it is, with no lookup.
 */
function cachedMapper(palette256: boolean, map: (color: number) => number): ColorMapper {
  const cache = new Map<number, number>();
  return (color) => {
    const mode = color & COLOR_MODE.mask;
    if (mode !== COLOR_MODE.rgb && !(palette256 && mode === COLOR_MODE.p256)) return color;
    let mapped = cache.get(color);
    if (mapped === undefined) {
      mapped = map(color);
      if (cache.size >= CACHE_LIMIT) cache.clear();
      cache.set(color, mapped);
    }
    return mapped;
  };
}

// 256 colours: only 24-bit ones change.
const to256 = cachedMapper(false, (color) => palette256Color(nearest256(color & COLOR_MODE.valueMask)));

// 16 colours: 24-bit and 256-palette ones change.
const to16 = cachedMapper(true, (color) => {
  const value = color & COLOR_MODE.valueMask;
  if ((color & COLOR_MODE.mask) === COLOR_MODE.rgb) return paletteColor(nearest16(value));
  // A 256-palette index below 16 is a system colour already; any other is looked up by its RGB.
  return paletteColor(value < 16 ? value : nearest16(paletteRgb(value)));
});

/** The mapper for a terminal of `depth` colours; null when it shows every colour as it is. */
export function colorMapperFor(depth: ColorDepth): ColorMapper | null {
  if (depth === TRUECOLOR) return null;
  return depth === 256 ? to256 : to16;
}
