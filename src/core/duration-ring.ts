/**
 * The last few hundred durations of one kind (a method's requests, an event's fan-out), kept
 * in a fixed typed array so recording costs one store and memory never grows; percentiles are
 * computed only when someone asks (`system.stats`).
 */
import type { DurationSummary } from '../contract/protocol.js';

/** How many of the latest samples a ring keeps: enough for a p95 of a 100-call run. */
export const DURATION_WINDOW = 512;

export class DurationRing {
  private readonly samples: Float64Array;
  private next = 0;
  private count = 0;

  constructor(capacity = DURATION_WINDOW) {
    this.samples = new Float64Array(capacity);
  }

  add(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    this.count++;
  }

  /** Nearest-rank percentiles of the samples kept; `count` is every sample ever added. */
  summary(): DurationSummary {
    const kept = this.samples.slice(0, Math.min(this.count, this.samples.length)).sort();
    const rank = (p: number) => (kept.length === 0 ? 0 : kept[Math.max(0, Math.ceil((p / 100) * kept.length) - 1)]!);
    const round = (ms: number) => Math.round(ms * 1000) / 1000;
    return { count: this.count, window: kept.length, p50_ms: round(rank(50)), p95_ms: round(rank(95)), max_ms: round(kept.at(-1) ?? 0) };
  }
}
