/**
 * One grapheme-cluster and cell-width rule for everything corral draws: pane terminals
 * (through `unicode-provider.ts`, xterm's per-code-point `charProperties` hook) and the
 * chrome / overlays (`forEachCluster`, used by the ANSI parser and the views). Because both
 * fold the same step function over the same code points, a string takes the same cells in
 * a pane and in the chrome — a property test checks it against a real xterm.
 *
 * The rule is UAX #29's extended grapheme clusters, cut down to what a terminal draws:
 * - a zero-width character (marks, ZWJ, variation selectors, format characters) joins the
 *   cluster before it; alone at the start of a run it takes one cell, as terminals draw it;
 * - spacing marks and emoji modifiers join the cluster before them;
 * - an emoji ZWJ sequence is one cluster (GB11), two regional indicators make one flag (GB12/13),
 *   Hangul jamo L V T compose into one syllable (GB6–8);
 * - a cluster is as wide as its widest member (so 2 for any emoji or CJK in it), at most 2;
 *   VS16 widens a pictographic base to 2.
 * Prepend characters and Indic conjunct rules (GB9b, GB9c) are left out: each is a zero-width
 * or one-cell character here, which is how most terminals draw them.
 */
import { codePointWidth } from './char-width.js';

/** Break classes, packed into the state so the next code point can see what came before. */
const KIND = {
  other: 0,
  /** A cluster whose base is an Extended_Pictographic (plus extends): VS16 widens it, ZWJ may follow. */
  pictographic: 1,
  /** Pictographic … ZWJ: the next pictograph joins (GB11). */
  pictographicZwj: 2,
  /** One regional indicator waiting for its pair. */
  regionalOdd: 3,
  hangulL: 4,
  /** Hangul V, or an LV syllable: V or T may follow. */
  hangulV: 5,
  /** Hangul T, or an LVT syllable: T may follow. */
  hangulT: 6,
} as const;

/** Classes of a code point as the step function sees them. */
const CLASS = {
  other: 0,
  /** Zero width: marks, format characters, variation selectors other than VS16. */
  extend: 1,
  zwj: 2,
  vs16: 3,
  /** Spacing marks and emoji modifiers: join, add no width. */
  spacingMark: 4,
  pictographic: 5,
  regional: 6,
  hangulL: 7,
  hangulV: 8,
  hangulT: 9,
  hangulLV: 10,
  hangulLVT: 11,
} as const;
type Class = (typeof CLASS)[keyof typeof CLASS];

const CP = {
  zwj: 0x200d,
  vs16: 0xfe0f,
  modifierFirst: 0x1f3fb,
  modifierLast: 0x1f3ff,
  regionalFirst: 0x1f1e6,
  regionalLast: 0x1f1ff,
  hangulSyllableFirst: 0xac00,
  hangulSyllableLast: 0xd7a3,
  /** Syllables per leading consonant block: an LV syllable is a multiple of this from the first. */
  hangulTCount: 28,
} as const;

const GRAPHEME_EXTEND = /^\p{Grapheme_Extend}$/u;
const SPACING_MARK = /^\p{Mc}$/u;
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;

function classify(cp: number): Class {
  if (cp === CP.zwj) return CLASS.zwj;
  if (cp === CP.vs16) return CLASS.vs16;
  if ((cp >= 0x1100 && cp <= 0x115f) || (cp >= 0xa960 && cp <= 0xa97c)) return CLASS.hangulL;
  if ((cp >= 0x1160 && cp <= 0x11a7) || (cp >= 0xd7b0 && cp <= 0xd7c6)) return CLASS.hangulV;
  if ((cp >= 0x11a8 && cp <= 0x11ff) || (cp >= 0xd7cb && cp <= 0xd7fb)) return CLASS.hangulT;
  if (cp >= CP.hangulSyllableFirst && cp <= CP.hangulSyllableLast) {
    return (cp - CP.hangulSyllableFirst) % CP.hangulTCount === 0 ? CLASS.hangulLV : CLASS.hangulLVT;
  }
  if (cp >= CP.regionalFirst && cp <= CP.regionalLast) return CLASS.regional;
  if (cp >= CP.modifierFirst && cp <= CP.modifierLast) return CLASS.spacingMark;
  const s = String.fromCodePoint(cp);
  if (GRAPHEME_EXTEND.test(s) || codePointWidth(cp) === 0) return CLASS.extend;
  if (SPACING_MARK.test(s)) return CLASS.spacingMark;
  if (PICTOGRAPHIC.test(s)) return CLASS.pictographic;
  return CLASS.other;
}

/** BMP lookups are cached: class << 2 | width, plus 0x80 for "known" (0 = not computed yet). */
const bmpCache = new Uint8Array(0x10000);
const KNOWN = 0x80;

/** Class and own width (0–2) of a code point, cached for the BMP. */
function lookup(cp: number): number {
  if (cp < 0x10000) {
    const cached = bmpCache[cp]!;
    if (cached !== 0) return cached & ~KNOWN;
  }
  const cls = classify(cp);
  const width = cls === CLASS.extend || cls === CLASS.zwj || cls === CLASS.vs16 ? 0 : codePointWidth(cp);
  const packed = (cls << 2) | width;
  if (cp < 0x10000) bmpCache[cp] = packed | KNOWN;
  return packed;
}

/**
 * xterm's packing of a character's properties: (kind << 3) | (width << 1) | joinsPrevious.
 * Width and join are read by xterm; the kind is ours, handed back as `preceding`.
 */
function pack(kind: number, width: number, join: boolean): number {
  return (kind << 3) | ((width & 3) << 1) | (join ? 1 : 0);
}

/** Width recorded in packed properties. */
export function propsWidth(props: number): number {
  return (props >> 1) & 3;
}

/** Whether packed properties say "joins the cluster before". */
export function propsJoin(props: number): boolean {
  return (props & 1) === 1;
}

/** A narrow ASCII character: the common case, answered without any lookup. */
const ASCII_PROPS = pack(KIND.other, 1, false);

/**
 * The step function: properties of `cp` given the properties of the code point before it in
 * the same run (`preceding`, 0 at the start of a run). Returned width is the whole cluster's
 * width when the code point joins.
 */
export function charProperties(cp: number, preceding: number): number {
  if (cp < 0x300) return cp >= 0x20 && (cp < 0x7f || cp >= 0xa0) ? ASCII_PROPS : pack(KIND.other, 1, false);
  // Not a code point (a decoder never yields one, but pane output must never make this throw).
  if (cp > 0x10ffff) return ASCII_PROPS;
  const info = lookup(cp);
  const cls = (info >> 2) as Class;
  const own = info & 3;
  if (preceding !== 0) {
    const kind = preceding >> 3;
    const width = propsWidth(preceding);
    switch (cls) {
      case CLASS.extend:
        return pack(kind === KIND.pictographic ? KIND.pictographic : KIND.other, width, true);
      case CLASS.zwj:
        return pack(kind === KIND.pictographic ? KIND.pictographicZwj : KIND.other, width, true);
      case CLASS.vs16:
        return pack(kind, kind === KIND.pictographic ? 2 : width, true);
      case CLASS.spacingMark:
        return pack(kind === KIND.pictographic ? KIND.pictographic : KIND.other, width, true);
      case CLASS.pictographic:
        if (kind === KIND.pictographicZwj) return pack(KIND.pictographic, Math.max(width, own), true);
        break;
      case CLASS.regional:
        if (kind === KIND.regionalOdd) return pack(KIND.other, Math.max(width, own), true);
        break;
      case CLASS.hangulL:
        if (kind === KIND.hangulL) return pack(KIND.hangulL, Math.max(width, own), true);
        break;
      case CLASS.hangulV:
        if (kind === KIND.hangulL || kind === KIND.hangulV) return pack(KIND.hangulV, Math.max(width, own), true);
        break;
      case CLASS.hangulT:
        if (kind === KIND.hangulV || kind === KIND.hangulT) return pack(KIND.hangulT, Math.max(width, own), true);
        break;
      case CLASS.hangulLV:
      case CLASS.hangulLVT:
        if (kind === KIND.hangulL) return pack(cls === CLASS.hangulLV ? KIND.hangulV : KIND.hangulT, Math.max(width, own), true);
        break;
      default:
        break;
    }
  }
  // A new cluster. A zero-width character with nothing to join takes a cell of its own.
  let kind: number = KIND.other;
  if (cls === CLASS.pictographic) kind = KIND.pictographic;
  else if (cls === CLASS.regional) kind = KIND.regionalOdd;
  else if (cls === CLASS.hangulL) kind = KIND.hangulL;
  else if (cls === CLASS.hangulV || cls === CLASS.hangulLV) kind = KIND.hangulV;
  else if (cls === CLASS.hangulT || cls === CLASS.hangulLVT) kind = KIND.hangulT;
  return pack(kind, own === 0 ? 1 : own, false);
}

/** C0 and C1 controls and DEL: terminals execute them, they never take a cell. */
function isControl(cp: number): boolean {
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/**
 * Calls `fn` with each cluster of `text` and its cell width, in order. Control characters
 * are skipped and end the cluster before them (as a terminal's parser does).
 */
export function forEachCluster(text: string, fn: (cluster: string, width: number) => void): void {
  let state = 0;
  let start = -1;
  let width = 0;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i)!;
    const size = cp > 0xffff ? 2 : 1;
    if (isControl(cp)) {
      if (start >= 0) fn(text.slice(start, i), width);
      start = -1;
      state = 0;
      i += size;
      continue;
    }
    const props = charProperties(cp, state);
    if (propsJoin(props) && start >= 0) {
      width = propsWidth(props);
    } else {
      if (start >= 0) fn(text.slice(start, i), width);
      start = i;
      width = propsWidth(props);
    }
    state = props;
    i += size;
  }
  if (start >= 0) fn(text.slice(start), width);
}

/** Width of one cluster (a string `forEachCluster` yields; the widest if it holds several). */
export function clusterWidth(cluster: string): 0 | 1 | 2 {
  let widest = 0;
  forEachCluster(cluster, (_s, w) => {
    if (w > widest) widest = w;
  });
  return widest as 0 | 1 | 2;
}

/** The clusters of `text` with their widths. */
export function clustersOf(text: string): { s: string; w: number }[] {
  const out: { s: string; w: number }[] = [];
  forEachCluster(text, (s, w) => out.push({ s, w }));
  return out;
}

/** Cells `text` takes on one line (controls take none). */
export function textWidth(text: string): number {
  let total = 0;
  forEachCluster(text, (_s, w) => {
    total += w;
  });
  return total;
}

/**
 * Text where a cluster may span several UTF-16 units or a character may join the one before
 * (marks, joiners, selectors, Hangul jamo, halfwidth sound marks, surrogates). Anything else
 * is one cluster per unit, measured by `codePointWidth` alone — the fast path.
 */
export const NEEDS_CLUSTERING = /[\p{M}\p{Cf}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\uff9e\uff9f\ufe00-\ufe0f\u{10000}-\u{10ffff}\ud800-\udfff]/u;
