/**
 * Server-side request times per method (`system.stats`): from the request line's parse to its
 * reply handed to the socket, as wall time and as the CPU time the process used meanwhile
 * (for a quick request, its own cost; wall time also counts the moments the OS ran something
 * else). Only methods of the table get rings (a client sending made-up method names must not
 * grow the map), allocated on the method's first request.
 */
import { METHODS, type MethodName, type RequestSummary } from '../contract/protocol.js';
import { DurationRing } from '../core/duration-ring.js';

const KNOWN: ReadonlySet<string> = new Set(METHODS);

export class RequestTimings {
  private readonly rings = new Map<MethodName, { wall: DurationRing; cpu: DurationRing }>();

  record(method: unknown, wallMs: number, cpuMs: number): void {
    if (typeof method !== 'string' || !KNOWN.has(method)) return;
    let rings = this.rings.get(method as MethodName);
    if (!rings) this.rings.set(method as MethodName, (rings = { wall: new DurationRing(), cpu: new DurationRing() }));
    rings.wall.add(wallMs);
    rings.cpu.add(cpuMs);
  }

  summary(): Partial<Record<MethodName, RequestSummary>> {
    const out: Partial<Record<MethodName, RequestSummary>> = {};
    for (const [method, { wall, cpu }] of [...this.rings].sort(([a], [b]) => a.localeCompare(b))) {
      const used = cpu.summary();
      out[method] = { ...wall.summary(), cpu_p50_ms: used.p50_ms, cpu_p95_ms: used.p95_ms };
    }
    return out;
  }
}
