import { describe, expect, it } from 'vitest';
import { Emitter } from '../../src/terminal/emitter.js';

describe('Emitter', () => {
  it('calls listeners in the order they subscribed, a `first` one ahead of those already there', () => {
    const emitter = new Emitter<number>();
    const calls: string[] = [];
    emitter.on((v) => calls.push(`a${v}`));
    emitter.on((v) => calls.push(`b${v}`));
    const first = emitter.on((v) => calls.push(`first${v}`), { first: true });
    emitter.on((v) => calls.push(`c${v}`));
    emitter.fire(1);
    expect(calls).toEqual(['first1', 'a1', 'b1', 'c1']);
    first.dispose();
    calls.length = 0;
    emitter.fire(2);
    expect(calls).toEqual(['a2', 'b2', 'c2']);
  });

  it('subscribes the same function twice, each disposed on its own', () => {
    const emitter = new Emitter<number>();
    let count = 0;
    const f = () => count++;
    const one = emitter.on(f);
    emitter.on(f, { first: true });
    emitter.fire(0);
    expect(count).toBe(2);
    one.dispose();
    emitter.fire(0);
    expect(count).toBe(3);
    expect(emitter.size).toBe(1);
  });

  it('a throwing listener neither stops the others nor reaches the firer', async () => {
    const emitter = new Emitter<number>();
    const seen: number[] = [];
    const thrown: unknown[] = [];
    const onUncaught = (error: unknown) => thrown.push(error);
    process.prependListener('uncaughtException', onUncaught);
    try {
      emitter.on(() => {
        throw new Error('boom');
      }, { first: true });
      emitter.on((v) => seen.push(v));
      expect(() => emitter.fire(7)).not.toThrow();
      expect(seen).toEqual([7]);
      await new Promise((resolve) => setImmediate(resolve));
      expect(thrown).toHaveLength(1);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
