/**
 * Notifications (SPEC §12): when an agent enters a state listed in `[notify] on` and its pane
 * is not in view — not visible in the focused tab of a focused TUI, the same rule that makes
 * `done` unseen (SPEC §4) — the agent gets a sidebar mark until its pane is looked at, each
 * attached TUI's terminal gets a desktop notification and a bell, and `[notify] command`
 * runs with the event as JSON on stdin. Muted panes never notify. One notifier per server
 * (started with it, so a headless `corral server` runs the command too); TUIs attach to it.
 *
 * Flicker: a state must hold for `settleMs` before it notifies (a blocked screen that turns
 * out to be working again 100 ms later is not news), and the same pane entering the same
 * state again within `repeatMs` notifies only once.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { Disposable } from '../contract/disposable.js';
import { eventSurfaceId, type AgentStatus, type CorralEvent } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import type { NotifyConfig } from '../config/schema.js';
import { notificationBytes } from './notify-text.js';
import { runNotifyCommand } from './notify-command.js';

export const NOTIFY_TIMING = {
  /** A state must hold this long to notify; screen detection can flicker for a frame or two. */
  settleMs: 300,
  /** The same pane and state notify at most once in this window (a burst of flicker). */
  repeatMs: 10_000,
} as const;

export interface NotifierOptions {
  /** What it reads of the core (a client's view of it, or the core itself). */
  core: Pick<CorralCore, 'isWatched' | 'listen' | 'paneBySurface'> & {
    agents: { agentIn(pane: PaneRecord): { kind: string; name: string | null; state: { status: AgentStatus; snapshot(): { message: string | null } } } | null };
  };
  config: NotifyConfig;
  timing?: Partial<typeof NOTIFY_TIMING>;
}

/** An attached TUI, as the notifier sees it. */
export interface NotifyClient {
  /** Writes bytes to the TUI's own terminal (the notification and the bell). */
  writeTerminal(bytes: string): void;
  /** Marks or mutes changed: the chrome should be redrawn. */
  onChange(): void;
  /** A problem with `[notify] command`, for the status line. */
  onError(message: string): void;
}

/** The JSON `[notify] command` reads on stdin. */
export interface NotificationEvent {
  type: 'notification';
  ts: number;
  agent_status: string;
  previous_status: string;
  surface_id: number;
  pane_id: string;
  workspace: string;
  tab: string;
  tool: string;
  name: string | null;
  message: string | null;
  title: string;
  body: string;
}

export class Notifier {
  private readonly muted = new Set<number>();
  private readonly marked = new Set<number>();
  private readonly pending = new Map<number, { status: string; previous: string; timer: NodeJS.Timeout }>();
  private readonly lastSent = new Map<string, number>();
  private readonly subscription: Disposable;
  private readonly timing: typeof NOTIFY_TIMING;
  private readonly clients = new Set<NotifyClient>();

  constructor(private readonly options: NotifierOptions) {
    this.timing = { ...NOTIFY_TIMING, ...options.timing };
    this.subscription = options.core.listen((event) => this.onEvent(event));
  }

  /** A TUI attaches to get notifications on its terminal and redraw on marks. */
  attach(client: NotifyClient): Disposable {
    this.clients.add(client);
    return { dispose: () => this.clients.delete(client) };
  }

  private changed(): void {
    for (const client of this.clients) client.onChange();
  }

  private commandFailed(message: string): void {
    if (this.clients.size === 0) process.stderr.write(`corral: ${message}\n`);
    for (const client of this.clients) client.onError(message);
  }

  /** Surfaces with a notification nobody has looked at yet. */
  isMarked(surfaceId: number): boolean {
    return this.marked.has(surfaceId);
  }

  isMuted(surfaceId: number): boolean {
    return this.muted.has(surfaceId);
  }

  /** Mutes or unmutes a pane; returns whether it is now muted. */
  toggleMute(surfaceId: number): boolean {
    const muted = !this.muted.has(surfaceId);
    if (muted) {
      this.muted.add(surfaceId);
      this.cancel(surfaceId);
      this.marked.delete(surfaceId);
    } else this.muted.delete(surfaceId);
    this.changed();
    return muted;
  }

  /** What the TUI shows changed: marks of panes now in view are cleared. */
  viewChanged(): void {
    let changed = false;
    for (const surfaceId of this.marked) {
      const pane = this.options.core.paneBySurface(surfaceId);
      if (!pane || this.options.core.isWatched(pane)) {
        this.marked.delete(surfaceId);
        changed = true;
      }
    }
    if (changed) this.changed();
  }

  dispose(): void {
    this.subscription.dispose();
    this.clients.clear();
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
  }

  private onEvent(event: CorralEvent): void {
    const surfaceId = eventSurfaceId(event);
    if (surfaceId === undefined) return;
    if (event.type === 'pane.closed') {
      this.cancel(surfaceId);
      this.muted.delete(surfaceId);
      if (this.marked.delete(surfaceId)) this.changed();
      return;
    }
    if (event.type === 'pane.focused') return this.viewChanged();
    if (event.type === 'agent.budget_exceeded') {
      // Like a blocked agent (SPEC §18), at once: the crossing is a fact, not a state that may flicker.
      if (this.muted.has(surfaceId)) return;
      const pane = this.options.core.paneBySurface(surfaceId);
      const agent = pane ? this.options.core.agents.agentIn(pane) : null;
      if (!pane || !agent) return;
      this.send(pane, agent, 'budget_exceeded', event.agent_status, `${event.scope} budget: ${event.used} of ${event.limit} tokens, interrupted`);
      return;
    }
    if (event.type !== 'agent.status_changed') return;
    const status = event.agent_status;
    const previous = 'previous_status' in event ? event.previous_status : undefined;
    // Only real transitions: renames and readiness updates repeat the current status.
    if (typeof status !== 'string' || typeof previous !== 'string' || status === previous) return;
    if (!this.options.config.on.includes(status)) {
      // Left the state before it settled: that was flicker.
      this.cancel(surfaceId);
      return;
    }
    if (this.muted.has(surfaceId)) return;
    this.cancel(surfaceId);
    const timer = setTimeout(() => this.settle(surfaceId), this.timing.settleMs);
    timer.unref();
    this.pending.set(surfaceId, { status, previous, timer });
  }

  private cancel(surfaceId: number): void {
    const pending = this.pending.get(surfaceId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.pending.delete(surfaceId);
  }

  /** The state held for settleMs: notify, unless it changed, the pane is in view, or it just did. */
  private settle(surfaceId: number): void {
    const pending = this.pending.get(surfaceId);
    this.pending.delete(surfaceId);
    if (!pending || this.muted.has(surfaceId)) return;
    const core = this.options.core;
    const pane = core.paneBySurface(surfaceId);
    const agent = pane ? core.agents.agentIn(pane) : null;
    if (!pane || !agent || agent.state.status !== pending.status || core.isWatched(pane)) return;
    const key = `${surfaceId}:${pending.status}`;
    const now = Date.now();
    if (now - (this.lastSent.get(key) ?? -Infinity) < this.timing.repeatMs) return;
    this.lastSent.set(key, now);
    this.send(pane, agent, pending.status, pending.previous, agent.state.snapshot().message ?? null);
  }

  /** Marks the pane and tells the attached terminals and the notify command. */
  private send(pane: PaneRecord, agent: { name: string | null; kind: string }, status: string, previous: string, message: string | null): void {
    const surfaceId = pane.surfaceId;
    const now = Date.now();
    this.marked.add(surfaceId);
    this.changed();
    const who = agent.name ? `${agent.name} (${agent.kind})` : agent.kind;
    const title = `corral: ${who} ${status}`;
    const body = `${who} in ${pane.id} is ${status}${message ? `: ${message}` : ''}`;
    const bytes = notificationBytes(title, body);
    for (const client of this.clients) client.writeTerminal(bytes);
    const command = this.options.config.command;
    if (command.trim() !== '') {
      const event: NotificationEvent = {
        type: 'notification',
        ts: now,
        agent_status: status,
        previous_status: previous,
        surface_id: surfaceId,
        pane_id: pane.id,
        workspace: pane.workspaceId,
        tab: pane.tabId,
        tool: agent.kind,
        name: agent.name,
        message,
        title,
        body,
      };
      runNotifyCommand(command, event, (message) => this.commandFailed(message));
    }
  }
}
