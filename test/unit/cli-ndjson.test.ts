import { describe, expect, it, vi } from 'vitest';
import { encodeLine, LineSplitter } from '../../src/rpc/ndjson.js';

const splitter = (maxLineBytes = 1024, onOverflow = vi.fn()) => ({ s: new LineSplitter({ maxLineBytes, onOverflow }), onOverflow });

describe('LineSplitter', () => {
  it('returns complete lines and keeps the partial rest', () => {
    const { s } = splitter();
    expect(s.push('{"a":1}\n{"b"')).toEqual(['{"a":1}']);
    expect(s.pendingBytes).toBe(4);
    expect(s.push(':2}\n')).toEqual(['{"b":2}']);
    expect(s.pendingBytes).toBe(0);
  });

  it('handles a line split at every byte boundary', () => {
    const text = '{"x":"héllo ✓ 🐄"}\n{"y":2}\n';
    const bytes = Buffer.from(text);
    for (let cut = 1; cut < bytes.length; cut++) {
      const { s } = splitter();
      const lines = [...s.push(bytes.subarray(0, cut)), ...s.push(bytes.subarray(cut))];
      expect(lines).toEqual(['{"x":"héllo ✓ 🐄"}', '{"y":2}']);
    }
  });

  it('decodes a multi-byte character cut across one-byte chunks', () => {
    const { s } = splitter();
    const lines = [...Buffer.from('🐄\n')].flatMap((byte) => s.push(Buffer.from([byte])));
    expect(lines).toEqual(['🐄']);
  });

  it('drops a trailing CR and skips blank lines', () => {
    const { s } = splitter();
    expect(s.push('a\r\n\n  \r\nb\n')).toEqual(['a', 'b']);
  });

  it('reports an over-long line once, skips it, and goes on with the next', () => {
    const { s, onOverflow } = splitter(8);
    expect(s.push('0123')).toEqual([]);
    expect(s.push('45678')).toEqual([]);
    expect(onOverflow).toHaveBeenCalledTimes(1);
    expect(onOverflow).toHaveBeenCalledWith(9);
    expect(s.push('9abc')).toEqual([]);
    expect(onOverflow).toHaveBeenCalledTimes(1);
    expect(s.push('def\nok\n')).toEqual(['ok']);
  });

  it('accepts a line of exactly the limit, counting bytes not characters', () => {
    const { s, onOverflow } = splitter(4);
    expect(s.push('abcd\n')).toEqual(['abcd']);
    expect(s.push('ééé\n')).toEqual([]); // 6 bytes
    expect(onOverflow).toHaveBeenCalledTimes(1);
  });

  it('end() returns the unterminated rest', () => {
    const { s } = splitter();
    s.push('a\nrest');
    expect(s.end()).toBe('rest');
    expect(s.end()).toBeUndefined();
  });

  it('encodeLine writes one JSON line', () => {
    expect(encodeLine({ a: 'x\ny' })).toBe('{"a":"x\\ny"}\n');
  });
});
