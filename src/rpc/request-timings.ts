/**
 * Server-side request times per method (`system.stats`): from the request line's parse to its
 * reply handed to the socket. Only methods of the table get a ring (a client sending made-up
 * method names must not grow the map), each allocated on the method's first request.
 */
import { METHODS, type DurationSummary, type MethodName } from '../contract/protocol.js';
import { DurationRing } from '../core/duration-ring.js';

const KNOWN: ReadonlySet<string> = new Set(METHODS);

export class RequestTimings {
  private readonly rings = new Map<MethodName, DurationRing>();

  record(method: unknown, ms: number): void {
    if (typeof method !== 'string' || !KNOWN.has(method)) return;
    let ring = this.rings.get(method as MethodName);
    if (!ring) this.rings.set(method as MethodName, (ring = new DurationRing()));
    ring.add(ms);
  }

  summary(): Partial<Record<MethodName, DurationSummary>> {
    const out: Partial<Record<MethodName, DurationSummary>> = {};
    for (const [method, ring] of [...this.rings].sort(([a], [b]) => a.localeCompare(b))) out[method] = ring.summary();
    return out;
  }
}
