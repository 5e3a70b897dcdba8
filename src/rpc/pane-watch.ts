/**
 * One pane's screen as a stream (`pane.watch`, SPEC §16): the web view's live pane. A snapshot
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
import type { NotificationStream } from './handlers/context.js';

export const PANE_WATCH_LIMITS = {
  /** Unsent bytes past which batches are dropped for a later snapshot. */
  backlogBytes: 2 * 1024 * 1024,
  /** Rows of history a snapshot carries: a phone scrolls back a little, not a whole log. */
  historyLines: 500,
} as const;

export class PaneWatch {
  private readonly disposers: Disposable[] = [];
  private stale = false;
  private disposed = false;
  private readonly surfaceId: number;

  constructor(
    private readonly core: CorralCore,
    pane: Readonly<PaneRecord>,
    private readonly stream: NotificationStream,
  ) {
    this.surfaceId = pane.surfaceId;
  }

  /** Sends the snapshot and follows the pane until it closes or `dispose`. */
  start(): void {
    const pane = this.pane();
    if (!pane) return this.send({ kind: 'closed', pane_id: '' });
    let view;
    try {
      view = this.core.view(pane);
    } catch {
      return this.send({ kind: 'closed', pane_id: pane.id });
    }
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
        this.send({ kind: 'output', pane_id: this.paneId(), data: bytes.toString('base64') });
      }),
      view.onResize(({ cols, rows }) => this.send({ kind: 'resize', pane_id: this.paneId(), cols, rows })),
      this.core.listen((event) => {
        if (event.type === 'pane.closed' && event.surface_id === this.surfaceId) {
          this.send({ kind: 'closed', pane_id: event.pane_id });
          this.dispose();
        }
      }),
    );
    this.stream.onDrain(() => {
      if (!this.stale || this.disposed) return;
      this.stale = false;
      this.snapshot();
    });
  }

  private pane(): Readonly<PaneRecord> | undefined {
    return this.core.model.paneBySurface(this.surfaceId);
  }

  /** The pane's current id (ids change when a pane moves; the surface id does not). */
  private paneId(): string {
    return this.pane()?.id ?? '';
  }

  private snapshot(): void {
    const pane = this.pane();
    if (!pane) return;
    try {
      const view = this.core.view(pane);
      this.send({ kind: 'snapshot', pane_id: pane.id, cols: view.cols, rows: view.rows, data: view.mirrorSnapshot(PANE_WATCH_LIMITS.historyLines) });
    } catch {
      // The pane's process is gone between the event and here: `closed` follows.
    }
  }

  private send(message: PaneWatchMessage): void {
    if (!this.disposed) this.stream.send(PANE_WATCH_NOTIFICATION, message);
  }

  dispose(): void {
    this.disposed = true;
    for (const disposer of this.disposers.splice(0)) disposer.dispose();
  }
}
