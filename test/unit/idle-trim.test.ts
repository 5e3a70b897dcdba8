/**
 * The idle trim (src/terminal/memory-release.ts) looks at the young generation only after
 * activity: an idle server keeps no timer for it, a kick arms one check, and checks stop once
 * one finds the server idle with nothing to give back (or after the collection that gave it).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MEMORY_RELEASE, trimWhenIdle, type TrimProbe } from '../../src/terminal/memory-release.js';

const CHECK = 1000;
const BIG = MEMORY_RELEASE.youngTrimBytes * 4;
const SMALL = MEMORY_RELEASE.youngTrimBytes / 4;

function fakeProbe(start: { busy: number; young: number }) {
  const state = { ...start, collections: 0, shrinks: true };
  const probe: TrimProbe = {
    busy: () => state.busy,
    youngBytes: () => state.young,
    collect: () => {
      state.collections++;
      if (state.shrinks) state.young = SMALL;
    },
  };
  return { state, probe };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('idle trim', () => {
  it('keeps no timer on a server nothing happens on', () => {
    const { probe } = fakeProbe({ busy: 0, young: SMALL });
    const trim = trimWhenIdle(CHECK, probe);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(CHECK * 20);
    expect(vi.getTimerCount()).toBe(0);
    trim.dispose();
  });

  it('a kick arms one check; an idle server with a small young generation then has none', () => {
    const { state, probe } = fakeProbe({ busy: 0, young: SMALL });
    const trim = trimWhenIdle(CHECK, probe);
    trim.kick();
    trim.kick();
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(CHECK);
    expect(vi.getTimerCount()).toBe(0);
    expect(state.collections).toBe(0);
    trim.dispose();
  });

  it('waits while the server is busy, collects once when it is idle, then stops', () => {
    const { state, probe } = fakeProbe({ busy: 0.5, young: BIG });
    const trim = trimWhenIdle(CHECK, probe);
    trim.kick();
    vi.advanceTimersByTime(CHECK * 3);
    expect(state.collections).toBe(0);
    expect(vi.getTimerCount()).toBe(1);
    state.busy = 0;
    vi.advanceTimersByTime(CHECK);
    expect(state.collections).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(CHECK * 20);
    expect(state.collections).toBe(1);
    trim.dispose();
  });

  it('a collection that did not shrink it is retried, later and later, and a dispose ends it', () => {
    const { state, probe } = fakeProbe({ busy: 0, young: BIG });
    state.shrinks = false;
    const trim = trimWhenIdle(CHECK, probe);
    trim.kick();
    vi.advanceTimersByTime(CHECK);
    expect(state.collections).toBe(1);
    vi.advanceTimersByTime(CHECK);
    expect(state.collections).toBe(2);
    // Third try after twice the interval.
    vi.advanceTimersByTime(CHECK);
    expect(state.collections).toBe(2);
    vi.advanceTimersByTime(CHECK);
    expect(state.collections).toBe(3);
    trim.dispose();
    expect(vi.getTimerCount()).toBe(0);
    trim.kick();
    expect(vi.getTimerCount()).toBe(0);
  });
});
