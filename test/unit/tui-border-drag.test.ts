import { describe, expect, it } from 'vitest';
import { computeRects, leaf, split } from '../../src/session/layout.js';
import { borderAt, dragBorder } from '../../src/tui/border-drag.js';

const AREA = { x: 0, y: 0, cols: 90, rows: 30 };

describe('border drag', () => {
  it('grabs the split whose border is under the pointer, from either side of it', () => {
    // ((A | B) | C): the B|C border belongs to the outer split, A|B to the inner one.
    const tree = split('right', 2 / 3, split('right', 0.5, leaf('A'), leaf('B')), leaf('C'));
    const rects = computeRects(tree, AREA);
    const c = rects.get('C')!;
    const b = rects.get('B')!;
    expect(borderAt(tree, AREA, c.x, 5)?.path).toEqual([]);
    expect(borderAt(tree, AREA, c.x - 1, 5)?.path).toEqual([]);
    expect(borderAt(tree, AREA, b.x, 5)?.path).toEqual(['first']);
    expect(borderAt(tree, AREA, b.x + 5, 5)).toBeNull();
  });

  it('moves the border as far as the pointer moved, keeping every pane visible', () => {
    const tree = split('down', 0.5, leaf('A'), leaf('B'));
    const grab = borderAt(tree, AREA, 10, 15)!;
    expect(grab.direction).toBe('down');
    const moved = dragBorder(tree, grab, 10, 10);
    expect(computeRects(moved, AREA).get('A')!.rows).toBe(10);
    // Far past the edge: the other pane keeps its frame and one row.
    const clamped = dragBorder(tree, grab, 10, 100);
    expect(computeRects(clamped, AREA).get('B')!.rows).toBe(3);
    expect(dragBorder(tree, grab, 10, 15)).toBe(tree);
  });
});
