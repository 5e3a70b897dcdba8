/**
 * Fan-out of core events to subscribers (SPEC §7). Each subscriber has its own bounded
 * queue: when its sink is backed up, events wait there; when the queue overflows they are
 * counted and replaced by one `dropped` frame. A slow subscriber therefore costs the server
 * at most one queue's worth of memory and never delays anyone else.
 */
import { LIMITS, eventSurfaceId, type ControlFrame, type CorralEvent, type EventInput } from '../contract/protocol.js';
import type { Disposable } from '../contract/disposable.js';
import { DurationRing } from './duration-ring.js';

/** An event of another machine's server, tagged with that machine's name (SPEC §14). */
export type RemoteEventFrame = { type: string; machine: string; [field: string]: unknown };

export type Frame = CorralEvent | ControlFrame | RemoteEventFrame;

/** Where a subscription's frames go: `write` returns false when the sink is backed up. */
export interface FrameSink {
  write(frame: Frame): boolean;
  onDrain(listener: () => void): void;
}

export interface SubscriptionFilter {
  /** Only events about these surface ids (events without a surface always pass). */
  surfaces?: ReadonlySet<number>;
  /** Only these event types. */
  types?: ReadonlySet<string>;
  /** Only events of this machine (SPEC §14), or of this one (`null`); undefined: every machine's. */
  machine?: string | null;
}

/** One subscriber: a filter, a bounded queue and a heartbeat timer. */
export class Subscription implements Disposable {
  private readonly queue: Frame[] = [];
  private droppedCount = 0;
  private backedUp = false;
  private heartbeat: NodeJS.Timeout | null = null;
  /** When the last frame went out (ms): the heartbeat timer is re-armed from it lazily. */
  private lastSentAt = 0;
  private disposed = false;

  constructor(
    readonly id: string,
    private readonly filter: SubscriptionFilter,
    private readonly sink: FrameSink,
    private readonly onDispose: (subscription: Subscription) => void,
    options: { paused?: boolean; queue?: number; heartbeatMs?: number } = {},
  ) {
    this.limits = { queue: options.queue ?? LIMITS.subscriberQueue, heartbeatMs: options.heartbeatMs ?? LIMITS.heartbeatMs };
    // A paused subscription queues until start(): the `subscribed` reply must be the first frame.
    this.backedUp = options.paused ?? false;
    sink.onDrain(() => this.flush());
    this.armHeartbeat();
  }

  private readonly limits: { queue: number; heartbeatMs: number };

  /** Starts delivery of a subscription created paused. */
  start(): void {
    this.flush();
  }

  /** Whether this subscriber wants the event. */
  accepts(event: CorralEvent): boolean {
    if (this.filter.machine !== undefined && this.filter.machine !== null) return false;
    if (this.filter.types && !this.filter.types.has(event.type)) return false;
    const surfaceId = eventSurfaceId(event);
    if (this.filter.surfaces && surfaceId !== undefined && !this.filter.surfaces.has(surfaceId)) return false;
    return true;
  }

  /**
   * Queues or writes another machine's event, if the filter wants it: by type and machine
   * (the surface filter names local panes, so a filtered subscription gets no remote pane's events).
   */
  pushRemote(frame: RemoteEventFrame): void {
    if (this.filter.machine !== undefined && this.filter.machine !== frame.machine) return;
    if (this.filter.types && !this.filter.types.has(frame.type)) return;
    if (this.filter.surfaces && 'surface_id' in frame) return;
    this.push(frame);
  }

  /** Queues or writes one event. */
  push(event: CorralEvent | RemoteEventFrame): void {
    if (this.disposed) return;
    if (!this.backedUp && this.queue.length === 0 && this.droppedCount === 0) {
      this.send(event);
      return;
    }
    if (this.queue.length >= this.limits.queue) {
      this.droppedCount++;
      return;
    }
    this.queue.push(event);
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.heartbeat) clearTimeout(this.heartbeat);
    this.queue.length = 0;
    this.onDispose(this);
  }

  private flush(): void {
    this.backedUp = false;
    while (!this.backedUp && this.queue.length > 0) this.send(this.queue.shift()!);
    if (!this.backedUp && this.droppedCount > 0) {
      const count = this.droppedCount;
      this.droppedCount = 0;
      this.send({ type: 'dropped', count });
    }
  }

  private send(frame: Frame): void {
    if (this.disposed) return;
    if (!this.sink.write(frame)) this.backedUp = true;
    // Not a timer re-armed per frame (clearTimeout + setTimeout for each of 20 subscribers on
    // every event): the timer, when it fires, looks at this and waits out the rest.
    this.lastSentAt = Date.now();
  }

  /** One timer per subscriber: a heartbeat once nothing went out for `heartbeatMs`. */
  private armHeartbeat(): void {
    this.lastSentAt = Date.now();
    this.heartbeat = setTimeout(() => this.onHeartbeatTimer(), this.limits.heartbeatMs);
    this.heartbeat.unref();
  }

  private onHeartbeatTimer(): void {
    if (this.disposed) return;
    // Frames waiting behind a backed-up sink: not quiet, and a heartbeat must not jump the queue.
    if (this.backedUp || this.queue.length > 0) this.lastSentAt = Date.now();
    else if (Date.now() - this.lastSentAt >= this.limits.heartbeatMs) this.send({ type: 'heartbeat', ts: Date.now() });
    this.heartbeat = setTimeout(() => this.onHeartbeatTimer(), this.lastSentAt + this.limits.heartbeatMs - Date.now());
    this.heartbeat.unref();
  }
}

/** The core's event stream: emit once, every matching subscriber gets it. */
export class EventBus {
  private readonly subscriptions = new Set<Subscription>();
  private readonly listeners = new Set<(event: CorralEvent) => void>();
  private nextId = 1;
  /** How long handing one event to every socket subscriber took (`system.stats`). */
  readonly fanOutTimes = new DurationRing();

  /** Adds a socket (or other sink) subscriber with a bounded queue. */
  subscribe(filter: SubscriptionFilter, sink: FrameSink, options: { paused?: boolean } = {}): Subscription {
    const subscription = new Subscription(`sub-${this.nextId++}`, filter, sink, (s) => this.subscriptions.delete(s), options);
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Adds an in-process listener (the TUI, waits): called synchronously for every event. */
  listen(listener: (event: CorralEvent) => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  emit(event: EventInput): void {
    const full = { ...event, ts: event.ts ?? Date.now() } as CorralEvent;
    for (const listener of this.listeners) {
      try {
        listener(full);
      } catch {
        // A faulty listener must not stop the others or the core.
      }
    }
    if (this.subscriptions.size === 0) return;
    const start = performance.now();
    for (const subscription of this.subscriptions) {
      if (subscription.accepts(full)) subscription.push(full);
    }
    this.fanOutTimes.add(performance.now() - start);
  }

  get subscriberCount(): number {
    return this.subscriptions.size;
  }
}
