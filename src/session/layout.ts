/**
 * A tab's pane layout: a binary split tree (SPEC §2), plus the geometry derived from it.
 * Every function is pure and returns a new tree; unchanged subtrees are shared.
 *
 * `ratio` is always the share of the split's FIRST child — the left pane of a `right` split,
 * the top pane of a `down` split. Splitting a pane keeps it first: the new pane goes to
 * its right or below it.
 */
import { CorralError, type SplitDirection } from '../contract/protocol.js';
import type { Rect } from '../contract/rect.js';

export type LayoutNode =
  | { kind: 'leaf'; paneId: string }
  | { kind: 'split'; direction: SplitDirection; ratio: number; first: LayoutNode; second: LayoutNode };

export type LeafNode = Extract<LayoutNode, { kind: 'leaf' }>;
export type SplitNode = Extract<LayoutNode, { kind: 'split' }>;

export type NavDirection = 'left' | 'right' | 'up' | 'down';
export type PresetKind = 'even_h' | 'even_v' | 'main_vertical' | 'tiled';
export const PRESET_KINDS: readonly PresetKind[] = ['even_h', 'even_v', 'main_vertical', 'tiled'];

export interface GeometryOptions {
  /** Smallest size a pane gets on either axis when the area allows; default 1 cell. */
  minSize?: number;
}

const LAYOUT_DEFAULTS = {
  /** A pane needs one cell to exist at all; the UI may ask for more (room for a border). */
  minSize: 1,
  /** An even split; what tmux does without `-l`/`-p`. */
  ratio: 0.5,
  /** main_vertical gives the main pane half the width, like tmux's default main-pane-width of 50%. */
  mainRatio: 0.5,
} as const;

function notFound(paneId: string): CorralError {
  return new CorralError('pane_not_found', `pane ${paneId} is not in this layout`, { pane_id: paneId });
}

function checkRatio(ratio: number): void {
  if (!Number.isFinite(ratio) || ratio <= 0 || ratio >= 1) {
    throw new CorralError('invalid_params', `split ratio must be between 0 and 1 (exclusive), got ${ratio}`, { ratio });
  }
}

/** A single-pane layout. */
export function leaf(paneId: string): LeafNode {
  return { kind: 'leaf', paneId };
}

/** A split node; `ratio` is the first child's share. */
export function split(direction: SplitDirection, ratio: number, first: LayoutNode, second: LayoutNode): SplitNode {
  checkRatio(ratio);
  return { kind: 'split', direction, ratio, first, second };
}

/** Pane ids in reading order (first before second: left before right, top before bottom). */
export function leaves(tree: LayoutNode): string[] {
  const out: string[] = [];
  const walk = (node: LayoutNode): void => {
    if (node.kind === 'leaf') out.push(node.paneId);
    else {
      walk(node.first);
      walk(node.second);
    }
  };
  walk(tree);
  return out;
}

/** Whether the layout holds `paneId`. */
export function contains(tree: LayoutNode, paneId: string): boolean {
  if (tree.kind === 'leaf') return tree.paneId === paneId;
  return contains(tree.first, paneId) || contains(tree.second, paneId);
}

/** Rebuilds the tree with `fn` applied to every leaf; subtrees without changes are shared. */
function mapLeaves(tree: LayoutNode, fn: (node: LeafNode) => LayoutNode): LayoutNode {
  if (tree.kind === 'leaf') return fn(tree);
  const first = mapLeaves(tree.first, fn);
  const second = mapLeaves(tree.second, fn);
  return first === tree.first && second === tree.second ? tree : { ...tree, first, second };
}

/**
 * Splits pane `targetId`: the new pane goes right of it (`right`) or below it (`down`).
 * `ratio` is the share the existing pane keeps.
 */
export function splitLeaf(
  tree: LayoutNode,
  targetId: string,
  newId: string,
  direction: SplitDirection,
  ratio: number = LAYOUT_DEFAULTS.ratio,
): LayoutNode {
  checkRatio(ratio);
  if (!contains(tree, targetId)) throw notFound(targetId);
  if (contains(tree, newId)) {
    throw new CorralError('invalid_params', `pane ${newId} is already in this layout`, { pane_id: newId });
  }
  return mapLeaves(tree, (node) => (node.paneId === targetId ? split(direction, ratio, node, leaf(newId)) : node));
}

/** Removes a pane; its sibling takes the parent split's place. Null when the last pane goes. */
export function removeLeaf(tree: LayoutNode, paneId: string): LayoutNode | null {
  if (!contains(tree, paneId)) throw notFound(paneId);
  const walk = (node: LayoutNode): LayoutNode | null => {
    if (node.kind === 'leaf') return node.paneId === paneId ? null : node;
    if (!contains(node, paneId)) return node;
    const first = walk(node.first);
    const second = walk(node.second);
    if (first === null) return second;
    if (second === null) return first;
    return { ...node, first, second };
  };
  return walk(tree);
}

/** Puts pane `newId` where `oldId` was (e.g. a pane moved in or re-identified). */
export function replaceLeaf(tree: LayoutNode, oldId: string, newId: string): LayoutNode {
  if (!contains(tree, oldId)) throw notFound(oldId);
  if (oldId === newId) return tree;
  if (contains(tree, newId)) {
    throw new CorralError('invalid_params', `pane ${newId} is already in this layout`, { pane_id: newId });
  }
  return mapLeaves(tree, (node) => (node.paneId === oldId ? leaf(newId) : node));
}

/** Exchanges the positions of panes `a` and `b`. */
export function swapLeaves(tree: LayoutNode, a: string, b: string): LayoutNode {
  if (!contains(tree, a)) throw notFound(a);
  if (!contains(tree, b)) throw notFound(b);
  if (a === b) return tree;
  return mapLeaves(tree, (node) => (node.paneId === a ? leaf(b) : node.paneId === b ? leaf(a) : node));
}

// ---------------------------------------------------------------------------
// Geometry

/** The smallest area in which every pane gets at least `minSize` cells on both axes. */
export function minimumSize(tree: LayoutNode, opts: GeometryOptions = {}): { cols: number; rows: number } {
  const min = normaliseMinSize(opts.minSize);
  const walk = (node: LayoutNode): { cols: number; rows: number } => {
    if (node.kind === 'leaf') return { cols: min, rows: min };
    const a = walk(node.first);
    const b = walk(node.second);
    return node.direction === 'right'
      ? { cols: a.cols + b.cols, rows: Math.max(a.rows, b.rows) }
      : { cols: Math.max(a.cols, b.cols), rows: a.rows + b.rows };
  };
  return walk(tree);
}

function normaliseMinSize(minSize: number | undefined): number {
  return Math.max(1, Math.floor(minSize ?? LAYOUT_DEFAULTS.minSize));
}

function clamp(v: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, v));
}

/** Cells the first child gets out of `total`, honouring both children's minimums when they fit. */
function firstShare(total: number, ratio: number, minFirst: number, minSecond: number): number {
  if (total <= 0) return 0;
  if (minFirst + minSecond <= total) return clamp(Math.round(total * ratio), minFirst, total - minSecond);
  // Too small for both: shrink them in proportion to what each needs.
  return Math.round((total * minFirst) / (minFirst + minSecond));
}

/**
 * Each pane's rectangle inside `area`. Children tile their parent exactly (no gaps, no
 * overlap); every pane gets at least `minSize`×`minSize` when `area` is at least
 * minimumSize(tree), and panes may collapse to 0 cells when it is not.
 */
export function computeRects(tree: LayoutNode, area: Rect, opts: GeometryOptions = {}): Map<string, Rect> {
  const min = normaliseMinSize(opts.minSize);
  const sizes = new Map<LayoutNode, { cols: number; rows: number }>();
  const minOf = (node: LayoutNode): { cols: number; rows: number } => {
    let size = sizes.get(node);
    if (size === undefined) {
      size = minimumSize(node, { minSize: min });
      sizes.set(node, size);
    }
    return size;
  };
  const out = new Map<string, Rect>();
  const walk = (node: LayoutNode, r: Rect): void => {
    if (node.kind === 'leaf') {
      out.set(node.paneId, r);
      return;
    }
    const a = minOf(node.first);
    const b = minOf(node.second);
    if (node.direction === 'right') {
      const cols = firstShare(r.cols, node.ratio, a.cols, b.cols);
      walk(node.first, { x: r.x, y: r.y, cols, rows: r.rows });
      walk(node.second, { x: r.x + cols, y: r.y, cols: r.cols - cols, rows: r.rows });
    } else {
      const rows = firstShare(r.rows, node.ratio, a.rows, b.rows);
      walk(node.first, { x: r.x, y: r.y, cols: r.cols, rows });
      walk(node.second, { x: r.x, y: r.y + rows, cols: r.cols, rows: r.rows - rows });
    }
  };
  const whole = (n: number): number => Math.max(0, Math.floor(n));
  walk(tree, { x: Math.floor(area.x), y: Math.floor(area.y), cols: whole(area.cols), rows: whole(area.rows) });
  return out;
}

/** Length of the overlap of [a, a+al) and [b, b+bl). */
function overlap(a: number, al: number, b: number, bl: number): number {
  return Math.max(0, Math.min(a + al, b + bl) - Math.max(a, b));
}

/**
 * The pane next to `fromId` in direction `dir`, like tmux's select-pane -L/-R/-U/-D without
 * wrap-around: the closest pane beyond that edge sharing some of its span, preferring the
 * one overlapping most, then the one starting nearest the source's top (or left). Null at
 * the edge of the tab.
 */
export function neighbor(rects: ReadonlyMap<string, Rect>, fromId: string, dir: NavDirection): string | null {
  const from = rects.get(fromId);
  if (!from) return null;
  const horizontal = dir === 'left' || dir === 'right';
  let best: { id: string; gap: number; shared: number; offset: number; start: number } | null = null;
  for (const [id, r] of rects) {
    if (id === fromId || r.cols <= 0 || r.rows <= 0) continue;
    const gap =
      dir === 'right' ? r.x - (from.x + from.cols)
      : dir === 'left' ? from.x - (r.x + r.cols)
      : dir === 'down' ? r.y - (from.y + from.rows)
      : from.y - (r.y + r.rows);
    if (gap < 0) continue;
    const shared = horizontal ? overlap(from.y, from.rows, r.y, r.rows) : overlap(from.x, from.cols, r.x, r.cols);
    if (shared <= 0) continue;
    const start = horizontal ? r.y : r.x;
    const offset = Math.abs(start - (horizontal ? from.y : from.x));
    const better =
      best === null ||
      gap < best.gap ||
      (gap === best.gap &&
        (shared > best.shared ||
          (shared === best.shared && (offset < best.offset || (offset === best.offset && start < best.start)))));
    if (better) best = { id, gap, shared, offset, start };
  }
  return best?.id ?? null;
}

/** The bounding box of the rects of `node`'s panes; null if any is missing. */
export function boundsOf(node: LayoutNode, rects: ReadonlyMap<string, Rect>): Rect | null {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const id of leaves(node)) {
    const r = rects.get(id);
    if (!r) return null;
    x0 = Math.min(x0, r.x);
    y0 = Math.min(y0, r.y);
    x1 = Math.max(x1, r.x + r.cols);
    y1 = Math.max(y1, r.y + r.rows);
  }
  return { x: x0, y: y0, cols: x1 - x0, rows: y1 - y0 };
}

/** The splits from the root down to pane `paneId`, nearest last. */
function ancestors(tree: LayoutNode, paneId: string): SplitNode[] {
  const path: SplitNode[] = [];
  let node = tree;
  while (node.kind === 'split') {
    path.push(node);
    node = contains(node.first, paneId) ? node.first : node.second;
  }
  return path;
}

/** `tree` with the node `target` (by identity) replaced. */
function replaceNode(tree: LayoutNode, target: LayoutNode, replacement: LayoutNode): LayoutNode {
  if (tree === target) return replacement;
  if (tree.kind === 'leaf') return tree;
  const first = replaceNode(tree.first, target, replacement);
  const second = replaceNode(tree.second, target, replacement);
  return first === tree.first && second === tree.second ? tree : { ...tree, first, second };
}

/**
 * Moves a border of pane `paneId` by `cells` in direction `dir`, like tmux's resize-pane
 * -L/-R/-U/-D: the border is that of the nearest enclosing split on `dir`'s axis — the
 * pane's right/bottom edge when the pane is in the split's first half, its left/top edge
 * when in the second — and it moves towards `dir` (so `right` grows a left pane and shrinks
 * a right one). Clamped so no pane drops below `minSize`; `rects` are the current
 * computeRects() of `tree`. Returns `tree` itself when nothing can move.
 */
export function resizeLeaf(
  tree: LayoutNode,
  rects: ReadonlyMap<string, Rect>,
  paneId: string,
  dir: NavDirection,
  cells: number,
  opts: GeometryOptions = {},
): LayoutNode {
  if (!contains(tree, paneId)) throw notFound(paneId);
  if (!Number.isInteger(cells)) {
    throw new CorralError('invalid_params', `resize amount must be a whole number of cells, got ${cells}`, { cells });
  }
  const axis: SplitDirection = dir === 'left' || dir === 'right' ? 'right' : 'down';
  const parent = ancestors(tree, paneId).reverse().find((s) => s.direction === axis);
  if (!parent) return tree;
  const whole = boundsOf(parent, rects);
  const firstBox = boundsOf(parent.first, rects);
  if (!whole || !firstBox) throw notFound(leaves(parent).find((id) => !rects.has(id)) ?? paneId);
  const total = axis === 'right' ? whole.cols : whole.rows;
  const current = axis === 'right' ? firstBox.cols : firstBox.rows;
  const minFirst = minimumSize(parent.first, opts)[axis === 'right' ? 'cols' : 'rows'];
  const minSecond = minimumSize(parent.second, opts)[axis === 'right' ? 'cols' : 'rows'];
  if (total < minFirst + minSecond) return tree;
  const delta = dir === 'right' || dir === 'down' ? cells : -cells;
  const next = clamp(current + delta, minFirst, total - minSecond);
  if (next === current) return tree;
  return replaceNode(tree, parent, { ...parent, ratio: next / total });
}

// ---------------------------------------------------------------------------
// Presets (for `up` files, SPEC §10)

/** Chains `nodes` along `direction` with ratios 1/n, 1/(n-1), … so all get equal shares. */
function evenChain(nodes: LayoutNode[], direction: SplitDirection): LayoutNode {
  if (nodes.length === 1) return nodes[0];
  return split(direction, 1 / nodes.length, nodes[0], evenChain(nodes.slice(1), direction));
}

/** Grid shape for `n` panes: columns first (cells are twice as tall as wide, screens are wide). */
export function tiledShape(n: number): { cols: number; rows: number } {
  const cols = Math.ceil(Math.sqrt(n));
  return { cols, rows: Math.ceil(n / cols) };
}

/**
 * A layout of `ids` in reading order: `even_h` side by side, `even_v` stacked, `main_vertical`
 * the first pane on the left half and the rest stacked on the right, `tiled` a grid filled
 * row by row (a short last row gets wider panes).
 */
export function presetLayout(ids: readonly string[], kind: PresetKind): LayoutNode {
  if (ids.length === 0) throw new CorralError('invalid_params', 'a layout needs at least one pane');
  if (new Set(ids).size !== ids.length) {
    throw new CorralError('invalid_params', 'pane ids in a layout must be distinct', { ids: [...ids] });
  }
  const nodes = ids.map(leaf);
  switch (kind) {
    case 'even_h':
      return evenChain(nodes, 'right');
    case 'even_v':
      return evenChain(nodes, 'down');
    case 'main_vertical':
      return nodes.length === 1
        ? nodes[0]
        : split('right', LAYOUT_DEFAULTS.mainRatio, nodes[0], evenChain(nodes.slice(1), 'down'));
    case 'tiled': {
      const { cols } = tiledShape(nodes.length);
      const rows: LayoutNode[] = [];
      for (let i = 0; i < nodes.length; i += cols) rows.push(evenChain(nodes.slice(i, i + cols), 'right'));
      return evenChain(rows, 'down');
    }
    default:
      throw new CorralError('invalid_params', `unknown layout "${String(kind)}"`, { layout: kind });
  }
}
