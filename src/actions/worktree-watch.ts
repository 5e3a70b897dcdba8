/**
 * What the sidebar, the agent objects and `fleet.list` show of worktrees (SPEC §15): each
 * worktree agent's branch and `+added −removed`, kept current from events — never from a
 * timer. An agent's pane is placed in a worktree when the agent is detected or changes
 * state (one cached /proc read of its cwd); its worktree's diff size is refreshed when the
 * agent settles (idle, done, blocked, errored: a turn ended or it asks something) and after
 * corral's own merges. While agents sit idle nothing runs at all.
 *
 * Refreshes of one worktree never overlap: one asked for while another runs is done once
 * after it. Each refresh that changes a number says so with a `worktree.changed` event.
 */
import type { AgentStatus, AgentWorktree, CorralEvent } from '../contract/protocol.js';
import type { CorralCore, PaneWorktrees } from '../core/corral-core.js';
import type { Disposable } from '../contract/disposable.js';
import type { PaneRecord } from '../session/model.js';
import { isInside } from '../worktree/paths.js';
import type { WorktreeRecord, Worktrees } from '../worktree/worktrees.js';

/** Statuses that end a stretch of work: the files are worth counting again. */
const SETTLED: ReadonlySet<AgentStatus> = new Set(['idle', 'done', 'blocked', 'errored']);

interface Size {
  added: number | null;
  removed: number | null;
}

export class WorktreeWatch implements PaneWorktrees {
  private readonly records = new Map<string, WorktreeRecord>();
  private readonly sizes = new Map<string, Size>();
  /** The worktree each agent's pane works in (by surface id); null: in none. */
  private readonly placed = new Map<number, string | null>();
  /** Refreshes running, and whether another was asked for meanwhile. */
  private readonly refreshing = new Map<string, { again: boolean; done: Promise<void> }>();
  private listener: Disposable | null = null;
  /** Counted for the idle bench (docs/bench.md): git diff runs since start. */
  refreshes = 0;

  constructor(
    private readonly core: CorralCore,
    readonly worktrees: Worktrees,
  ) {}

  /** Loads the registry, places the agents already running and starts listening. */
  async start(): Promise<void> {
    this.listener = this.core.listen((event) => this.onEvent(event));
    for (const record of await this.worktrees.records()) this.records.set(record.name, record);
    for (const { pane } of this.core.agents.agents()) this.place(pane, true);
  }

  dispose(): void {
    this.listener?.dispose();
    this.listener = null;
  }

  /** What views show for the agent in `pane`, or null when it works in no corral worktree. */
  forPane(pane: PaneRecord): AgentWorktree | null {
    const name = this.placed.get(pane.surfaceId);
    const record = name ? this.records.get(name) : undefined;
    if (!record) return null;
    const size = this.sizes.get(record.name);
    return { name: record.name, branch: record.branch, added: size?.added ?? null, removed: size?.removed ?? null };
  }

  /** A worktree corral just made. */
  added(record: WorktreeRecord): void {
    this.records.set(record.name, record);
    for (const { pane } of this.core.agents.agents()) this.place(pane, false);
    void this.refresh(record.name);
  }

  /** A worktree corral removed. */
  removed(record: WorktreeRecord): void {
    this.records.delete(record.name);
    this.sizes.delete(record.name);
    for (const [surface, name] of this.placed) if (name === record.name) this.placed.set(surface, null);
    this.core.announce({ type: 'worktree.changed', worktree: record.name, branch: record.branch, added: null, removed: null, gone: true });
  }

  /** The record a directory is in, if any. */
  recordAt(dir: string): WorktreeRecord | null {
    for (const record of this.records.values()) if (isInside(dir, record.path)) return record;
    return null;
  }

  /** Counts the worktree's changes again (after its agent settled, or after a merge). */
  refresh(name: string): Promise<void> {
    const running = this.refreshing.get(name);
    if (running) {
      running.again = true;
      return running.done;
    }
    const entry = { again: false, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          await this.count(name);
        } while (entry.again);
      } finally {
        this.refreshing.delete(name);
      }
    })();
    this.refreshing.set(name, entry);
    return entry.done;
  }

  private async count(name: string): Promise<void> {
    const record = this.records.get(name);
    if (!record) return;
    this.refreshes += 1;
    let size: Size;
    try {
      const diff = await this.worktrees.diff(record, { patch: false });
      size = { added: diff.added, removed: diff.removed };
    } catch {
      // Gone or unreadable: the sidebar shows no numbers rather than stale ones.
      size = { added: null, removed: null };
    }
    const before = this.sizes.get(name);
    if (before && before.added === size.added && before.removed === size.removed) return;
    this.sizes.set(name, size);
    this.core.announce({ type: 'worktree.changed', worktree: name, branch: record.branch, ...size, gone: false });
  }

  /** Finds which worktree the agent's pane works in; returns its name when that changed. */
  private place(pane: PaneRecord, refresh: boolean): void {
    if (this.records.size === 0) {
      this.placed.set(pane.surfaceId, null);
      return;
    }
    // A fresh read: at detection the cached cwd can be from before the shell's `cd` into the
    // worktree (the setup ran in the pane just before), and nothing else would place it again
    // until the agent's state changed.
    const record = this.recordAt(this.core.paneCwd(pane, 0));
    const before = this.placed.get(pane.surfaceId);
    this.placed.set(pane.surfaceId, record?.name ?? null);
    if (record && (refresh || before !== record.name)) void this.refresh(record.name);
  }

  private onEvent(event: CorralEvent): void {
    if (event.type === 'pane.closed') {
      this.placed.delete(event.surface_id);
      return;
    }
    if (event.type !== 'agent.detected' && event.type !== 'agent.status_changed') return;
    const pane = this.core.paneBySurface(event.surface_id);
    if (!pane) return;
    const settled = event.type === 'agent.detected' || ('previous_status' in event && SETTLED.has(event.agent_status));
    this.place(pane, settled);
  }
}
