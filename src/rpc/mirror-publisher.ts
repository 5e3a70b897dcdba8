/**
 * The far side of a mirror (SPEC §14): on a machine link's connection, after
 * `mirror.subscribe`, this server sends its structure (workspaces, tabs, layouts, panes and
 * their agents), each pane's screen — its numbered batches from where the mirror left off when
 * it still has them, else a fresh snapshot — and then every batch as it is made, in order.
 *
 * Bounded: while the link's socket holds more than `MIRROR_LIMITS.backlogBytes` unsent, a
 * pane's new batches are not queued; the pane is marked stale and gets one fresh snapshot when
 * the link drains (a mirror that fell too far behind re-snapshots instead of buffering without
 * end). A slow or stalled link therefore costs this server a bounded buffer, never its panes.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { Disposable } from '../contract/disposable.js';
import { MIRROR_NOTIFICATION, type MirrorLayout, type MirrorMessage, type MirrorPane, type MirrorTab, type MirrorWorkspace } from '../contract/protocol.js';
import type { LayoutNode } from '../session/layout.js';
import type { PaneRecord } from '../session/model.js';
import type { NotificationStream } from './handlers/context.js';
import type { MirrorEntry, MirrorLog } from './mirror-log.js';

export const MIRROR_LIMITS = {
  /** Unsent bytes on the link past which a pane's batches are dropped for a later snapshot. */
  backlogBytes: 4 * 1024 * 1024,
  /** Structural changes come in bursts (a split emits several events): one resend per burst. */
  structureDebounceMs: 10,
} as const;

/** Events after which the mirror's structure is sent again. */
const STRUCTURAL = /^(workspace|tab|pane)\.|^agent\./;

function layoutOf(node: LayoutNode): MirrorLayout {
  return node.kind === 'leaf' ? { kind: 'leaf', paneId: node.paneId } : { kind: 'split', direction: node.direction, ratio: node.ratio, first: layoutOf(node.first), second: layoutOf(node.second) };
}

/** The structure message: everything but the screens. */
export function structureOf(core: CorralCore): MirrorMessage {
  const model = core.model;
  const workspaces: MirrorWorkspace[] = [...model.workspaces.values()].map((w) => ({ id: w.id, label: w.label, cwd: w.cwd, tabs: [...w.tabs], focused_tab: w.focusedTab }));
  const tabs: MirrorTab[] = [...model.tabs.values()].map((t) => ({ id: t.id, workspace_id: t.workspaceId, label: t.label, layout: layoutOf(t.layout), focused_pane: t.focusedPane, zoomed_pane: t.zoomedPane }));
  const panes: MirrorPane[] = [...model.panes.values()].map((p) => paneOf(core, p));
  return { kind: 'structure', workspaces, tabs, panes, focused_workspace: model.focusedWorkspace };
}

function paneOf(core: CorralCore, pane: PaneRecord): MirrorPane {
  const agent = core.agents.agentIn(pane);
  let title = '';
  try {
    title = core.view(pane).title;
  } catch {
    // The pane's process is gone: no title.
  }
  return {
    id: pane.id,
    surface_id: pane.surfaceId,
    workspace_id: pane.workspaceId,
    tab_id: pane.tabId,
    name: pane.name,
    cwd: core.paneCwd(pane),
    cmd: core.paneCommand(pane),
    title,
    agent: agent ? { kind: agent.kind, name: agent.name, status: agent.state.status, seen: agent.state.seen, message: agent.state.snapshot().message ?? null } : null,
  };
}

export class MirrorPublisher {
  /** Panes whose batches were dropped while the link was backed up: a snapshot is owed. */
  private readonly stale = new Set<number>();
  /** Panes the mirror has been sent (a snapshot or its resume); new ones get a snapshot. */
  private readonly sent = new Set<number>();
  private structureTimer: NodeJS.Timeout | null = null;
  private readonly disposers: Array<() => void> = [];
  private disposed = false;

  constructor(
    private readonly core: CorralCore,
    private readonly log: MirrorLog,
    private readonly stream: NotificationStream,
    /** Rows of scrollback a snapshot carries (the server's persist_scrollback_lines). */
    private readonly historyLines: number,
  ) {}

  /** Sends the structure and every pane (resumed from `resume[surface_id]` where the log still can), then follows. */
  start(resume: Readonly<Record<string, number>>): void {
    this.send(structureOf(this.core));
    for (const pane of this.core.model.panes.values()) {
      const from = resume[String(pane.surfaceId)];
      const entries = typeof from === 'number' ? this.log.since(pane.surfaceId, from) : null;
      if (entries === null) this.snapshot(pane);
      else for (const entry of entries) this.sendEntry(pane.surfaceId, entry);
      this.sent.add(pane.surfaceId);
    }
    this.disposers.push(this.log.onEntry((surfaceId, entry) => this.onEntry(surfaceId, entry)));
    const listener: Disposable = this.core.listen((event) => {
      if (STRUCTURAL.test(event.type)) this.scheduleStructure();
    });
    this.disposers.push(() => listener.dispose());
    this.stream.onDrain(() => this.onDrain());
  }

  private onEntry(surfaceId: number, entry: MirrorEntry): void {
    if (this.disposed || !this.sent.has(surfaceId) || this.stale.has(surfaceId)) return;
    if (this.stream.backlog() > MIRROR_LIMITS.backlogBytes) {
      this.stale.add(surfaceId);
      return;
    }
    this.sendEntry(surfaceId, entry);
  }

  private onDrain(): void {
    if (this.disposed) return;
    for (const surfaceId of [...this.stale]) {
      if (this.stream.backlog() > MIRROR_LIMITS.backlogBytes) return;
      this.stale.delete(surfaceId);
      const pane = this.core.model.paneBySurface(surfaceId);
      if (pane) this.snapshot(pane);
    }
  }

  private scheduleStructure(): void {
    if (this.structureTimer || this.disposed) return;
    this.structureTimer = setTimeout(() => {
      this.structureTimer = null;
      if (this.disposed) return;
      this.send(structureOf(this.core));
      // Panes that appeared since: their screens follow their place in the structure.
      for (const pane of this.core.model.panes.values()) {
        if (this.sent.has(pane.surfaceId)) continue;
        this.sent.add(pane.surfaceId);
        this.snapshot(pane);
      }
      for (const id of [...this.sent]) if (!this.core.model.paneBySurface(id)) this.sent.delete(id);
    }, MIRROR_LIMITS.structureDebounceMs);
  }

  private snapshot(pane: PaneRecord): void {
    let view;
    try {
      view = this.core.view(pane);
    } catch {
      return;
    }
    this.send({ kind: 'snapshot', surface_id: pane.surfaceId, seq: this.log.seq(pane.surfaceId), cols: view.cols, rows: view.rows, data: view.mirrorSnapshot(this.historyLines) });
  }

  private sendEntry(surfaceId: number, entry: MirrorEntry): void {
    if (entry.kind === 'output') this.send({ kind: 'output', surface_id: surfaceId, seq: entry.seq, data: entry.data.toString('base64') });
    else this.send({ kind: 'resize', surface_id: surfaceId, seq: entry.seq, cols: entry.cols, rows: entry.rows });
  }

  private send(message: MirrorMessage): void {
    if (!this.disposed) this.stream.send(MIRROR_NOTIFICATION, message);
  }

  dispose(): void {
    this.disposed = true;
    if (this.structureTimer) clearTimeout(this.structureTimer);
    for (const dispose of this.disposers.splice(0)) dispose();
  }
}
