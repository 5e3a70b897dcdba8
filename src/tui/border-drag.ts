/**
 * Dragging a border between panes with the mouse: which split a press lands on, and the
 * layout with that split's ratio following the pointer. Pure, in the layout's own cells
 * (the main area's origin is 0,0); frames are drawn on the pane rects, so the border
 * between two panes is two cells wide — the first pane's right (or bottom) frame edge and
 * the second's left (or top) — and a press on either grabs it.
 */
import { boundsOf, computeRects, minimumSize, type LayoutNode, type SplitNode } from '../session/layout.js';
import type { Rect } from '../contract/rect.js';
import { GEOMETRY } from '../../components/geometry.js';

/** A border a press landed on: the split (by its path from the root) and its box. */
export interface BorderGrab {
  /** `first`/`second` steps from the root to the split. */
  path: ('first' | 'second')[];
  direction: SplitNode['direction'];
  /** The split's bounding box in layout cells. */
  box: Rect;
  /** Where the press was (x for a `right` split, y for `down`) and the first child's size then. */
  pressedAt: number;
  firstCells: number;
}

/** The smallest frame that still shows a cell of its pane: border, one cell, border. */
const MIN_PANE_CELLS = 2 * GEOMETRY.frameInset + 1;

/** The split whose border is at layout cell (x, y); the outermost when borders meet. */
export function borderAt(tree: LayoutNode, area: Rect, x: number, y: number): BorderGrab | null {
  const rects = computeRects(tree, area);
  const walk = (node: LayoutNode, path: BorderGrab['path']): BorderGrab | null => {
    if (node.kind === 'leaf') return null;
    const box = boundsOf(node, rects);
    const first = boundsOf(node.first, rects);
    if (!box || !first) return null;
    if (node.direction === 'right') {
      const edge = first.x + first.cols;
      if ((x === edge - 1 || x === edge) && y >= box.y && y < box.y + box.rows) {
        return { path, direction: node.direction, box, pressedAt: x, firstCells: first.cols };
      }
    } else {
      const edge = first.y + first.rows;
      if ((y === edge - 1 || y === edge) && x >= box.x && x < box.x + box.cols) {
        return { path, direction: node.direction, box, pressedAt: y, firstCells: first.rows };
      }
    }
    return walk(node.first, [...path, 'first']) ?? walk(node.second, [...path, 'second']);
  };
  return walk(tree, []);
}

/**
 * The layout with the grabbed split's border following the pointer, now at layout cell
 * (x, y): it moves by as many cells as the pointer moved since the press, clamped so every
 * pane keeps a visible cell. Returns `tree` itself when nothing changes.
 */
export function dragBorder(tree: LayoutNode, grab: BorderGrab, x: number, y: number): LayoutNode {
  const node = nodeAt(tree, grab.path);
  if (!node || node.kind !== 'split' || node.direction !== grab.direction) return tree;
  const horizontal = grab.direction === 'right';
  const total = horizontal ? grab.box.cols : grab.box.rows;
  const axis = horizontal ? 'cols' : 'rows';
  const minFirst = minimumSize(node.first, { minSize: MIN_PANE_CELLS })[axis];
  const minSecond = minimumSize(node.second, { minSize: MIN_PANE_CELLS })[axis];
  if (total < minFirst + minSecond) return tree;
  const wanted = grab.firstCells + (horizontal ? x : y) - grab.pressedAt;
  const firstCells = Math.min(total - minSecond, Math.max(minFirst, wanted));
  const ratio = firstCells / total;
  if (Math.round(node.ratio * total) === firstCells) return tree;
  return replaceAt(tree, grab.path, { ...node, ratio });
}

function nodeAt(tree: LayoutNode, path: readonly ('first' | 'second')[]): LayoutNode | null {
  let node: LayoutNode = tree;
  for (const step of path) {
    if (node.kind !== 'split') return null;
    node = node[step];
  }
  return node;
}

function replaceAt(tree: LayoutNode, path: readonly ('first' | 'second')[], replacement: LayoutNode): LayoutNode {
  if (path.length === 0) return replacement;
  if (tree.kind !== 'split') return tree;
  const [step, ...rest] = path;
  return { ...tree, [step!]: replaceAt(tree[step!], rest, replacement) };
}
