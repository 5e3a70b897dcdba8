/** What every RPC handler gets besides its params. */
import type { CorralCore } from '../../core/corral-core.js';
import type { FrameSink } from '../../core/event-bus.js';
import type { Params } from '../params.js';

export interface RequestContext {
  core: CorralCore;
  /** Aborted when the client's connection closes, ending its waits. */
  signal: AbortSignal;
  /** Where a subscription on this connection writes its frames. */
  sink: FrameSink;
  /** Runs after this request's response was written (subscriptions start there). */
  afterResponse(callback: () => void): void;
  /** Ties a resource's life to the connection. */
  onClose(callback: () => void): void;
  /** Marks the connection as holding a stream until it closes, so it is never closed as idle. */
  holdStream(): void;
}

export type Handler = (params: Params, ctx: RequestContext) => unknown | Promise<unknown>;
export type HandlerTable = Record<string, Handler>;
