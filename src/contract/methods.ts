/**
 * The method table (SPEC §5, §8): every method the server answers, declared once with its
 * params and result shapes, its gating, which params must be inert, whether it streams and
 * the CLI verb that calls it. From this one table come the server's handler table (a handler
 * per method, checked at start-up and by test/unit/method-table.test.ts), the scripting gate
 * (src/rpc/gate.ts), the typed client (`RpcClient.call`), `system.capabilities` and the
 * generated reference docs/methods.md (scripts/gen-methods-doc.mjs).
 */
import type { EventType } from './events.js';
import type {
  AgentInfo,
  AgentUsageReport,
  AgentStatus,
  ClientInfo,
  FleetListResult,
  PaneInfo,
  PaneRead,
  AgentRead,
  PaneReadResult,
  ReadFormat,
  ReadSource,
  SplitDirection,
  SurfaceFocusResult,
  SurfaceListResult,
  SurfaceReadResult,
  SurfaceSearchResult,
  SurfaceSendTextResult,
  SurfaceStatus,
  TabInfo,
  WorkspaceInfo,
  MachineInfo,
} from './objects.js';
import type { WebFleet, WebHello } from './web.js';
import type { AgentCheckpointsResult, CheckpointDiffResult, RewindResult } from './checkpoints.js';
import type { WorktreeCreated, WorktreeDiffResult, WorktreeInfo, WorktreeMergeResult, WorktreePruneResult, WorktreeRequest } from './worktrees.js';

/**
 * How the scripting gate (SPEC §8) treats a method. The gate's principle: with it closed,
 * nothing a caller sends can make a program already running in a pane act on text the
 * caller chose.
 * - `read`: touches no pane's input (reads, waits, listings); always allowed.
 * - `never`: allowed with the gate closed (structure, typing without submitting, starting
 *   an agent), but the caller text it carries must be inert (see `inert` and `words`).
 * - `when-submitting`: `never` unless the `submit` param is true, then `always`.
 * - `when-command`: `never` unless `kind` is `generic`, then `always`: the caller then names
 *   the program itself (`agent start --kind generic -- CMD`), which is running a command.
 * - `always`: submits input to a pane; refused with `scripting_disabled` while closed.
 * - `when-raising`: `never` when it sets or lowers a limit; raising or clearing one needs the
 *   gate (SPEC §18: a pane's program must not lift the limit on its own spending). The
 *   current limit is the server's, so the handler decides, through `requireGateToRaise`.
 * - `by-peer`: allowed, and what it may do is decided by where the calling process stands,
 *   read from the kernel (src/pty/peer-place.ts): a client attached from inside a pane or with
 *   no terminal is view-only while the gate is closed; a detach from inside a pane reaches
 *   only its own clients; a hook counts only for the pane it runs in; a worktree merge,
 *   discard or forced prune (work leaving a worktree for the user's branch, or thrown away)
 *   comes from outside every pane or needs the gate open (docs/worktrees.md).
 */
export type Gating = 'read' | 'never' | 'when-submitting' | 'when-command' | 'when-raising' | 'always' | 'by-peer';

export interface MethodSpec {
  gated: Gating;
  /**
   * Params holding caller text that reaches a pane or a name without the gate: while it is
   * closed they may hold printable characters and TAB only. A path: `text`, `panes.*.prompt`
   * (`*` walks an array); a string array param is checked item by item.
   */
  inert?: readonly string[];
  /**
   * The CLI verb a refusal names (`key`, `send --submit`); by default the method's own name
   * as the herdr-style CLI spells it (`pane.send_keys` → `pane send-keys`).
   */
  verb?: string;
  /**
   * Params typed at a shell prompt as separate quoted words (`agent.start` args): printable
   * characters only, gate open or not — a control cannot be typed as part of a word, and a
   * TAB would run the shell's completion, which may rewrite the line before its Enter.
   */
  words?: readonly string[];
}

/** A method's row in the table: its gating plus what the reference and the CLI need. */
export interface MethodEntry extends MethodSpec {
  /** One line for the reference (docs/methods.md). */
  summary: string;
  /** The `corral` verb that calls it, or null when only scripts call it. */
  cli: string | null;
  /** The reply is followed by a stream of notifications on the same connection. */
  streams?: true;
}

// ---------------------------------------------------------------------------
// Param shapes. The server checks every param at run time (src/rpc/params.ts); these types
// are what a well-formed request holds, so the typed client and the reference agree.

/** No params. */
export type NoParams = Record<string, never>;

/** A Conductor target: a selector (`3`, `agent:claude`, a pane id, a name) or a bare surface id. */
export type Target = string | number;

/** Which snapshot of a pane to read (SPEC §5 "Read sources"). */
export interface ReadParams {
  source?: ReadSource;
  lines?: number;
  format?: ReadFormat;
}

/** One pane of a `workspace.up` plan (an `up` file's `[[panes]]`, paths absolute). */
export interface UpPaneParams {
  cwd?: string;
  agent?: string;
  command?: string;
  name?: string;
  /** Typed into the agent once it is ready, not submitted. */
  prompt?: string;
  focus?: boolean;
  env?: Record<string, string>;
  /** A worktree of this name is made in the pane's repository and the pane starts in it (SPEC §15). */
  worktree?: string;
}

/** A parsed `up` file; `workspace` adds the panes to an existing workspace. */
export interface UpParams {
  name?: string;
  layout?: string;
  panes: UpPaneParams[];
  workspace?: string;
  workspace_id?: string;
}

/** Agent statuses `until` accepts: one or a list. */
export type UntilParam = AgentStatus | AgentStatus[];

type PaneId = { pane_id: string };
type TabId = { tab_id: string };
type WorkspaceId = { workspace_id: string };
type SurfaceTarget = { target: Target };
/** An agent: its name or any selector of its pane. */
type AgentTarget = { target: string };
/** A worktree corral made, by name. */
type WorktreeName = { name: string };
/** How `worktree.merge` brings the branch in, and the message of the commit of uncommitted work. */
type MergeParams = { mode?: 'merge' | 'squash' | 'rebase'; message?: string };
/** `patch: false` leaves the unified diff out (the files and counts only). */
type DiffParams = { patch?: boolean };

/** Params of every method, by name. */
export interface MethodParams {
  'system.ping': NoParams;
  'system.identify': NoParams;
  'system.capabilities': NoParams;
  'system.stats': NoParams;
  'fleet.list': NoParams;
  'surface.list': { workspace?: string; match?: string };
  'surface.status': SurfaceTarget;
  'surface.read': SurfaceTarget & { lines?: number; source?: ReadSource; raw?: boolean };
  'surface.search': SurfaceTarget & { pattern: string; regex?: boolean; max_matches?: number };
  'surface.send_text': SurfaceTarget & { text: string; submit?: boolean; all?: boolean };
  'surface.send_keys': SurfaceTarget & { keys: string[] };
  'surface.focus': SurfaceTarget;
  'surface.rename': SurfaceTarget & { name: string };
  'events.subscribe': { surfaces?: Target | Target[]; types?: EventType | string | (EventType | string)[] };
  'workspace.create': { cwd?: string; label?: string; focus?: boolean } & Partial<WorktreeRequest>;
  'workspace.up': UpParams;
  'workspace.list': NoParams;
  'workspace.get': WorkspaceId;
  'workspace.focus': WorkspaceId;
  'workspace.rename': WorkspaceId & { label: string };
  'workspace.close': WorkspaceId;
  'tab.create': { workspace?: string; label?: string; cwd?: string; focus?: boolean };
  'tab.list': { workspace?: string };
  'tab.get': TabId;
  'tab.focus': TabId;
  'tab.rename': TabId & { label: string };
  'tab.close': TabId;
  'pane.split': PaneId & { direction?: SplitDirection; ratio?: number; cwd?: string; focus?: boolean };
  'pane.move': PaneId & { workspace?: string; tab?: string; new_tab?: boolean; new_workspace?: boolean };
  'pane.list': { workspace?: string; tab?: string };
  'pane.get': PaneId;
  /** `pane_id` is the caller's CORRAL_PANE_ID; absent outside a pane (an error). */
  'pane.current': { pane_id?: string };
  'pane.focus': PaneId;
  'pane.rename': PaneId & { name: string };
  'pane.close': PaneId;
  'pane.zoom': PaneId & { zoom?: boolean };
  'pane.resize': PaneId & { direction?: 'left' | 'right' | 'up' | 'down'; amount?: number };
  'pane.swap': PaneId & { other_pane_id: string };
  'pane.read': PaneId & ReadParams;
  'pane.send_text': PaneId & { text: string };
  'pane.send_keys': PaneId & { keys: string[] };
  'pane.run': PaneId & { command: string };
  /** `new_only`: only a line that appears (or changes) after the wait began counts (`corral wait --pattern`). */
  'pane.wait_for_output': PaneId & ReadParams & { match: { type?: 'substring' | 'regex'; value: string }; timeout_ms?: number; new_only?: boolean };
  'agent.list': { workspace?: string; tab?: string };
  'agent.get': AgentTarget;
  'agent.rename': AgentTarget & { name: string };
  'agent.release': AgentTarget;
  'agent.focus': AgentTarget;
  'agent.explain': AgentTarget;
  /** `max_tokens`: its next turn's budget; `shared_budget`: a budget it shares with others (SPEC §18, flow and up files). */
  'agent.start': PaneId & { kind: string; name?: string; args?: string[]; timeout_ms?: number; prompt?: string; max_tokens?: number; shared_budget?: { name: string; tokens: number } } & Partial<WorktreeRequest>;
  /** `max_tokens`: this turn's budget (SPEC §18): crossing it interrupts the turn. */
  'agent.prompt': AgentTarget & { text: string; wait?: boolean; until?: UntilParam; timeout_ms?: number; max_tokens?: number };
  'agent.usage': AgentTarget;
  /** `tokens`: the agent's total budget; `clear`: none; with `shared`, the agent joins that shared budget (a flow's) of `tokens`. */
  'agent.budget': AgentTarget & { tokens?: number; clear?: boolean; shared?: string };
  'agent.wait': AgentTarget & { until?: UntilParam; timeout_ms?: number };
  /** `answer`: what the agent answered in its last `turns` (1..20, default 1) turns, from its session record or its screen. */
  'agent.read': AgentTarget & ReadParams & { answer?: boolean; turns?: number };
  'agent.send_keys': AgentTarget & { keys: string[] };
  /** `turn`: what that turn changed, from its checkpoint (SPEC §20); without it, the agent's worktree against its base (§15). */
  'agent.diff': AgentTarget & DiffParams & { turn?: number };
  'agent.merge': AgentTarget & MergeParams;
  /** `counts`: what each turn changed (files, lines), one git diff per checkpoint. */
  'agent.checkpoints': AgentTarget & { counts?: boolean };
  /** `to`: the checkpoint id to put the files back to. */
  'agent.rewind': AgentTarget & { to: number };
  /** `repo`: only the worktrees of the repository holding this directory. */
  'worktree.list': { repo?: string };
  'worktree.diff': WorktreeName & DiffParams;
  'worktree.merge': WorktreeName & MergeParams;
  'worktree.discard': WorktreeName;
  'worktree.prune': { dry_run?: boolean; force?: boolean };
  /** The thin client's hello (src/contract/frame-protocol.ts `ClientHello`; the handler checks it). */
  'client.attach': {
    protocol?: number;
    cols: number;
    rows: number;
    pid?: number;
    tty?: string;
    cwd?: string;
    term?: string;
    colorterm?: string;
    capabilities?: Record<string, boolean>;
  };
  'client.list': NoParams;
  'client.detach': { client_id?: string; all?: boolean; current?: boolean };
  'session.save': NoParams;
  'session.info': NoParams;
  'session.forget': NoParams;
  'machine.list': NoParams;
  'machine.reload': NoParams;
  'machine.read': PaneId & ReadParams;
  'mirror.subscribe': { resume?: Record<string, number> };
  'mirror.viewport': { cols: number; rows: number };
  /** `seq`: the link's number for these keys, acknowledged in the mirror stream (predicted echo). */
  'pane.input': { pane_id: string; data: string; seq?: number };
  'web.hello': NoParams;
  'web.fleet': { lines?: number };
  'pane.watch': PaneId;
  /** Exactly one of `data` (keys typed on the page) and `answer` (the label of one of the agent's `[answers]`). */
  'web.input': PaneId & { data?: string; answer?: string };
}

// ---------------------------------------------------------------------------
// Result shapes.

type Sent = { sent: boolean };
type OnePane = { pane: PaneInfo };
type OneTab = { tab: TabInfo };
type OneWorkspace = { workspace: WorkspaceInfo };
type OneAgent = { agent: AgentInfo };

/** `workspace.up`: the workspace and the panes it made, in the plan's order. */
export interface UpResult {
  workspace: WorkspaceInfo;
  panes: PaneInfo[];
  /** The worktrees made for panes with `worktree` (SPEC §15), in the plan's order. */
  worktrees?: WorktreeCreated[];
}

/** `pane.move`. */
export interface MoveResult {
  changed: boolean;
  pane: PaneInfo;
  previous_pane_id: string;
  previous_workspace_id: string;
  previous_tab_id: string;
}

/** `pane.wait_for_output`: the first matching line and the read it was found in. */
export interface WaitForOutputResult {
  pane_id: string;
  matched_line: string;
  read: PaneRead;
  revision: number;
}

/** Results of every method, by name. */
export interface MethodResults {
  'system.ping': { pong: true; version: string };
  'system.identify': { name: 'corral'; version: string; protocol: 'jsonrpc-2.0'; pid: number; socket: string; machine_protocol: number };
  'system.capabilities': { scripting: boolean; methods: MethodName[] };
  'system.stats': ServerStats;
  'fleet.list': FleetListResult;
  'surface.list': SurfaceListResult;
  'surface.status': SurfaceStatus;
  'surface.read': SurfaceReadResult;
  'surface.search': SurfaceSearchResult;
  'surface.send_text': SurfaceSendTextResult;
  'surface.send_keys': Sent;
  'surface.focus': SurfaceFocusResult;
  'surface.rename': { renamed: boolean; name: string | null };
  'events.subscribe': { type: 'subscribed'; id: string };
  'workspace.create': { workspace: WorkspaceInfo; tab: TabInfo; root_pane: PaneInfo; worktree?: WorktreeCreated };
  'workspace.up': UpResult;
  'workspace.list': { workspaces: WorkspaceInfo[] };
  'workspace.get': OneWorkspace;
  'workspace.focus': OneWorkspace;
  'workspace.rename': OneWorkspace;
  'workspace.close': { closed: true; workspace_id: string | undefined; panes: string[] };
  'tab.create': { tab: TabInfo; root_pane: PaneInfo };
  'tab.list': { tabs: TabInfo[] };
  'tab.get': OneTab;
  'tab.focus': OneTab;
  'tab.rename': OneTab;
  'tab.close': { closed: true; tab_id: string; panes: string[] };
  'pane.split': OnePane;
  'pane.move': { move_result: MoveResult };
  'pane.list': { panes: PaneInfo[] };
  'pane.get': OnePane;
  'pane.current': OnePane;
  'pane.focus': OnePane;
  'pane.rename': OnePane;
  'pane.close': { closed: true; pane_id: string };
  'pane.zoom': OnePane;
  'pane.resize': OnePane;
  'pane.swap': OnePane;
  'pane.read': PaneReadResult;
  'pane.send_text': Sent;
  'pane.send_keys': Sent;
  'pane.run': Sent;
  'pane.wait_for_output': WaitForOutputResult;
  'agent.list': { agents: AgentInfo[] };
  'agent.get': OneAgent;
  'agent.rename': OneAgent;
  'agent.release': OneAgent;
  'agent.focus': OneAgent;
  'agent.explain': OneAgent & { explanation: string };
  'agent.start': OneAgent & { argv: string[]; worktree?: WorktreeCreated };
  'agent.prompt': OneAgent;
  'agent.usage': AgentUsageReport;
  'agent.budget': OneAgent;
  'agent.wait': OneAgent;
  'agent.read': { read: AgentRead };
  'agent.send_keys': OneAgent;
  'agent.diff': WorktreeDiffResult | CheckpointDiffResult;
  'agent.merge': WorktreeMergeResult;
  'agent.checkpoints': AgentCheckpointsResult;
  'agent.rewind': RewindResult;
  'worktree.list': { worktrees: WorktreeInfo[] };
  'worktree.diff': WorktreeDiffResult;
  'worktree.merge': WorktreeMergeResult;
  'worktree.discard': { discarded: string; branch: string; path: string };
  'worktree.prune': WorktreePruneResult;
  'client.attach': { client_id: string; protocol: number };
  'client.list': { clients: ClientInfo[] };
  'client.detach': { detached: string[] };
  'session.save': { path: string; bytes: number };
  'session.info': SessionInfo;
  'session.forget': { path: string; forgotten: boolean };
  'machine.list': { machines: MachineInfo[]; file: string; problem: string | null };
  'machine.reload': { machines: MachineInfo[]; file: string; problem: string | null };
  'machine.read': PaneReadResult;
  'mirror.subscribe': { subscribed: true };
  'mirror.viewport': { applied: boolean };
  'pane.input': { sent: boolean };
  'web.hello': WebHello;
  'web.fleet': WebFleet;
  'pane.watch': { watching: true; pane_id: string };
  'web.input': { sent: boolean };
}

/** Percentiles of the latest durations of one kind (`system.stats`), in milliseconds. */
export interface DurationSummary {
  /** Every sample since the server started. */
  count: number;
  /** How many of the latest samples the percentiles are taken over (at most 512). */
  window: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}

/** One method's server-side times: wall time, and the CPU time the process used meanwhile. */
export interface RequestSummary extends DurationSummary {
  cpu_p50_ms: number;
  cpu_p95_ms: number;
}

/**
 * `system.stats`: what the server itself measures, for benchmarks and for a user asking why
 * it is slow or large. Request times are server-side: from the request line's parse to its
 * reply handed to the socket, without the client's socket hop.
 */
export interface ServerStats {
  uptime_s: number;
  /** `process.memoryUsage()` in bytes. */
  memory: { rss: number; heap_total: number; heap_used: number; external: number; array_buffers: number };
  /** Per method answered since start (single requests; batches are not timed). */
  requests: Partial<Record<MethodName, RequestSummary>>;
  /** Socket subscribers now, and the time to hand one event to all of them. */
  events: { subscribers: number; fan_out: DurationSummary };
  /**
   * Pane terminals given back while idle (docs/terminal.md "Hibernation"): asleep now, and
   * how many times one was put to sleep or rebuilt since start.
   */
  terminals: { asleep: number; hibernations: number; wakes: number };
}

/** `session.info`: where the session is saved, when, what it was restored from (SPEC §13). */
export interface SessionInfo {
  path: string;
  saved_at: string | null;
  restored_from: string | null;
  restored_at: string | null;
  problems: string[];
}

// ---------------------------------------------------------------------------
// The table.

/**
 * Every method the server answers — declared here once. The dispatcher enforces the gating
 * (src/rpc/gate.ts); test/integration/gate.test.ts walks it against a live server.
 */
export const METHOD_TABLE = {
  'system.ping': { gated: 'read', cli: null, summary: 'Liveness and the server version.' },
  'system.identify': { gated: 'read', cli: null, summary: 'Who answers: name, version, protocol, pid, socket.' },
  'system.capabilities': { gated: 'read', cli: null, summary: "The gate's state and every method name (this table)." },
  'system.stats': { gated: 'read', cli: null, summary: 'Server-side request times per method, event fan-out time, memory.' },
  'fleet.list': { gated: 'read', cli: 'ps', summary: 'Every agent, one Conductor row each.' },
  'surface.list': { gated: 'read', cli: 'ls', summary: 'Every pane as a surface row; `match` narrows by selector.' },
  'surface.status': { gated: 'read', cli: 'status', summary: "One pane's agent status; a pane with no agent is idle." },
  'surface.read': { gated: 'read', cli: 'read', summary: "A pane's text, fenced as untrusted unless `raw`." },
  'surface.search': { gated: 'read', cli: 'search', summary: "Lines of a pane's text matching a substring or a linear-time regex." },
  'surface.send_text': {
    gated: 'when-submitting',
    inert: ['text'],
    verb: 'send --submit',
    cli: 'send',
    summary: 'Types text into a pane (or, with `all`, every pane a selector names); `submit` presses Enter after it.',
  },
  'surface.send_keys': { gated: 'always', verb: 'key', cli: 'key', summary: 'Presses named keys in a pane.' },
  'surface.focus': { gated: 'never', cli: 'focus', summary: 'Focuses a pane.' },
  'surface.rename': { gated: 'never', inert: ['name'], cli: null, summary: 'Names a pane.' },
  'events.subscribe': { gated: 'read', cli: 'watch', streams: true, summary: 'Starts a stream of events (SPEC §7) on this connection.' },
  // With `worktree`, creates a directory and a branch and runs the repository's own setup: creation, like `up`, is not gated (SPEC §8, §15).
  'workspace.create': { gated: 'never', inert: ['label'], cli: 'workspace create', summary: 'A workspace with one tab and one shell pane; with `worktree`, in a new git worktree.' },
  // Runs commands only in panes it creates itself, so not gated (SPEC §8); prompts are typed, not submitted.
  'workspace.up': {
    gated: 'never',
    inert: ['name', 'panes.*.name', 'panes.*.prompt'],
    cli: 'up',
    summary: 'A workspace (or panes added to one) from a parsed `up` file; agents started, prompts typed.',
  },
  'workspace.list': { gated: 'read', cli: 'workspace list', summary: 'Every workspace.' },
  'workspace.get': { gated: 'read', cli: 'workspace get', summary: 'One workspace.' },
  'workspace.focus': { gated: 'never', cli: 'workspace focus', summary: 'Focuses a workspace.' },
  'workspace.rename': { gated: 'never', inert: ['label'], cli: 'workspace rename', summary: 'Relabels a workspace.' },
  'workspace.close': { gated: 'never', cli: 'workspace close', summary: 'Closes a workspace and every pane in it.' },
  'tab.create': { gated: 'never', inert: ['label'], cli: 'tab create', summary: 'A tab with one shell pane, in the given or focused workspace.' },
  'tab.list': { gated: 'read', cli: 'tab list', summary: 'Every tab, or those of one workspace.' },
  'tab.get': { gated: 'read', cli: 'tab get', summary: 'One tab.' },
  'tab.focus': { gated: 'never', cli: 'tab focus', summary: 'Focuses a tab.' },
  'tab.rename': { gated: 'never', inert: ['label'], cli: 'tab rename', summary: 'Relabels a tab.' },
  'tab.close': { gated: 'never', cli: 'tab close', summary: 'Closes a tab and its panes.' },
  'pane.split': { gated: 'never', cli: 'pane split', summary: 'Splits a pane; the new pane runs a shell.' },
  'pane.move': { gated: 'never', cli: 'pane move', summary: 'Moves a pane to another tab, a new tab or a new workspace.' },
  'pane.list': { gated: 'read', cli: 'pane list', summary: 'Every pane, or those of one workspace or tab.' },
  'pane.get': { gated: 'read', cli: 'pane get', summary: 'One pane.' },
  'pane.current': { gated: 'read', cli: 'pane current', summary: 'The pane the caller runs in (its CORRAL_PANE_ID).' },
  'pane.focus': { gated: 'never', cli: 'pane focus', summary: 'Focuses a pane.' },
  'pane.rename': { gated: 'never', inert: ['name'], cli: 'pane rename', summary: 'Names a pane.' },
  'pane.close': { gated: 'never', cli: 'pane close', summary: 'Closes a pane.' },
  'pane.zoom': { gated: 'never', cli: 'pane zoom', summary: 'Zooms a pane to fill its tab, or unzooms it.' },
  'pane.resize': { gated: 'never', cli: 'pane resize', summary: 'Moves the border of a pane by `amount` cells.' },
  'pane.swap': { gated: 'never', cli: 'pane swap', summary: 'Swaps two panes in the layout.' },
  'pane.read': { gated: 'read', cli: 'pane read', summary: "A pane's text from one read source (plain, never fenced)." },
  'pane.send_text': { gated: 'never', inert: ['text'], cli: 'pane send-text', summary: 'Types exactly the given text, never submitting.' },
  'pane.send_keys': { gated: 'always', cli: 'pane send-keys', summary: 'Presses named keys in a pane.' },
  'pane.run': { gated: 'always', cli: 'pane run', summary: 'Types a command and presses Enter.' },
  'pane.wait_for_output': { gated: 'read', cli: 'pane wait-output', summary: 'Waits until a line of the pane matches.' },
  'agent.list': { gated: 'read', cli: 'agent list', summary: 'Every agent, or those of one workspace or tab.' },
  'agent.get': { gated: 'read', cli: 'agent get', summary: 'One agent.' },
  'agent.rename': { gated: 'never', inert: ['name'], cli: 'agent rename', summary: 'Names an agent.' },
  'agent.release': { gated: 'never', cli: 'agent release', summary: "Clears an agent's name." },
  'agent.focus': { gated: 'never', cli: 'agent focus', summary: "Focuses an agent's pane." },
  'agent.explain': { gated: 'read', cli: 'agent explain', summary: 'What decided the agent\'s status, in words.' },
  'agent.start': {
    // A known kind types its own executable; `kind: "generic"` runs the caller's command.
    gated: 'when-command',
    // `prompt` is typed, never submitted (how `flow run` types a step's prompt), so inert as in `up`.
    inert: ['name', 'prompt'],
    words: ['args'],
    cli: 'agent start',
    summary: 'Starts an agent at a shell prompt and returns once it is ready for input; with `worktree`, in a new git worktree.',
  },
  'agent.prompt': { gated: 'always', cli: 'agent prompt', summary: 'Submits a prompt; with `wait`, returns when the turn ends; with `max_tokens`, a turn over that budget is interrupted. A spent agent is refused `budget_exceeded`.' },
  'agent.usage': { gated: 'read', cli: 'agent usage', summary: "What the agent spent, per turn, from its own record (SPEC §18)." },
  'agent.budget': { gated: 'when-raising', cli: 'agent budget', summary: "Sets, lowers, raises or clears the agent's total token budget; raising or clearing needs the gate." },
  'agent.wait': { gated: 'read', cli: 'agent wait', summary: 'Waits until the agent reaches a status in `until`.' },
  'agent.read': { gated: 'read', cli: 'agent read', summary: "An agent's text; an idle full-screen agent's whole transcript; with `answer`, what it answered (session record or screen)." },
  'agent.send_keys': { gated: 'always', cli: 'agent send-keys', summary: "Presses named keys in an agent's pane." },
  // Worktrees (SPEC §15, docs/worktrees.md). Reviews are reads. A merge puts work into the
  // user's checked-out branch and a discard throws work away: an agent doing either to itself or
  // to another bypasses the person's review, so from inside a pane they need the gate open
  // (`by-peer`); a person's own terminal, or a script outside corral, may. A prune removes only
  // merged, clean, idle worktrees — nothing is lost — unless `force`, which is held like a discard.
  'agent.diff': { gated: 'read', cli: 'agent diff', summary: "What the agent changed in its worktree against the base, or with `turn` what that turn changed (SPEC §20): files, counts and the unified diff." },
  'agent.checkpoints': { gated: 'read', cli: 'agent checkpoints', summary: "The agent's checkpoints (SPEC §20): the files just before each of its turns, oldest first." },
  'agent.rewind': { gated: 'always', cli: 'agent rewind', summary: 'Puts the files back as a checkpoint had them, after a checkpoint of them as they are; refused `agent_busy` while the agent works or is blocked.' },
  'agent.merge': { gated: 'by-peer', cli: 'agent merge', summary: "Commits the agent's uncommitted work and merges its worktree's branch into the main checkout's branch." },
  'worktree.list': { gated: 'read', cli: 'worktree list', summary: 'Every worktree corral made: branch, base, agent, panes, dirty, merged, ahead, behind.' },
  'worktree.diff': { gated: 'read', cli: 'worktree diff', summary: 'Everything changed in a worktree against its base (commits, staged, unstaged, untracked).' },
  'worktree.merge': { gated: 'by-peer', cli: 'worktree merge', summary: "Commits a worktree's uncommitted work and merges its branch into the main checkout's branch; a conflict changes nothing." },
  'worktree.discard': { gated: 'by-peer', cli: 'worktree discard', summary: 'Removes a worktree and its branch, uncommitted work included; refused while a process runs inside it.' },
  'worktree.prune': { gated: 'by-peer', cli: 'worktree prune', summary: 'Removes worktrees that are merged, clean and idle; `force` also the unmerged and dirty ones.' },
  // Attached clients (SPEC §1, docs/clients.md). A person's terminal attached from outside
  // every pane is the user's own keyboard, as with tmux; a client whose keys could come from a
  // program (no terminal, inside a pane) is view-only while the gate is closed (SPEC §8), and
  // from inside a pane a detach reaches only the clients attached from there.
  'client.attach': { gated: 'by-peer', cli: 'attach', summary: 'Attaches a thin client: after the reply the connection carries binary frames (docs/clients.md).' },
  'client.list': { gated: 'read', cli: 'sessions', summary: 'The attached clients: size, terminal, workspace, activity.' },
  // Writes only corral's own state file; reveals paths and problems, no pane content.
  'session.save': { gated: 'never', cli: null, summary: 'Saves the session now (state file and scrollback, SPEC §13).' },
  'session.info': { gated: 'read', cli: null, summary: 'Where the session is saved, when, what it was restored from, and any problems.' },
  // `kill-server --forget`: deletes the saved session, as kill-server itself ends every pane.
  'session.forget': { gated: 'never', cli: 'kill-server --forget', summary: 'Removes the saved session so the next start is empty.' },
  // Machines (SPEC §14). The file is the user's; reloading applies what it says (a program
  // that can write it could as well run ssh itself), and touches no pane's input.
  'machine.list': { gated: 'read', cli: 'machine list', summary: 'The saved machines and the state of each link.' },
  'machine.reload': { gated: 'never', cli: 'machine add|remove|enable|disable', summary: 'Reads machines.toml again and starts or stops links to match.' },
  'machine.read': { gated: 'read', cli: 'machine read', summary: "A remote pane's text as this server's mirror of it shows it (`build/w1:p2`), with no round trip." },
  // The far side of a machine link (SPEC §14). The mirror reads panes; the viewport sizes
  // layouts only while no client is attached here; `pane.input` is a person's keys through a
  // link and is taken only from a process sshd started outside every pane (or with the gate open).
  'mirror.subscribe': { gated: 'read', cli: null, streams: true, summary: "Streams this server's structure and every pane's screen and output to a mirroring server." },
  'mirror.viewport': { gated: 'never', cli: null, summary: "Lays this server's tabs out for a mirroring server's screen while no client is attached here." },
  'pane.input': { gated: 'by-peer', cli: null, summary: "A person's keys typed into a mirrored pane, through a machine link." },
  // The web view (SPEC §16): `corral web` is a client of this server like `corral attach`. Its
  // reads are reads; its input is a person's keys, decided by where `corral web` itself runs
  // (kernel peer credentials, like an attaching client): a person's terminal types with the gate
  // closed, a process inside a pane or with no terminal only with the gate open.
  'web.hello': { gated: 'by-peer', cli: 'web', summary: "Names this connection's web view and says whether its keys are a person's (where `corral web` runs)." },
  'web.fleet': { gated: 'read', cli: 'web', summary: "The web view's fleet: every agent with its workspace, state, since when, last lines and answer keys; every other pane." },
  'pane.watch': { gated: 'read', cli: 'web', streams: true, summary: "Streams one pane's screen: a snapshot, then each output batch and resize." },
  'web.input': { gated: 'by-peer', cli: 'web', summary: "A person's keys typed on the web view, or one of a blocked agent's declared answers; logged with the web client's id." },
  'client.detach': { gated: 'by-peer', cli: 'detach', summary: 'Detaches one client, the calling one, or all; their panes keep running.' },
} as const satisfies Record<keyof MethodParams, MethodEntry>;

export type MethodName = keyof typeof METHOD_TABLE;

// Compile-time check: the shapes and the table name the same methods.
type Exactly<T extends never> = T;
export type MethodShapesMatchTable = Exactly<Exclude<MethodName, keyof MethodParams | keyof MethodResults> | Exclude<keyof MethodParams | keyof MethodResults, MethodName>>;

/** Methods whose params are all optional: they may be called with none. */
export type MethodWithoutRequiredParams = { [M in MethodName]: {} extends MethodParams[M] ? M : never }[MethodName];

/** A typed caller of the table's methods (the RPC client, or a test's stand-in for it). */
export interface MethodCaller {
  call<M extends MethodName>(method: M, params: MethodParams[M]): Promise<MethodResults[M]>;
  call<M extends MethodWithoutRequiredParams>(method: M): Promise<MethodResults[M]>;
}

/** Every method the server answers. The CLI and `system.capabilities` read this list. */
export const METHODS = Object.keys(METHOD_TABLE) as MethodName[];

/**
 * Hook notifications (`corral hook` in a pane → `ai.*`, SPEC §4): they update an agent's
 * status and never reach a pane's input, so they are `read` for the gate.
 */
export const HOOK_METHODS = ['ai.session_start', 'ai.prompt_submit', 'ai.tool_use', 'ai.notification', 'ai.stop', 'ai.exit', 'ai.session_end'] as const;
export type HookMethod = (typeof HOOK_METHODS)[number];

/** The CLI verb that calls `method`, for messages: its declared `verb`, else `pane.send_keys` → `pane send-keys`. */
export function methodVerb(method: string): string {
  return methodSpec(method)?.verb ?? method.replace('.', ' ').replaceAll('_', '-');
}

/** The gating of any method the server registers (hook notifications included); undefined if unknown. */
export function methodSpec(method: string): MethodSpec | undefined {
  if (Object.hasOwn(METHOD_TABLE, method)) return METHOD_TABLE[method as MethodName];
  // A hook speaks only for the pane whose process tree sent it (SPEC §8).
  if ((HOOK_METHODS as readonly string[]).includes(method)) return { gated: 'by-peer' };
  return undefined;
}
