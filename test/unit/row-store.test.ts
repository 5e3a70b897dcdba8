/**
 * RowStore (src/terminal/row-store.ts): a pane's older scrollback by absolute row number, raw
 * rows (RawRows) after encoded ones (RowBlocks). Whatever mix of appends, encoding and drops
 * from either end, every stored row reads back as the row stored, under the same number.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRow } from '../../src/terminal/compact-row.js';
import { RawRows, rawRowBytes } from '../../src/terminal/raw-rows.js';
import { RowStore } from '../../src/terminal/row-store.js';
import type { CoreBufferLine } from '../../src/terminal/xterm-internals.js';

/** xterm's content word of a plain, one-column character. */
const WIDTH_1 = 1 << 22;

function line(text: string, wrapped: boolean, cells = text.length): CoreBufferLine {
  const data = new Uint32Array(cells * 3);
  for (let x = 0; x < text.length; x++) data[x * 3] = text.charCodeAt(x) | WIDTH_1;
  for (let x = text.length; x < cells; x++) data[x * 3] = WIDTH_1;
  return { _data: data, length: cells, isWrapped: wrapped, _combined: {}, _extendedAttrs: {} };
}

const blank = (cells: number) => line('', false, cells);

/** Row `abs` read back: its text (trailing blanks dropped) and wrapped flag. */
function readBack(store: RowStore, abs: number): { text: string; wrapped: boolean } | undefined {
  const got = store.readInto(abs, blank, 1);
  if (!got) return undefined;
  let text = '';
  for (let x = 0; x < got.length; x++) text += String.fromCharCode(got._data[x * 3]! & 0x1fffff || 32);
  return { text: text.trimEnd(), wrapped: got.isWrapped };
}

describe('row store', () => {
  it('reads back every stored row under its number through appends, encoding and drops', () => {
    const op = fc.oneof(
      { weight: 6, arbitrary: fc.record({ copy: fc.string({ unit: fc.constantFrom('a', 'b', 'x', ' '), maxLength: 12 }), wrapped: fc.boolean() }) },
      { weight: 2, arbitrary: fc.record({ encoded: fc.string({ unit: fc.constantFrom('e', 'f'), maxLength: 8 }), wrapped: fc.boolean() }) },
      fc.record({ encode: fc.integer({ min: 0, max: 5 }) }),
      { weight: 3, arbitrary: fc.record({ dropBefore: fc.integer({ min: -3, max: 12 }) }) },
      fc.record({ dropFrom: fc.integer({ min: -2, max: 6 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 50 }), fc.array(op, { maxLength: 120 }), fc.boolean(), (maxRows, blockRows, start, ops, overBudget) => {
        // Over the raw budget (many panes flooding), a store encodes rows past its newest few as they come.
        const store = new RowStore(maxRows, blockRows, overBudget ? { bytes: -1, minRows: 2 } : undefined);
        store.reset(start);
        let first = start;
        const model: Array<{ text: string; wrapped: boolean }> = [];
        for (const o of ops) {
          if ('copy' in o) {
            store.pushCopy(line(o.copy, o.wrapped));
            model.push({ text: o.copy.trimEnd(), wrapped: o.wrapped });
          } else if ('encoded' in o) {
            store.push(encodeRow(line(o.encoded, o.wrapped)));
            model.push({ text: o.encoded, wrapped: o.wrapped });
          } else if ('encode' in o) {
            store.encodeRaw(o.encode);
          } else if ('dropBefore' in o) {
            // Relative to the oldest row: 0 drops nothing, past the end drops everything.
            const abs = first + o.dropBefore;
            store.dropBefore(abs);
            const n = Math.max(0, Math.min(model.length, abs - first));
            model.splice(0, n);
            first += n;
          } else {
            const abs = first + model.length - o.dropFrom;
            store.dropFrom(abs);
            model.length = Math.max(0, Math.min(model.length, abs - first));
          }
          expect(store.size).toBe(model.length);
          if (model.length > 0) expect(store.first).toBe(first);
          expect(store.end).toBe(store.first + model.length);
        }
        if (model.length === 0) first = store.first;
        expect(readBack(store, first - 1)).toBeUndefined();
        expect(readBack(store, first + model.length)).toBeUndefined();
        model.forEach((m, i) => {
          expect(readBack(store, first + i)).toEqual(m);
          expect(store.wrappedAt(first + i)).toBe(m.wrapped);
        });
      }),
      { numRuns: 800 },
    );
  });

  it('drops nothing for a number at or below the oldest row', () => {
    const store = new RowStore(100);
    store.reset(10);
    for (let i = 0; i < 5; i++) store.pushCopy(line(`r${i}`, false));
    store.encodeRaw(2);
    store.dropBefore(10);
    store.dropBefore(3);
    expect([store.first, store.end]).toEqual([10, 15]);
    expect(readBack(store, 10)?.text).toBe('r0');
    store.dropBefore(13);
    expect([store.first, store.end]).toEqual([13, 15]);
    expect([readBack(store, 13)?.text, readBack(store, 14)?.text]).toEqual(['r3', 'r4']);
  });
});

describe('the raw budget (many panes flooding at once)', () => {
  it('keeps a pane’s raw rows at its minimum once the process is over budget, and every row reads back', () => {
    const store = new RowStore(10_000, 64, { bytes: -1, minRows: 100 });
    for (let i = 0; i < 5000; i++) store.pushCopy(line(`flood ${i}`, false, 160));
    expect(store.rawSize).toBe(100);
    expect([store.first, store.end]).toEqual([0, 5000]);
    for (const abs of [0, 2500, 4899, 4900, 4999]) expect(readBack(store, abs)?.text).toBe(`flood ${abs}`);
    // Under budget, the same flood stays raw until the pane is quiet.
    const calm = new RowStore(10_000, 64, { bytes: Number.MAX_SAFE_INTEGER, minRows: 100 });
    for (let i = 0; i < 5000; i++) calm.pushCopy(line(`flood ${i}`, false, 160));
    expect(calm.rawSize).toBe(5000);
  });

  it('counts every ring of the process, and gives the bytes back when a ring is cleared', () => {
    const before = rawRowBytes();
    const ring = new RawRows(1000);
    for (let i = 0; i < 1000; i++) ring.push(line(`row ${i}`, false, 160));
    const held = (ring as unknown as { words: Uint32Array }).words.byteLength;
    expect(rawRowBytes() - before).toBe(held);
    ring.clear();
    expect(rawRowBytes()).toBe(before);
  });
});

describe('raw rows', () => {
  it('a flood after another takes the last one’s ring whole (its pages already faulted in), never a larger one than it needs', () => {
    const first = new RawRows(2000);
    for (let i = 0; i < 2000; i++) first.push(line(`a ${i}`, false, 160));
    const ring = (first as unknown as { words: Uint32Array }).words;
    first.clear();
    const next = new RawRows(2000);
    for (let i = 0; i < 10; i++) next.push(line(`b ${i}`, false, 160));
    expect((next as unknown as { words: Uint32Array }).words).toBe(ring);
    for (let i = 0; i < 10; i++) expect(next.line(i)!._data[0]! & 0x1fffff).toBe('b'.charCodeAt(0));
    next.clear();
    // A narrow pane's ring is bounded by its own widest row: the spare is too large for it.
    const narrow = new RawRows(100);
    for (let i = 0; i < 100; i++) narrow.push(line(`n ${i}`, false, 20));
    expect((narrow as unknown as { words: Uint32Array }).words).not.toBe(ring);
  });

  it('grow no larger than a full ring of the widest row (a flood fills it to exactly that)', () => {
    for (const [maxRows, cells] of [[100, 160], [1000, 80], [37, 200]] as const) {
      const ring = new RawRows(maxRows);
      for (let i = 0; i < maxRows; i++) expect(ring.push(line(`row ${i}`, false, cells))).toBe(true);
      expect(ring.push(line('one too many', false, cells))).toBe(false);
      const words = (ring as unknown as { words: Uint32Array }).words.length;
      expect(words).toBeLessThanOrEqual((maxRows + 1) * cells * 3);
      // And a flood keeps going through it without growing again: drop one, push one.
      for (let i = 0; i < 3 * maxRows; i++) {
        ring.dropFront(1);
        expect(ring.push(line(`more ${i}`, i % 2 === 0, cells))).toBe(true);
      }
      expect((ring as unknown as { words: Uint32Array }).words.length).toBe(words);
      expect(ring.line(maxRows - 1)!.length).toBe(cells);
    }
  });
});

