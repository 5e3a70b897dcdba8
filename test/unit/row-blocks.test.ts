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
