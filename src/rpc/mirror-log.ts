/**
 * Every pane's output as numbered batches, kept a while so that a machine's mirror can resume
 * after a reconnect from the last batch it has (SPEC §14). A batch is what the pane's terminal
 * parsed in one write, or a resize (both change what the screen shows, in this order). Each
 * pane keeps its latest batches up to a byte bound; a mirror asking for older ones gets a fresh
 * snapshot instead.
 *
 * Started by the first `mirror.subscribe` (a server that is never mirrored keeps nothing) and
 * kept for the server's life, so batches made while a link is down are there when it returns.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { Disposable } from '../contract/disposable.js';
import type { PaneRecord } from '../session/model.js';

export const MIRROR_LOG_LIMITS = {
  /** Batches kept per pane, in bytes of output: a few screens of a flood, many minutes of an agent. */
  bytesPerPane: 1024 * 1024,
} as const;

export type MirrorEntry = { seq: number; kind: 'output'; data: Buffer } | { seq: number; kind: 'resize'; cols: number; rows: number };

interface PaneLog {
  seq: number;
  entries: MirrorEntry[];
  bytes: number;
  subscriptions: Disposable[];
}

export class MirrorLog {
  private readonly panes = new Map<number, PaneLog>();
  private readonly listeners = new Set<(surfaceId: number, entry: MirrorEntry) => void>();
  private readonly coreListener: Disposable;

  constructor(private readonly core: CorralCore) {
    for (const pane of core.model.panes.values()) this.watch(pane);
    this.coreListener = core.listen((event) => {
      if (event.type === 'pane.created') {
        const pane = core.model.paneBySurface(event.surface_id);
        if (pane) this.watch(pane);
      } else if (event.type === 'pane.closed') {
        this.forget(event.surface_id);
      }
    });
  }

  /** The number of the pane's latest batch (0 before any). */
  seq(surfaceId: number): number {
    return this.panes.get(surfaceId)?.seq ?? 0;
  }

  /** The batches after `seq`, or null when some of them are no longer kept (take a snapshot). */
  since(surfaceId: number, seq: number): MirrorEntry[] | null {
    const log = this.panes.get(surfaceId);
    if (!log || seq > log.seq) return null;
    if (seq === log.seq) return [];
    const first = log.entries[0];
    if (!first || first.seq > seq + 1) return null;
    return log.entries.filter((entry) => entry.seq > seq);
  }

  /** Each new batch, as it is made; returns the disposer. */
  onEntry(listener: (surfaceId: number, entry: MirrorEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private watch(pane: PaneRecord): void {
    if (this.panes.has(pane.surfaceId)) return;
    let view;
    try {
      view = this.core.view(pane);
    } catch {
      return; // no process: nothing will be output
    }
    const log: PaneLog = { seq: 0, entries: [], bytes: 0, subscriptions: [] };
    this.panes.set(pane.surfaceId, log);
    const id = pane.surfaceId;
    log.subscriptions.push(
      view.onBeforeParse((data) => {
        const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
        this.add(id, log, { seq: ++log.seq, kind: 'output', data: bytes });
      }),
      view.onResize(({ cols, rows }) => this.add(id, log, { seq: ++log.seq, kind: 'resize', cols, rows })),
    );
  }

  private add(surfaceId: number, log: PaneLog, entry: MirrorEntry): void {
    log.entries.push(entry);
    if (entry.kind === 'output') log.bytes += entry.data.length;
    while (log.bytes > MIRROR_LOG_LIMITS.bytesPerPane && log.entries.length > 1) {
      const dropped = log.entries.shift()!;
      if (dropped.kind === 'output') log.bytes -= dropped.data.length;
    }
    for (const listener of this.listeners) listener(surfaceId, entry);
  }

  private forget(surfaceId: number): void {
    const log = this.panes.get(surfaceId);
    if (!log) return;
    for (const subscription of log.subscriptions) subscription.dispose();
    this.panes.delete(surfaceId);
  }

  dispose(): void {
    this.coreListener.dispose();
    for (const id of [...this.panes.keys()]) this.forget(id);
    this.listeners.clear();
  }
}

const logs = new WeakMap<CorralCore, MirrorLog>();

/** The core's mirror log, started the first time a mirror asks. */
export function mirrorLogOf(core: CorralCore): MirrorLog {
  let log = logs.get(core);
  if (!log) {
    log = new MirrorLog(core);
    logs.set(core, log);
  }
  return log;
}
