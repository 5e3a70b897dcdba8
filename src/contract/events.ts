/**
 * Events (SPEC §7): one discriminated union keyed by `type`, so an emitter cannot add a field
 * the contract does not name and a listener narrows on `type` to read the fields it carries.
 * The wire format is exactly these objects, one JSON line each, plus the control frames.
 */
import type { AgentStatus, AgentUsage, BudgetExceeded, ConductorState, MachineState } from './objects.js';

/** Lifecycle and activity events (SPEC §7). */
export const EVENT_TYPES = [
  'ai.session_start',
  'ai.prompt_submit',
  'ai.tool_use',
  'ai.notification',
  'ai.stop',
  'ai.exit',
  'ai.session_end',
  'surface_changed',
  'workspace.created',
  'workspace.closed',
  'tab.created',
  'tab.closed',
  'pane.created',
  'pane.closed',
  'pane.exited',
  'pane.moved',
  'pane.focused',
  'agent.detected',
  'agent.status_changed',
  // corral extensions, so a client (the TUI above all) can follow every visible change.
  'workspace.renamed',
  'tab.renamed',
  'pane.renamed',
  'pane.layout_changed',
  'scripting.changed',
  // The saved session (SPEC §13).
  'session.saved',
  'session.restored',
  'client.attached',
  'client.detached',
  // A machine's link changed state (SPEC §14).
  'machine.state_changed',
  // A worktree's branch or diff size changed (SPEC §15: the sidebar's `+added −removed`).
  'worktree.changed',
  // What an agent spent changed (at most one per agent per second), or it crossed a budget (SPEC §18).
  'agent.usage',
  'agent.budget_exceeded',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The `ai.*` events: hook notifications, and screen-detected transitions reported alike. */
export type AiEventType = Extract<EventType, `ai.${string}`>;

/** Where an event about one pane happened. */
export interface PaneRef {
  surface_id: number;
  pane_id: string;
  workspace: string;
}

/** Every agent event carries the agent's status at emission (SPEC §7). */
export interface AgentEventFields extends PaneRef {
  state: ConductorState;
  agent_status: AgentStatus;
  /** The agent kind (`claude`, `codex`, …). */
  tool: string;
  name: string | null;
  message: string | null;
  active_tool_name: string | null;
  state_change_seq: number;
  completion_seq?: number;
}

interface Timed {
  ts: number;
}

// -- structure --------------------------------------------------------------

export interface WorkspaceEvent extends Timed {
  type: 'workspace.created' | 'workspace.closed';
  workspace: string;
}

export interface WorkspaceRenamedEvent extends Timed {
  type: 'workspace.renamed';
  workspace: string;
  label: string;
}

export interface TabEvent extends Timed {
  type: 'tab.created' | 'tab.closed' | 'pane.layout_changed';
  workspace: string;
  tab: string;
}

export interface TabRenamedEvent extends Timed {
  type: 'tab.renamed';
  workspace: string;
  tab: string;
  label: string;
}

export interface PaneInTabEvent extends Timed, PaneRef {
  type: 'pane.created' | 'pane.focused';
  tab: string;
}

export interface PaneClosedEvent extends Timed, PaneRef {
  type: 'pane.closed';
}

export interface PaneExitedEvent extends Timed, PaneRef {
  type: 'pane.exited';
  exit_code: number | null;
  /** The signal that ended the pane's process (`SIGKILL`), null when it exited by itself. */
  exit_signal: string | null;
}

export interface PaneMovedEvent extends Timed, PaneRef {
  type: 'pane.moved';
  previous_pane_id: string;
  previous_workspace_id: string;
  previous_tab_id: string;
}

export interface PaneRenamedEvent extends Timed, PaneRef {
  type: 'pane.renamed';
  name: string | null;
}

/** A pane's output advanced (coalesced to one per `LIMITS.surfaceChangedMs` per pane). */
export interface SurfaceChangedEvent extends Timed, PaneRef {
  type: 'surface_changed';
  output_generation: number;
}

export interface ScriptingChangedEvent extends Timed {
  type: 'scripting.changed';
  scripting: boolean;
}

/** The session was written to its state file (SPEC §13). */
export interface SessionSavedEvent extends Timed {
  type: 'session.saved';
  path: string;
  bytes: number;
  /** Time from start to the file in place, and the part spent building the state on the event loop. */
  ms: number;
  build_ms: number;
}

/** The server started from a saved session. */
export interface SessionRestoredEvent extends Timed {
  type: 'session.restored';
  path: string | null;
  panes: number;
  problems: string[];
}

/** A thin client attached (SPEC §1). */
export interface ClientAttachedEvent extends Timed {
  type: 'client.attached';
  client_id: string;
  cols: number;
  rows: number;
  tty: string;
}

/** A client detached, or its terminal went away. */
export interface ClientDetachedEvent extends Timed {
  type: 'client.detached';
  client_id: string;
}

/** A machine's link changed state (SPEC §14); `machine` names it. */
export interface MachineStateChangedEvent extends Timed {
  type: 'machine.state_changed';
  machine: string;
  state: MachineState;
  previous_state: MachineState;
  latency_ms: number | null;
  remote_version: string | null;
  last_error: string | null;
}

/**
 * A worktree was made, merged, refreshed or removed (SPEC §15): its branch and diff size as
 * now known (`gone` when it is removed). Refreshed when an agent in it changes state,
 * never on a timer.
 */
export interface WorktreeChangedEvent extends Timed {
  type: 'worktree.changed';
  worktree: string;
  branch: string;
  added: number | null;
  removed: number | null;
  /** The worktree is gone (discarded or pruned). */
  gone: boolean;
}

// -- agents -----------------------------------------------------------------

/** An `ai.*` event, from the agent's hook or from the screen (SPEC §7). */
export interface AiEvent extends Timed, AgentEventFields {
  type: AiEventType;
  source: 'hook' | 'screen';
}

export interface AgentDetectedEvent extends Timed, AgentEventFields {
  type: 'agent.detected';
}

/**
 * `agent.status_changed` says why it was sent by exactly one field: the status moved
 * (`previous_status`), or it did not but something a waiter needs did — the agent's input
 * became live (`interactive_ready`), it was named or released (`renamed`), or it left the
 * pane (`gone`).
 */
export type AgentStatusChangedEvent = AgentStatusMoved | AgentInputReady | AgentRenamed | AgentGone;

interface AgentStatusChangedBase extends Timed, AgentEventFields {
  type: 'agent.status_changed';
}

/** The status moved from `previous_status` to `agent_status`. */
export interface AgentStatusMoved extends AgentStatusChangedBase {
  previous_status: AgentStatus;
}

/** Same status, but the agent's input just became live: `agent start` waits for this. */
export interface AgentInputReady extends AgentStatusChangedBase {
  interactive_ready: true;
}

/** The agent was named or released (`name` holds the new name). */
export interface AgentRenamed extends AgentStatusChangedBase {
  renamed: true;
}

/** The agent left the pane (exited, or another program took the foreground). */
export interface AgentGone extends AgentStatusChangedBase {
  gone: true;
}

/** What the agent spent changed: its record moved (a file watch), at most one per agent per second. */
export interface AgentUsageEvent extends Timed, PaneRef {
  type: 'agent.usage';
  /** The agent's name, or its pane id when it has none. */
  agent: string;
  usage: AgentUsage | null;
  turn_usage: AgentUsage | null;
}

/** The agent crossed a budget: corral pressed its interrupt keys (SPEC §18). */
export interface AgentBudgetExceededEvent extends Timed, AgentEventFields, BudgetExceeded {
  type: 'agent.budget_exceeded';
  agent: string;
}

/** Every event the server emits, discriminated by `type`. */
export type CorralEvent =
  | WorkspaceEvent
  | WorkspaceRenamedEvent
  | TabEvent
  | TabRenamedEvent
  | PaneInTabEvent
  | PaneClosedEvent
  | PaneExitedEvent
  | PaneMovedEvent
  | PaneRenamedEvent
  | SurfaceChangedEvent
  | ScriptingChangedEvent
  | SessionSavedEvent
  | SessionRestoredEvent
  | ClientAttachedEvent
  | ClientDetachedEvent
  | MachineStateChangedEvent
  | WorktreeChangedEvent
  | AiEvent
  | AgentDetectedEvent
  | AgentStatusChangedEvent
  | AgentUsageEvent
  | AgentBudgetExceededEvent;

/** An event as an emitter builds it: the bus stamps `ts`. */
export type EventInput = CorralEvent extends infer E ? (E extends CorralEvent ? Omit<E, 'ts'> & { ts?: number } : never) : never;

/** The event of one type. */
export type EventOf<T extends EventType> = Extract<CorralEvent, { type: T }>;

/** The pane an event is about, if it is about one (subscription filters read it). */
export function eventSurfaceId(event: CorralEvent): number | undefined {
  return 'surface_id' in event ? event.surface_id : undefined;
}

// Compile-time check: the union covers every listed type and no other.
type Missing = Exclude<EventType, CorralEvent['type']>;
type Extra = Exclude<CorralEvent['type'], EventType>;
type Exactly<T extends never> = T;
export type EventUnionCoversEventTypes = Exactly<Missing | Extra>;

/** Control frames interleaved with events on a subscription. */
export type ControlFrame =
  | { type: 'subscribed'; id: string }
  | { type: 'heartbeat'; ts: number }
  | { type: 'dropped'; count: number };

/** Name of the JSON-RPC notification that carries one event on a subscribed connection. */
export const EVENT_NOTIFICATION = 'events.event';
