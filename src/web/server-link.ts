/**
 * `corral web`'s connections to the session's server (SPEC §16): it is a client like `corral
 * attach`, over the same private socket. One connection says hello (which fixes whether this
 * web view's keys are a person's), follows the event stream and carries input; the fleet is
 * read again after events, one read in flight at a time, so a burst of events costs a read or
 * two, not one each; a status change goes to the pages from the event itself. Each pane a page watches gets a connection of its own for its stream.
 */
import { RpcClient } from '../rpc/client.js';
import { EVENT_NOTIFICATION, PANE_WATCH_NOTIFICATION, type PaneWatchMessage, type WebFleet, type WebHello } from '../contract/protocol.js';
import { patchStatus, type StatusEvent } from './fleet-order.js';

export const LINK_LIMITS = {
  /**
   * Least time between two fleet reads: a flood of events (output in a hundred panes) costs at
   * most 10 reads a second. Status changes do not wait for it: they go out from the event.
   */
  minRefreshGapMs: 100,
} as const;

export class ServerLink {
  private current: WebFleet = { scripting: false, agents: [], panes: [] };
  private readonly listeners = new Set<(fleet: WebFleet, change: StatusEvent | null) => void>();
  private reading = false;
  private dirty = false;
  private lastReadAt = 0;
  private gapTimer: NodeJS.Timeout | null = null;
  private closed = false;
  /**
   * The latest status event per pane: a read that started before it arrived reports the old
   * status, so the event is laid over that read's result rather than undone by it.
   */
  private readonly patches = new Map<string, { event: StatusEvent; at: number }>();

  private constructor(
    private readonly client: RpcClient,
    private readonly socketPath: string,
    readonly hello: WebHello,
  ) {}

  /** Connects, says hello, reads the fleet and starts following events. */
  static async open(socketPath: string): Promise<ServerLink> {
    const client = await RpcClient.connect(socketPath);
    const hello = await client.call('web.hello', {});
    const link = new ServerLink(client, socketPath, hello);
    client.onNotification((method, params) => {
      if (method !== EVENT_NOTIFICATION) return;
      // A status change goes to the pages at once, from the event itself; the full read follows.
      const patched = patchStatus(link.current, params as StatusEvent);
      if (patched) {
        link.patches.set((params as StatusEvent).pane_id!, { event: params as StatusEvent, at: Date.now() });
        link.publish(patched, params as StatusEvent);
      }
      link.refresh();
    });
    await client.call('events.subscribe', {});
    link.current = await client.call('web.fleet', {});
    return link;
  }

  get fleet(): WebFleet {
    return this.current;
  }

  /** Each new fleet; `change` is the status event it came from, when it came from one (pages get only that). */
  onFleet(listener: (fleet: WebFleet, change: StatusEvent | null) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  onClose(listener: () => void): void {
    this.client.onClose(() => listener());
  }

  /** Reads the fleet again soon (now, when none is in flight and the last was long enough ago). */
  refresh(): void {
    if (this.closed) return;
    this.dirty = true;
    if (this.reading || this.gapTimer) return;
    const wait = this.lastReadAt + LINK_LIMITS.minRefreshGapMs - Date.now();
    if (wait > 0) {
      this.gapTimer = setTimeout(() => {
        this.gapTimer = null;
        this.refresh();
      }, wait);
      return;
    }
    this.dirty = false;
    this.reading = true;
    const startedAt = (this.lastReadAt = Date.now());
    this.client
      .call('web.fleet', {})
      .then((read) => {
        let fleet = read;
        for (const [pane, patch] of this.patches) {
          if (patch.at < startedAt) this.patches.delete(pane);
          else fleet = patchStatus(fleet, patch.event) ?? fleet;
        }
        this.publish(fleet);
      })
      .catch(() => {
        // The server went away: onClose ends `corral web`.
      })
      .finally(() => {
        this.reading = false;
        if (this.dirty) this.refresh();
      });
  }

  private publish(fleet: WebFleet, change: StatusEvent | null = null): void {
    this.current = fleet;
    for (const listener of this.listeners) listener(fleet, change);
  }

  /** A person's keys for a pane; refused by the server unless they may pass (SPEC §8). */
  input(paneId: string, data: string): Promise<unknown> {
    return this.client.call('web.input', { pane_id: paneId, data });
  }

  /** One of a blocked agent's declared answers. */
  answer(paneId: string, label: string): Promise<unknown> {
    return this.client.call('web.input', { pane_id: paneId, answer: label });
  }

  /** Follows one pane's screen on a connection of its own; returns the stop function. */
  async watch(paneId: string, onMessage: (message: PaneWatchMessage) => void): Promise<() => void> {
    const client = await RpcClient.connect(this.socketPath);
    client.onNotification((method, params) => {
      if (method === PANE_WATCH_NOTIFICATION) onMessage(params as PaneWatchMessage);
    });
    try {
      await client.call('pane.watch', { pane_id: paneId });
    } catch (error) {
      client.close();
      throw error;
    }
    return () => client.close();
  }

  close(): void {
    this.closed = true;
    if (this.gapTimer) clearTimeout(this.gapTimer);
    this.client.close();
  }
}
