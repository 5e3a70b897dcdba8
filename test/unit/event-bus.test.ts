import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventBus, type Frame, type FrameSink } from '../../src/core/event-bus.js';

/** Where a test event happened: surface `id` in workspace w1. */
function paneRef(id: number) {
  return { surface_id: id, pane_id: `w1:p${id}`, workspace: 'w1' };
}

/** A sink whose capacity the test controls, standing in for a socket's write buffer. */
class FakeSink implements FrameSink {
  frames: Frame[] = [];
  capacity = Infinity;
  private drain: Array<() => void> = [];
  write(frame: Frame): boolean {
    this.frames.push(frame);
    return this.frames.length < this.capacity;
  }
  onDrain(listener: () => void): void {
    this.drain.push(listener);
  }
  release(): void {
    this.capacity = Infinity;
    this.drain.forEach((l) => l());
  }
}

describe('EventBus', () => {
  it('filters by type and surface; events without a surface pass the surface filter', () => {
    const bus = new EventBus();
    const sink = new FakeSink();
    bus.subscribe({ types: new Set(['pane.closed', 'workspace.closed']), surfaces: new Set([2]) }, sink);
    bus.emit({ type: 'pane.closed', ...paneRef(1) });
    bus.emit({ type: 'pane.closed', ...paneRef(2) });
    bus.emit({ type: 'pane.created', ...paneRef(2), tab: 'w1:t1' });
    bus.emit({ type: 'workspace.closed', workspace: 'w1' });
    expect(sink.frames.map((f) => [f.type, (f as any).surface_id])).toEqual([
      ['pane.closed', 2],
      ['workspace.closed', undefined],
    ]);
  });

  it('queues while the sink is backed up, drops beyond the queue and reports the count', () => {
    const bus = new EventBus();
    const sink = new FakeSink();
    sink.capacity = 1;
    const subscription = bus.subscribe({}, sink);
    // The first write fills the sink; the queue holds 1024 more; the rest are dropped.
    for (let i = 0; i < 1 + 1024 + 10; i++) bus.emit({ type: 'surface_changed', ...paneRef(1), output_generation: i });
    expect(sink.frames).toHaveLength(1);
    sink.release();
    const frames = sink.frames;
    expect(frames).toHaveLength(1 + 1024 + 1);
    expect(frames.at(-1)).toEqual({ type: 'dropped', count: 10 });
    expect((frames[1024] as any).output_generation).toBe(1024);
    subscription.dispose();
    bus.emit({ type: 'surface_changed', ...paneRef(1), output_generation: 0 });
    expect(sink.frames).toHaveLength(1026);
    expect(bus.subscriberCount).toBe(0);
  });

  it('holds frames of a paused subscription until started', () => {
    const bus = new EventBus();
    const sink = new FakeSink();
    const subscription = bus.subscribe({}, sink, { paused: true });
    bus.emit({ type: 'pane.created', ...paneRef(1), tab: 'w1:t1' });
    expect(sink.frames).toHaveLength(0);
    subscription.start();
    expect(sink.frames.map((f) => f.type)).toEqual(['pane.created']);
  });

  it('a throwing in-process listener does not stop delivery', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    bus.listen(() => {
      throw new Error('boom');
    });
    bus.listen((e) => seen.push(e.type));
    bus.emit({ type: 'pane.created', ...paneRef(1), tab: 'w1:t1' });
    expect(seen).toEqual(['pane.created']);
  });

  describe('heartbeat', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    const heartbeats = (sink: FakeSink) => sink.frames.filter((f) => f.type === 'heartbeat').length;

    it('comes after 15 s without a frame, counted from the last frame sent', () => {
      vi.useFakeTimers();
      const bus = new EventBus();
      const sink = new FakeSink();
      const subscription = bus.subscribe({}, sink);
      vi.advanceTimersByTime(10_000);
      bus.emit({ type: 'pane.created', ...paneRef(1), tab: 'w1:t1' });
      // 15 s after the start but only 5 s after the frame: not quiet yet.
      vi.advanceTimersByTime(14_000);
      expect(heartbeats(sink)).toBe(0);
      vi.advanceTimersByTime(1_000);
      expect(heartbeats(sink)).toBe(1);
      vi.advanceTimersByTime(15_000);
      expect(heartbeats(sink)).toBe(2);
      subscription.dispose();
      vi.advanceTimersByTime(60_000);
      expect(heartbeats(sink)).toBe(2);
    });

    it('never jumps ahead of frames queued behind a backed-up sink', () => {
      vi.useFakeTimers();
      const bus = new EventBus();
      const sink = new FakeSink();
      sink.capacity = 1;
      bus.subscribe({}, sink);
      bus.emit({ type: 'pane.created', ...paneRef(1), tab: 'w1:t1' });
      bus.emit({ type: 'pane.created', ...paneRef(2), tab: 'w1:t1' });
      vi.advanceTimersByTime(60_000);
      expect(sink.frames.map((f) => f.type)).toEqual(['pane.created']);
      sink.release();
      expect(sink.frames.map((f) => f.type)).toEqual(['pane.created', 'pane.created']);
      vi.advanceTimersByTime(15_000);
      expect(sink.frames.map((f) => f.type)).toEqual(['pane.created', 'pane.created', 'heartbeat']);
    });
  });
});
