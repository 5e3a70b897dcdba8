import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DurationRing } from '../../src/core/duration-ring.js';

describe('DurationRing', () => {
  it('summarises nothing as zeros', () => {
    expect(new DurationRing(4).summary()).toEqual({ count: 0, window: 0, p50_ms: 0, p95_ms: 0, max_ms: 0 });
  });

  it('takes nearest-rank percentiles of the latest samples only', () => {
    const ring = new DurationRing(100);
    for (let i = 0; i < 50; i++) ring.add(1000); // pushed out by the next 100
    for (let i = 1; i <= 100; i++) ring.add(i);
    expect(ring.summary()).toEqual({ count: 150, window: 100, p50_ms: 50, p95_ms: 95, max_ms: 100 });
  });

  it('agrees with sorting the kept window, whatever the samples', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 1e4, noNaN: true }), { minLength: 1, maxLength: 300 }), fc.integer({ min: 1, max: 64 }), (samples, capacity) => {
        const ring = new DurationRing(capacity);
        samples.forEach((s) => ring.add(s));
        const kept = samples.slice(-capacity).sort((a, b) => a - b);
        const at = (p: number) => Math.round(kept[Math.ceil((p / 100) * kept.length) - 1]! * 1000) / 1000;
        expect(ring.summary()).toEqual({ count: samples.length, window: kept.length, p50_ms: at(50), p95_ms: at(95), max_ms: Math.round(kept.at(-1)! * 1000) / 1000 });
      }),
    );
  });
});
