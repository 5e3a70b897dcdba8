import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  computeRects,
  contains,
  leaf,
  leaves,
  minimumSize,
  neighbor,
  presetLayout,
  removeLeaf,
  replaceLeaf,
  resizeLeaf,
  split,
  splitLeaf,
  swapLeaves,
  tiledShape,
  type LayoutNode,
} from '../../src/session/layout.js';
import type { Rect } from '../../src/contract/rect.js';
import { CorralError } from '../../src/contract/protocol.js';

const AREA: Rect = { x: 0, y: 0, cols: 100, rows: 40 };

/** Random trees with distinct pane ids p0, p1, … */
const treeArb: fc.Arbitrary<LayoutNode> = fc
  .letrec<{ node: LayoutNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant<LayoutNode>(leaf('?')),
      fc.record({
        kind: fc.constant('split' as const),
        direction: fc.constantFrom('right' as const, 'down' as const),
        ratio: fc.double({ min: 0.01, max: 0.99, noNaN: true }),
        first: tie('node'),
        second: tie('node'),
      }),
    ),
  }))
  .node.map((tree) => {
    let n = 0;
    const number = (node: LayoutNode): LayoutNode =>
      node.kind === 'leaf' ? leaf(`p${n++}`) : { ...node, first: number(node.first), second: number(node.second) };
    return number(tree);
  });

const areaArb = fc.record({
  x: fc.integer({ min: 0, max: 20 }),
  y: fc.integer({ min: 0, max: 10 }),
  cols: fc.integer({ min: 0, max: 120 }),
  rows: fc.integer({ min: 0, max: 50 }),
});

function checkTiling(tree: LayoutNode, area: Rect, rects: Map<string, Rect>): void {
  expect([...rects.keys()].sort()).toEqual(leaves(tree).sort());
  const covered = new Uint8Array(area.cols * area.rows);
  let sum = 0;
  for (const r of rects.values()) {
    expect(Number.isInteger(r.x) && Number.isInteger(r.y) && Number.isInteger(r.cols) && Number.isInteger(r.rows)).toBe(true);
    expect(r.cols).toBeGreaterThanOrEqual(0);
    expect(r.rows).toBeGreaterThanOrEqual(0);
    expect(r.x).toBeGreaterThanOrEqual(area.x);
    expect(r.y).toBeGreaterThanOrEqual(area.y);
    expect(r.x + r.cols).toBeLessThanOrEqual(area.x + area.cols);
    expect(r.y + r.rows).toBeLessThanOrEqual(area.y + area.rows);
    sum += r.cols * r.rows;
    for (let y = r.y; y < r.y + r.rows; y++) {
      for (let x = r.x; x < r.x + r.cols; x++) {
        const i = (y - area.y) * area.cols + (x - area.x);
        // A plain check: expect() per cell makes the property runs crawl.
        if (covered[i] !== 0) throw new Error(`cell ${x},${y} covered twice`);
        covered[i] = 1;
      }
    }
  }
  expect(sum).toBe(area.cols * area.rows); // no gaps
}

describe('tree edits', () => {
  it('splitLeaf puts the new pane right of / below the target with the ratio as the target share', () => {
    const t = splitLeaf(leaf('a'), 'a', 'b', 'right', 0.7);
    expect(t).toEqual({ kind: 'split', direction: 'right', ratio: 0.7, first: leaf('a'), second: leaf('b') });
    const t2 = splitLeaf(t, 'b', 'c', 'down');
    expect(leaves(t2)).toEqual(['a', 'b', 'c']);
    const rects = computeRects(t2, AREA);
    expect(rects.get('a')).toEqual({ x: 0, y: 0, cols: 70, rows: 40 });
    expect(rects.get('b')).toEqual({ x: 70, y: 0, cols: 30, rows: 20 });
    expect(rects.get('c')).toEqual({ x: 70, y: 20, cols: 30, rows: 20 });
  });

  it('does not mutate its input and shares untouched subtrees', () => {
    const t = splitLeaf(splitLeaf(leaf('a'), 'a', 'b', 'right'), 'a', 'c', 'down');
    const snapshot = JSON.stringify(t);
    const t2 = splitLeaf(t, 'b', 'd', 'down');
    expect(JSON.stringify(t)).toBe(snapshot);
    expect(t2.kind === 'split' && t.kind === 'split' && t2.first === t.first).toBe(true);
  });

  it('rejects bad targets, duplicate ids and bad ratios', () => {
    expect(() => splitLeaf(leaf('a'), 'x', 'b', 'right')).toThrow(CorralError);
    expect(() => splitLeaf(leaf('a'), 'a', 'a', 'right')).toThrow(/already/);
    expect(() => splitLeaf(leaf('a'), 'a', 'b', 'right', 1)).toThrow(/ratio/);
    expect(() => splitLeaf(leaf('a'), 'a', 'b', 'right', 0)).toThrow(/ratio/);
    expect(() => splitLeaf(leaf('a'), 'a', 'b', 'right', Number.NaN)).toThrow(/ratio/);
  });

  it('removeLeaf lets the sibling take the parent place', () => {
    const t = splitLeaf(splitLeaf(leaf('a'), 'a', 'b', 'right', 0.3), 'b', 'c', 'down');
    expect(removeLeaf(t, 'c')).toEqual(split('right', 0.3, leaf('a'), leaf('b')));
    expect(removeLeaf(t, 'a')).toEqual(split('down', 0.5, leaf('b'), leaf('c')));
    expect(removeLeaf(leaf('a'), 'a')).toBeNull();
    expect(() => removeLeaf(t, 'zz')).toThrow(CorralError);
  });

  it('replaceLeaf and swapLeaves', () => {
    const t = presetLayout(['a', 'b', 'c'], 'main_vertical');
    expect(leaves(replaceLeaf(t, 'b', 'w2:p1'))).toEqual(['a', 'w2:p1', 'c']);
    expect(() => replaceLeaf(t, 'b', 'c')).toThrow(/already/);
    const s = swapLeaves(t, 'a', 'c');
    expect(leaves(s)).toEqual(['c', 'b', 'a']);
    expect(computeRects(s, AREA).get('c')).toEqual(computeRects(t, AREA).get('a'));
    expect(contains(s, 'a') && contains(s, 'b') && !contains(s, 'x')).toBe(true);
  });

  it('property: leaves are preserved by split/remove/swap', () => {
    fc.assert(
      fc.property(treeArb, fc.nat(), fc.nat(), (tree, i, j) => {
        const ids = leaves(tree);
        const a = ids[i % ids.length];
        const b = ids[j % ids.length];
        expect(leaves(splitLeaf(tree, a, 'new', 'down'))).toContain('new');
        expect(leaves(splitLeaf(tree, a, 'new', 'down')).length).toBe(ids.length + 1);
        const removed = removeLeaf(tree, a);
        if (ids.length === 1) expect(removed).toBeNull();
        else expect(leaves(removed!).sort()).toEqual(ids.filter((x) => x !== a).sort());
        expect(leaves(swapLeaves(tree, a, b)).sort()).toEqual([...ids].sort());
      }),
    );
  });
});

describe('computeRects', () => {
  it('property: panes tile the area exactly', () => {
    fc.assert(
      fc.property(treeArb, areaArb, fc.integer({ min: 1, max: 4 }), (tree, area, minSize) => {
        checkTiling(tree, area, computeRects(tree, area, { minSize }));
      }),
      { numRuns: 300 },
    );
  });

  it('property: every pane gets at least minSize on both axes when the area allows', () => {
    fc.assert(
      fc.property(treeArb, areaArb, fc.integer({ min: 1, max: 4 }), (tree, area, minSize) => {
        const need = minimumSize(tree, { minSize });
        fc.pre(area.cols >= need.cols && area.rows >= need.rows);
        for (const r of computeRects(tree, area, { minSize }).values()) {
          expect(r.cols).toBeGreaterThanOrEqual(minSize);
          expect(r.rows).toBeGreaterThanOrEqual(minSize);
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps extreme ratios from squeezing a pane to nothing', () => {
    const t = split('right', 0.001, leaf('a'), leaf('b'));
    expect(computeRects(t, AREA).get('a')!.cols).toBe(1);
    expect(computeRects(t, AREA, { minSize: 5 }).get('a')!.cols).toBe(5);
  });

  it('shrinks panes to zero only when the area is too small', () => {
    const t = presetLayout(['a', 'b', 'c', 'd'], 'even_h');
    const rects = computeRects(t, { x: 0, y: 0, cols: 2, rows: 1 });
    checkTiling(t, { x: 0, y: 0, cols: 2, rows: 1 }, rects);
  });
});

describe('neighbor', () => {
  //  a | b
  //  --+---
  //  c | d      with e below everything
  const tree = split(
    'down',
    0.75,
    split('right', 0.5, split('down', 0.5, leaf('a'), leaf('c')), split('down', 0.5, leaf('b'), leaf('d'))),
    leaf('e'),
  );
  const rects = computeRects(tree, { x: 0, y: 0, cols: 80, rows: 40 });

  it('moves between adjacent panes', () => {
    expect(neighbor(rects, 'a', 'right')).toBe('b');
    expect(neighbor(rects, 'b', 'left')).toBe('a');
    expect(neighbor(rects, 'a', 'down')).toBe('c');
    expect(neighbor(rects, 'd', 'up')).toBe('b');
    expect(neighbor(rects, 'c', 'down')).toBe('e');
    expect(neighbor(rects, 'd', 'down')).toBe('e');
  });

  it('returns null at the edges (no wrap-around) and for unknown panes', () => {
    expect(neighbor(rects, 'a', 'left')).toBeNull();
    expect(neighbor(rects, 'a', 'up')).toBeNull();
    expect(neighbor(rects, 'e', 'down')).toBeNull();
    expect(neighbor(rects, 'zz', 'down')).toBeNull();
  });

  it('prefers the pane overlapping most, then the one nearest the source top/left', () => {
    expect(neighbor(rects, 'e', 'up')).toBe('c'); // c and d overlap e equally: nearest left wins
    const t = split('right', 0.5, leaf('L'), split('down', 0.3, leaf('R1'), leaf('R2')));
    const r = computeRects(t, { x: 0, y: 0, cols: 80, rows: 40 });
    expect(neighbor(r, 'L', 'right')).toBe('R2'); // 28 rows vs 12
    const even = computeRects(split('right', 0.5, leaf('L'), split('down', 0.5, leaf('R1'), leaf('R2'))), {
      x: 0,
      y: 0,
      cols: 80,
      rows: 40,
    });
    expect(neighbor(even, 'L', 'right')).toBe('R1');
  });

  it('property: in a tiling every pane not at the right edge has a right neighbour', () => {
    fc.assert(
      fc.property(treeArb, (tree) => {
        const area = { x: 0, y: 0, cols: 200, rows: 100 };
        const rs = computeRects(tree, area);
        for (const [id, r] of rs) {
          const n = neighbor(rs, id, 'right');
          if (r.x + r.cols < area.cols) {
            expect(n).not.toBeNull();
            expect(rs.get(n!)!.x).toBe(r.x + r.cols);
          } else expect(n).toBeNull();
        }
      }),
    );
  });
});

describe('resizeLeaf', () => {
  const area = { x: 0, y: 0, cols: 100, rows: 40 };

  it('moves the border towards the direction, growing a left pane and shrinking a right one', () => {
    const t = split('right', 0.5, leaf('a'), leaf('b'));
    const rects = computeRects(t, area);
    expect(computeRects(resizeLeaf(t, rects, 'a', 'right', 10), area).get('a')!.cols).toBe(60);
    expect(computeRects(resizeLeaf(t, rects, 'b', 'right', 10), area).get('b')!.cols).toBe(40);
    expect(computeRects(resizeLeaf(t, rects, 'b', 'left', 5), area).get('b')!.cols).toBe(55);
    expect(computeRects(resizeLeaf(t, rects, 'a', 'right', -5), area).get('a')!.cols).toBe(45);
  });

  it('uses the nearest split on the axis and clamps at one cell per pane', () => {
    const t = split('down', 0.5, split('right', 0.5, leaf('a'), split('right', 0.5, leaf('b'), leaf('c'))), leaf('d'));
    const rects = computeRects(t, area);
    const grown = resizeLeaf(t, rects, 'a', 'right', 1000);
    const r = computeRects(grown, area);
    expect(r.get('b')!.cols).toBe(1);
    expect(r.get('c')!.cols).toBe(1);
    expect(r.get('a')!.cols).toBe(98);
    const down = computeRects(resizeLeaf(t, rects, 'b', 'down', 4), area);
    expect(down.get('b')!.rows).toBe(24);
    expect(down.get('d')!.rows).toBe(16);
  });

  it('returns the same tree when there is no split on that axis', () => {
    const t = split('right', 0.5, leaf('a'), leaf('b'));
    expect(resizeLeaf(t, computeRects(t, area), 'a', 'down', 3)).toBe(t);
    expect(() => resizeLeaf(t, computeRects(t, area), 'zz', 'down', 3)).toThrow(CorralError);
  });

  it('property: the pane changes by at most `cells`, every pane keeps a cell, the tiling stays valid', () => {
    fc.assert(
      fc.property(
        treeArb,
        fc.nat(),
        fc.constantFrom('left' as const, 'right' as const, 'up' as const, 'down' as const),
        fc.integer({ min: -30, max: 30 }),
        (tree, i, dir, cells) => {
          const big = { x: 0, y: 0, cols: 200, rows: 120 };
          const rects = computeRects(tree, big);
          const ids = leaves(tree);
          const id = ids[i % ids.length];
          const next = resizeLeaf(tree, rects, id, dir, cells);
          const after = computeRects(next, big);
          checkTiling(next, big, after);
          for (const r of after.values()) expect(r.cols >= 1 && r.rows >= 1).toBe(true);
          const before = rects.get(id)!;
          const now = after.get(id)!;
          const horizontal = dir === 'left' || dir === 'right';
          const sizeChange = horizontal ? now.cols - before.cols : now.rows - before.rows;
          expect(Math.abs(sizeChange)).toBeLessThanOrEqual(Math.abs(cells));
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('presetLayout', () => {
  const sizes = (t: LayoutNode, area: Rect, axis: 'cols' | 'rows'): number[] =>
    leaves(t).map((id) => computeRects(t, area).get(id)![axis]);

  it('even_h and even_v give equal shares (within one cell)', () => {
    for (let n = 1; n <= 9; n++) {
      const ids = Array.from({ length: n }, (_, i) => `p${i}`);
      const h = sizes(presetLayout(ids, 'even_h'), AREA, 'cols');
      expect(Math.max(...h) - Math.min(...h)).toBeLessThanOrEqual(1);
      const v = sizes(presetLayout(ids, 'even_v'), { x: 0, y: 0, cols: 80, rows: 90 }, 'rows');
      expect(Math.max(...v) - Math.min(...v)).toBeLessThanOrEqual(1);
    }
    const t = presetLayout(['a', 'b', 'c'], 'even_h');
    expect(t.kind === 'split' && t.ratio).toBeCloseTo(1 / 3);
  });

  it('main_vertical: first pane on the left half, the rest stacked on the right', () => {
    const t = presetLayout(['m', 'x', 'y', 'z'], 'main_vertical');
    const r = computeRects(t, { x: 0, y: 0, cols: 100, rows: 30 });
    expect(r.get('m')).toEqual({ x: 0, y: 0, cols: 50, rows: 30 });
    expect(['x', 'y', 'z'].map((id) => r.get(id)!.rows)).toEqual([10, 10, 10]);
    expect(['x', 'y', 'z'].every((id) => r.get(id)!.x === 50)).toBe(true);
    expect(presetLayout(['only'], 'main_vertical')).toEqual(leaf('only'));
  });

  it('tiled: a grid as square as possible, filled row by row', () => {
    expect(tiledShape(1)).toEqual({ cols: 1, rows: 1 });
    expect(tiledShape(2)).toEqual({ cols: 2, rows: 1 });
    expect(tiledShape(4)).toEqual({ cols: 2, rows: 2 });
    expect(tiledShape(5)).toEqual({ cols: 3, rows: 2 });
    expect(tiledShape(9)).toEqual({ cols: 3, rows: 3 });
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const t = presetLayout(ids, 'tiled');
    expect(leaves(t)).toEqual(ids);
    const r = computeRects(t, { x: 0, y: 0, cols: 90, rows: 40 });
    expect(['a', 'b', 'c'].map((id) => r.get(id)!.y)).toEqual([0, 0, 0]);
    expect(['d', 'e', 'f'].map((id) => r.get(id)!.y)).toEqual([20, 20, 20]);
    expect(['a', 'b', 'c'].map((id) => r.get(id)!.cols)).toEqual([30, 30, 30]);
    const three = computeRects(presetLayout(['a', 'b', 'c'], 'tiled'), { x: 0, y: 0, cols: 80, rows: 40 });
    expect(three.get('c')).toEqual({ x: 0, y: 20, cols: 80, rows: 20 });
  });

  it('property: every preset keeps the ids in reading order and tiles the area', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 32 }),
        fc.constantFrom('even_h' as const, 'even_v' as const, 'main_vertical' as const, 'tiled' as const),
        (n, kind) => {
          const ids = Array.from({ length: n }, (_, i) => `w1:p${i + 1}`);
          const t = presetLayout(ids, kind);
          expect(leaves(t)).toEqual(ids);
          checkTiling(t, AREA, computeRects(t, AREA));
        },
      ),
    );
  });

  it('rejects empty and duplicate id lists', () => {
    expect(() => presetLayout([], 'tiled')).toThrow(CorralError);
    expect(() => presetLayout(['a', 'a'], 'tiled')).toThrow(/distinct/);
  });
});
