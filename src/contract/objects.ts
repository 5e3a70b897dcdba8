/**
 * The objects the API returns (SPEC §5 "Objects") and the results of the Conductor-style
 * methods as the CLI reads them. Types only, plus the status vocabularies.
 */
import type { AgentWorktree } from './worktrees.js';

export type SplitDirection = 'right' | 'down';

/** Canonical agent status (herdr vocabulary) plus corral's errored/stalled. */
export type AgentStatus = 'idle' | 'working' | 'blocked' | 'done' | 'unknown' | 'errored' | 'stalled';
export const AGENT_STATUSES: readonly AgentStatus[] = ['idle', 'working', 'blocked', 'done', 'unknown', 'errored', 'stalled'];

/** Conductor vocabulary for the same status. */
export type ConductorState =
  | 'thinking'
  | 'waiting_for_input'
  | 'finished'
  | 'idle'
  | 'unknown_running'
  | 'errored'
  | 'stalled';

export const CONDUCTOR_STATE: Record<AgentStatus, ConductorState> = {
  working: 'thinking',
  blocked: 'waiting_for_input',
  done: 'finished',
  idle: 'idle',
  unknown: 'unknown_running',
  errored: 'errored',
  stalled: 'stalled',
};

/** Token counts (SPEC §18): of one model call, a turn, or an agent's whole session. */
export interface TokenCounts {
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
}

/** What an agent spent, from its own record (SPEC §18). */
export interface AgentUsage extends TokenCounts {
  total: number;
  calls: number;
  /** The last call's input plus cache: how full the context is. */
  context_tokens: number;
  context_window?: number;
  /** Only where the record itself carries a cost. */
  cost_usd?: number;
}

/** One turn's row of `agent usage` (SPEC §18). */
export interface UsageTurn extends TokenCounts {
  turn: number;
  started_at: number | null;
  /** The turn's prompt, its first 80 characters. */
  prompt: string;
  total: number;
  calls: number;
}

/** Where an agent's usage is read from: its session record, its SQLite store, or nowhere corral knows. */
export type UsageSourceKind = 'record' | 'sqlite' | 'unsupported';

/** What a budget is on: one turn, the agent's total, or a flow's agents summed. */
export type BudgetScope = 'turn' | 'agent' | 'flow';

/** A budget the agent crossed (SPEC §18). */
export interface BudgetExceeded {
  limit: number;
  used: number;
  scope: BudgetScope;
  at: number;
}

/** `agent.usage` (SPEC §18): every turn of the agent, and the total. */
export interface AgentUsageReport {
  agent: string;
  pane_id: string;
  usage_source: UsageSourceKind;
  total: AgentUsage | null;
  turns: UsageTurn[];
  /** The agent's own budget (`agent budget`), when set. */
  budget_tokens: number | null;
}

export interface AgentInfo {
  pane_id: string;
  surface_id: number;
  workspace_id: string;
  tab_id: string;
  name: string | null;
  kind: string;
  pid: number | null;
  agent_status: AgentStatus;
  state: ConductorState;
  seen: boolean;
  hooked: boolean;
  interactive_ready: boolean;
  state_change_seq: number;
  completion_seq?: number;
  cwd: string;
  message: string | null;
  active_tool_name: string | null;
  last_result: string | null;
  /** The agent's own session id (from its hooks), when known: what resumes it (SPEC §13). */
  session_id?: string;
  /** Where the screen verdict's rules come from, when screen rules decided (not hooks). */
  rules?: 'verified' | 'unverified' | 'generic';
  /**
   * Whether corral can resume the agent's own session by id (SPEC §13): `supported` when its
   * kind's rule file has `[resume]`; `unsupported` for an unknown CLI, whose resume command
   * corral does not guess.
   */
  resume: 'supported' | 'unsupported';
  /** The corral worktree its pane works in (SPEC §15), when there is one. */
  worktree?: AgentWorktree;
  /** What it spent, from its own record (SPEC §18); null when unknown (yet, or unsupported). */
  usage: AgentUsage | null;
  /** This turn's usage so far; null when unknown. */
  turn_usage: AgentUsage | null;
  usage_source: UsageSourceKind;
  /** Its total budget (`agent budget`), when set. */
  budget_tokens: number | null;
  /** The budget it crossed, until a new prompt (a turn's) or a raised or cleared budget (its own). */
  budget_exceeded: BudgetExceeded | null;
}

export interface PaneInfo {
  pane_id: string;
  surface_id: number;
  workspace_id: string;
  tab_id: string;
  name: string | null;
  cwd: string;
  cmd: string;
  focused: boolean;
  rows: number;
  cols: number;
  zoomed: boolean;
  exited: boolean;
  exit_code: number | null;
  /** The signal that ended the pane's process (`SIGKILL`), null when it exited by itself. */
  exit_signal: string | null;
  agent?: AgentInfo;
}

export interface TabInfo {
  tab_id: string;
  workspace_id: string;
  label: string;
  focused: boolean;
  panes: string[];
  focused_pane_id: string;
  agent_status: AgentStatus | null;
}

export interface WorkspaceInfo {
  workspace_id: string;
  label: string;
  cwd: string;
  focused: boolean;
  tabs: string[];
  focused_tab_id: string;
  agent_status: AgentStatus | null;
}

export type ReadSource = 'visible' | 'recent' | 'recent-unwrapped' | 'detection';
export const READ_SOURCES: readonly ReadSource[] = ['visible', 'recent', 'recent-unwrapped', 'detection'];
export type ReadFormat = 'text' | 'ansi';

export interface PaneRead {
  pane_id: string;
  workspace_id: string;
  tab_id: string;
  source: ReadSource;
  format: ReadFormat;
  text: string;
  revision: number;
  truncated: boolean;
}

/**
 * Where `agent.read` with `answer` found the answer: the agent's own session record, its screen
 * by its kind's rules, or (an agent corral has no rules for) its screen cut by what corral saw
 * around the turn (`screen-generic`, issue 43).
 */
export type AnswerSource = 'session' | 'screen' | 'screen-generic';

/**
 * `agent.read`'s result: a pane read; with `answer`, `text` is what the agent answered (its
 * last `turns` answers, joined by blank lines) and `answers` each of them, oldest first.
 */
export interface AgentRead extends PaneRead {
  answer_source?: AnswerSource;
  answers?: string[];
}

export interface SurfaceRow {
  /** The machine the pane runs on (SPEC §14); null for this one. */
  machine: string | null;
  surface_id: number;
  pane_id: string;
  name: string | null;
  title: string;
  cwd: string;
  cmd: string;
  workspace: string;
  tab: string;
  focused: boolean;
}

// ---------------------------------------------------------------------------
// Results of the Conductor-style methods (SPEC §5), as the CLI reads them.

/** One row of `fleet.list`. */
export interface FleetRow {
  /** The machine the agent runs on (SPEC §14); null for this one. */
  machine: string | null;
  pid: number | null;
  tool: string;
  state: ConductorState;
  agent_status: AgentStatus;
  hooked: boolean;
  reason: 'hook' | 'screen' | 'no_hook';
  /** With reason `screen`: whether the rules that decided are verified, unverified guesses or generic. */
  rules?: 'verified' | 'unverified' | 'generic';
  surface_id: number;
  pane_id: string;
  surface_name: string | null;
  name: string | null;
  workspace: string;
  active_tool_name: string | null;
  message: string | null;
  last_result: string | null;
  waiting_ms: number | null;
  idle_ms: number | null;
  state_change_seq: number;
  /** null until the agent finished a turn (always present in a row, unlike on `agent`). */
  completion_seq: number | null;
  /** The corral worktree the agent works in (SPEC §15), when there is one. */
  worktree?: AgentWorktree;
  /** What it spent (SPEC §18); null when unknown. Absent in rows of machines that predate it. */
  usage?: AgentUsage | null;
}

export interface FleetListResult {
  agents: FleetRow[];
}

export interface SurfaceListResult {
  surfaces: SurfaceRow[];
}

/** `surface.status`; a pane with no agent has `tool: null` and `state: 'idle'`. */
export interface SurfaceStatus {
  surface_id: number;
  pane_id: string;
  state: ConductorState;
  agent_status: AgentStatus | null;
  hooked: boolean;
  tool: string | null;
  active_tool_name: string | null;
  message: string | null;
  last_result: string | null;
  waiting_ms: number | null;
  idle_ms: number | null;
  output_generation: number;
  /** With an agent: its name and sequence numbers, as on `agent`. */
  name?: string | null;
  state_change_seq?: number;
  completion_seq?: number;
}

/** `surface.read`. */
export interface SurfaceReadResult {
  text: string;
  /** Lines returned in `text`. */
  lines: number;
  total_lines: number;
  eof: boolean;
  output_generation: number;
  /**
   * Absolute count of lines ever written to the pane (monotonic, survives scrollback
   * trimming): the returned lines are `end_line - lines … end_line - 1`. `wait --pattern`
   * uses it to tell new output from old.
   */
  end_line: number;
  /**
   * `source: "recent-unwrapped"` only: the absolute row (counted like `end_line`) where each
   * returned logical line starts, so `wait --pattern` can match soft-wrapped lines whole.
   */
  line_starts?: number[];
  /** Whether `text` is wrapped in the untrusted-output fence (SPEC §8). */
  fenced: boolean;
}

export interface SurfaceSearchResult {
  matches: { line: number; text: string }[];
  truncated: boolean;
}

export interface SurfaceSendTextResult {
  sent: boolean;
  length: number;
  submitted: boolean;
  paste: boolean;
  /** With `all`: one entry per pane the text went to. */
  surfaces?: ({ surface_id: number } & Omit<SurfaceSendTextResult, 'surfaces'>)[];
}

export interface SurfaceFocusResult {
  focused: boolean;
  surface_id: number;
  pane_id: string;
}

/** `pane.read`. */
export interface PaneReadResult {
  read: PaneRead;
}

/** One attached client (`client.list`, SPEC §1). */
export interface ClientInfo {
  client_id: string;
  /** The most recently active client: tabs are laid out for its size. */
  active: boolean;
  pid: number;
  tty: string;
  cols: number;
  rows: number;
  workspace_id: string | null;
  tab_id: string | null;
  term: string;
  /** Colours its terminal shows, as negotiated at attach: frames to it use no more (docs/clients.md). */
  colors: 16 | 256 | 16777216;
  attached_at: number;
  idle_ms: number;
  /** The server reads and writes this client's terminal itself (direct tty), not through the client (docs/clients.md). */
  direct: boolean;
  /**
   * Why this client's input does not reach panes now (SPEC §8: attached from inside a pane, or
   * with no terminal, while the scripting gate is closed), or null when it types.
   */
  view_only: string | null;
}

/** A machine link's state (SPEC §14). */
export const MACHINE_STATES = ['connecting', 'connected', 'reconnecting', 'unreachable', 'disabled'] as const;
export type MachineState = (typeof MACHINE_STATES)[number];

/**
 * The machine protocol: what a link and `corral bridge` speak on top of the socket's JSON-RPC
 * (the mirror methods, forwarding). A remote with another number is `unreachable` until the
 * same version is installed there (`corral machine install`).
 */
export const MACHINE_PROTOCOL = 1;

/** One saved machine and its link, as `machine.list` reports it (SPEC §14). */
export interface MachineInfo {
  name: string;
  label: string;
  target: string;
  session: string;
  enabled: boolean;
  state: MachineState;
  /** Round trip of the last ping through the link, null before one. */
  latency_ms: number | null;
  remote_version: string | null;
  /** Live agents on that machine, from its fleet. */
  agents: number;
  /** What went wrong last, with what to run about it; null when nothing did. */
  last_error: string | null;
}

// ---------------------------------------------------------------------------
// The mirror (SPEC §14): what a machine's server sends the server that mirrors it, as
// `mirror.event` notifications on the link after `mirror.subscribe`.

/** A tab's split layout, as the mirror carries it. */
export type MirrorLayout =
  | { kind: 'leaf'; paneId: string }
  | { kind: 'split'; direction: 'right' | 'down'; ratio: number; first: MirrorLayout; second: MirrorLayout };

export interface MirrorWorkspace {
  id: string;
  label: string;
  cwd: string;
  tabs: string[];
  focused_tab: string;
}

export interface MirrorTab {
  id: string;
  workspace_id: string;
  label: string;
  layout: MirrorLayout;
  focused_pane: string;
  zoomed_pane: string | null;
}

export interface MirrorPane {
  id: string;
  surface_id: number;
  workspace_id: string;
  tab_id: string;
  name: string | null;
  cwd: string;
  cmd: string;
  title: string;
  agent: { kind: string; name: string | null; status: AgentStatus; seen: boolean; message: string | null } | null;
}

export type MirrorMessage =
  /** Everything but the screens: sent first and again after every structural change. */
  | { kind: 'structure'; workspaces: MirrorWorkspace[]; tabs: MirrorTab[]; panes: MirrorPane[]; focused_workspace: string | null }
  /** A pane as it is, at batch `seq`: write `data` into a fresh terminal of `cols` × `rows`. */
  | { kind: 'snapshot'; surface_id: number; seq: number; cols: number; rows: number; data: string }
  /** The pane's batch `seq`: bytes it printed (base64). */
  | { kind: 'output'; surface_id: number; seq: number; data: string }
  /** The pane's batch `seq`: it was resized. */
  | { kind: 'resize'; surface_id: number; seq: number; cols: number; rows: number }
  /** Keys up to `pane.input` number `input` were taken, and the output that followed them sent (predicted echo); `quiet`: none followed. */
  | { kind: 'ack'; surface_id: number; input: number; quiet?: true };

/** The notification that carries one `MirrorMessage`. */
export const MIRROR_NOTIFICATION = 'mirror.event';
