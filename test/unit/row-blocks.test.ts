/**
 * The packed, compressed form of the compact scrollback store (row-codec.ts, row-blocks.ts):
 * a row read back is the row stored, field for field, across block boundaries, drops from
 * both ends, and rows the byte form cannot hold.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CompactRow } from '../../src/terminal/compact-row.js';
import { packRows, unpackRows } from '../../src/terminal/row-codec.js';
import { RowBlocks } from '../../src/terminal/row-blocks.js';

const unit = fc.integer({ min: 0, max: 0xffff });
const units = (n: number) => fc.array(unit, { minLength: n, maxLength: n }).map((u) => String.fromCharCode(...u));
/** Cell text: any BMP code point but surrogates (rows with those keep raw words). */
const cellChar = fc.oneof(fc.integer({ min: 0, max: 0xff }), fc.integer({ min: 0x100, max: 0xd7ff }), fc.integer({ min: 0xe000, max: 0xffff }));

const packedRow = fc
  .tuple(fc.array(fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 0xff }) }, cellChar), { maxLength: 200 }), fc.boolean(), fc.boolean(), fc.integer({ min: 0, max: 6 }))
  .chain(([cells, wrapped, withKinds, runs]) =>
    fc.tuple(fc.constant(String.fromCharCode(...cells)), withKinds ? units(cells.length) : fc.constant(null), runs > 0 ? units(runs * 5) : fc.constant(null), fc.constant(wrapped)),
  )
  .map(([chars, kinds, styles, wrapped]) => new CompactRow(chars, kinds, styles, null, null, wrapped));

/** Rows with side tables or raw words: kept as objects, not packed. */
const keptRow = fc.oneof(
  fc.constant(new CompactRow('', null, null, new Uint32Array([0x1f680 | (2 << 22), 0, 0]), null, false)),
  fc.constant(new CompactRow('e', 'x', null, null, { combined: { 0: 'e\u0301' } }, true)),
);
const anyRow = fc.oneof({ weight: 5, arbitrary: packedRow }, keptRow);

const fields = (r: CompactRow | undefined) => r && [r.chars, r.kinds, r.styles, r.raw && Array.from(r.raw), r.extras, r.wrapped];

describe('row codec', () => {
  it('unpacks exactly the rows it packed', () => {
    fc.assert(
      fc.property(fc.array(anyRow, { maxLength: 40 }), (rows) => {
        const bytes = Buffer.from(packRows(rows));
        const back = unpackRows(bytes, rows.length, (i) => rows[i]!);
        expect(back.map(fields)).toEqual(rows.map(fields));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps Latin-1 text at one byte a cell', () => {
    const row = new CompactRow('x'.repeat(100), null, null, null, null, false);
    expect(packRows([row]).length).toBe(1 + 1 + 100);
  });
});

describe('row blocks', () => {
  it('hold exactly what a plain list would, through pushes, drops from both ends and sealing', () => {
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.record({ push: anyRow }) },
      fc.record({ front: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ back: fc.integer({ min: 0, max: 6 }) }),
      fc.record({ read: fc.nat() }),
      { weight: 1, arbitrary: fc.constant({ clear: true }) },
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 200 }), (blockRows, ops) => {
        const blocks = new RowBlocks(blockRows);
        const model: CompactRow[] = [];
        for (const o of ops) {
          if ('push' in o) {
            blocks.push(o.push);
            model.push(o.push);
          } else if ('front' in o) {
            blocks.dropFront(o.front);
            model.splice(0, o.front);
          } else if ('back' in o) {
            blocks.dropBack(o.back);
            model.splice(Math.max(0, model.length - o.back), o.back);
          } else if ('read' in o) {
            const i = model.length ? o.read % model.length : 0;
            expect(fields(blocks.get(i))).toEqual(fields(model[i]));
          } else {
            blocks.clear();
            model.length = 0;
          }
          expect(blocks.length).toBe(model.length);
        }
        expect(blocks.get(-1)).toBeUndefined();
        expect(blocks.get(model.length)).toBeUndefined();
        model.forEach((m, i) => expect(fields(blocks.get(i))).toEqual(fields(m)));
      }),
      { numRuns: 1500 },
    );
  });

  it('cost a few bytes a row once sealed, for repetitive terminal text', () => {
    const blocks = new RowBlocks();
    for (let i = 0; i < 2560; i++) blocks.push(new CompactRow(`line ${String(i).padStart(6, '0')}: the quick brown fox jumps over the lazy dog`, null, null, null, null, false));
    // Unpacked, such a row costs ~130 bytes (rowBytes).
    expect(blocks.bytes() / 2560).toBeLessThan(30);
    expect(blocks.get(1234)!.chars).toBe('line 001234: the quick brown fox jumps over the lazy dog');
  });
});

describe('row blocks: dropping the oldest rows', () => {
  const row = (i: number) => new CompactRow(`row ${i}`, null, null, null, null, i % 3 === 0);
  const filled = (n: number, blockRows = 4) => {
    const blocks = new RowBlocks(blockRows);
    for (let i = 0; i < n; i++) blocks.push(row(i));
    return blocks;
  };
  const texts = (blocks: RowBlocks) => Array.from({ length: blocks.length }, (_, i) => blocks.get(i)?.chars);
  const expected = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `row ${from + i}`);

  it.each([
    ['nothing', 0, 10],
    ['part of the first block', 3, 10],
    ['exactly the first block', 4, 10],
    ['a block and a half', 6, 10],
    ['all but one', 9, 10],
    ['all', 10, 10],
    ['more than held', 25, 10],
    ['a negative count (nothing)', -3, 10],
  ])('drops %s and reads the rest unchanged', (_what, n, held) => {
    const blocks = filled(held);
    blocks.dropFront(n);
    const dropped = Math.max(0, Math.min(n, held));
    expect(blocks.length).toBe(held - dropped);
    expect(texts(blocks)).toEqual(expected(dropped, held));
    // Reads across a sealed block and the open one, and block shapes, still line up.
    if (blocks.length > 0) expect(blocks.blockAt(0)!.end).toBe(Math.min(blocks.length, 4 - (dropped % 4)));
    // More rows after the drop land after what is left.
    blocks.push(row(held));
    expect(blocks.get(blocks.length - 1)?.chars).toBe(`row ${held}`);
    expect(texts(blocks)).toEqual(expected(dropped, held + 1));
  });

  it('drops one row at a time through many blocks as a flood does, reads unchanged', () => {
    const blocks = new RowBlocks(4);
    let first = 0;
    for (let i = 0; i < 200; i++) {
      blocks.push(row(i));
      if (blocks.length > 10) {
        blocks.dropFront(1);
        first++;
      }
      expect(texts(blocks)).toEqual(expected(first, i + 1));
    }
  });

  it('make no garbage when there is nothing to drop (once per scrolled row in a flood)', () => {
    // The store's own arrays stay the same objects: an empty drop used to replace them with new
    // ones on every call (a quarter of what a 45 MB cat allocated).
    const empty = new RowBlocks(4);
    const inner = empty as unknown as { blocks: unknown[]; cache: unknown[] };
    const before = { blocks: inner.blocks, cache: inner.cache };
    for (let i = 0; i < 100; i++) empty.dropFront(1);
    empty.dropFront(0);
    expect(inner.blocks).toBe(before.blocks);
    expect(inner.cache).toBe(before.cache);
    const some = filled(10);
    const held = some as unknown as { blocks: unknown[]; cache: unknown[] };
    const arrays = { blocks: held.blocks, cache: held.cache };
    some.dropFront(0);
    some.dropFront(5);
    some.dropFront(99);
    expect(some.length).toBe(0);
    expect(held.blocks).toBe(arrays.blocks);
    expect(held.cache).toBe(arrays.cache);
  });
});
