/**
 * One pane's screen as a stream (`pane.watch`, SPEC §16): the web view's live pane, of this
 * machine or of another one through this server's mirror of it. A snapshot
 * of the screen with its recent history (the same serialisation a machine's mirror gets), then
 * every batch of output as the pane's terminal parses it and every resize, in order, so the
 * page's xterm shows what the pane's headless terminal shows.
 *
 * Bounded like the mirror (src/rpc/mirror-publisher.ts): while the connection holds more than
 * `PANE_WATCH_LIMITS.backlogBytes` unsent, batches are dropped and one fresh snapshot is sent
 * once it drains — a slow phone costs the server a bounded buffer, never the pane.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { Disposable } from '../contract/disposable.js';
import { PANE_WATCH_NOTIFICATION, type PaneWatchMessage } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import type { PaneView } from '../terminal/pane-view.js';
import type { NotificationStream } from './handlers/context.js';

export const PANE_WATCH_LIMITS = {
  /** Unsent bytes past which batches are dropped for a later snapshot. */
  backlogBytes: 2 * 1024 * 1024,
  /** Rows of history a snapshot carries: a phone scrolls back a little, not a whole log. */
  historyLines: 500,
} as const;

/**
 * The pane a watch follows: one of this server's, or another machine's as this server's
 * mirror shows it (SPEC §14). Its id is read on every message (a local pane's id changes when
 * it moves); `view` is null once the pane is gone.
 */
export interface WatchedPane {
  id(): string;
  view(): PaneView | null;
  /** Calls back once when the pane closes (null: the source cannot tell, as for a mirror). */
  onClosed(listener: () => void): Disposable | null;
}

/** A pane of this server, followed by surface id. */
export function localPane(core: CorralCore, pane: Readonly<PaneRecord>): WatchedPane {
  const surfaceId = pane.surfaceId;
  const record = () => core.model.paneBySurface(surfaceId);
  return {
    id: () => record()?.id ?? pane.id,
    view: () => {
      const current = record();
      if (!current) return null;
      try {
        return core.view(current);
      } catch {
        return null; // its process is gone
      }
    },
    onClosed: (listener) =>
      core.listen((event) => {
        if (event.type === 'pane.closed' && event.surface_id === surfaceId) listener();
      }),
  };
}

export class PaneWatch {
  private readonly disposers: Disposable[] = [];
  private stale = false;
  private disposed = false;

  constructor(
    private readonly pane: WatchedPane,
    private readonly stream: NotificationStream,
  ) {}

  /** Sends the snapshot and follows the pane until it closes or `dispose`. */
  start(): void {
    const view = this.pane.view();
    if (!view) return this.send({ kind: 'closed', pane_id: this.pane.id() });
    this.snapshot();
    this.disposers.push(
      view.onBeforeParse((data) => {
        if (this.stale || this.disposed) return;
        if (this.stream.backlog() > PANE_WATCH_LIMITS.backlogBytes) {
          this.stale = true;
          return;
        }
        // Base64 of the bytes: a batch may end inside a UTF-8 character, which a JSON string cannot hold.
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        this.send({ kind: 'output', pane_id: this.pane.id(), data: bytes.toString('base64') });
      }),
      view.onResize(({ cols, rows }) => this.send({ kind: 'resize', pane_id: this.pane.id(), cols, rows })),
    );
    const closed = this.pane.onClosed(() => {
      this.send({ kind: 'closed', pane_id: this.pane.id() });
      this.dispose();
    });
    if (closed) this.disposers.push(closed);
    this.stream.onDrain(() => {
      if (!this.stale || this.disposed) return;
      this.stale = false;
      this.snapshot();
    });
  }

  private snapshot(): void {
    const view = this.pane.view();
    if (!view) return;
    this.send({ kind: 'snapshot', pane_id: this.pane.id(), cols: view.cols, rows: view.rows, data: view.mirrorSnapshot(PANE_WATCH_LIMITS.historyLines) });
  }

  private send(message: PaneWatchMessage): void {
    if (!this.disposed) this.stream.send(PANE_WATCH_NOTIFICATION, message);
  }

  dispose(): void {
    this.disposed = true;
    for (const disposer of this.disposers.splice(0)) disposer.dispose();
  }
}
