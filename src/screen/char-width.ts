/**
 * Display width of characters in the UI layer, matching what Ink's string-width measures
 * (East Asian Wide/Fullwidth and emoji presentation are 2, marks and format chars 0,
 * ambiguous-width characters 1), per code point. How code points group into clusters, and a
 * cluster's width, is `graphemes.ts`, shared by the chrome and the pane terminals.
 */

// East Asian Wide and Fullwidth blocks (Unicode 15) outside the emoji-presentation set.
const WIDE_RANGES: readonly (readonly [number, number])[] = [
  [0x1100, 0x115f], [0x2329, 0x232a], [0x2e80, 0x303e], [0x3041, 0x33ff],
  [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf], [0xa960, 0xa97f],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f],
  [0xff00, 0xff60], [0xffe0, 0xffe6], [0x16fe0, 0x16fe4], [0x17000, 0x18cff],
  [0x1aff0, 0x1b2ff], [0x1f200, 0x1f2ff], [0x20000, 0x2fffd], [0x30000, 0x3fffd],
];

const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]$/u;
const EMOJI_PRESENTATION = /^\p{Emoji_Presentation}$/u;


/** Width of one code point in a monospace terminal: 0, 1 or 2. */
export function codePointWidth(cp: number): 0 | 1 | 2 {
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  for (const [lo, hi] of WIDE_RANGES) {
    if (cp < lo) break;
    if (cp <= hi) return 2;
  }
  const s = String.fromCodePoint(cp);
  if (cp >= 0x1f000 && EMOJI_PRESENTATION.test(s)) return 2;
  if (cp >= 0x2300 && cp < 0x2c00 && EMOJI_PRESENTATION.test(s)) return 2;
  if (ZERO_WIDTH.test(s)) return 0;
  return 1;
}

/**
 * Whether every terminal agrees on this character's width, so the writer may keep
 * writing after it without re-anchoring the cursor. Emoji and CJK widths differ between
 * terminals and Unicode versions (xterm.js' default tables make most emoji 1 wide).
 */
export function hasStableWidth(code: number): boolean {
  return code < 0x1100 || (code >= 0x2500 && code <= 0x259f) || (code >= 0x2010 && code <= 0x2027);
}
