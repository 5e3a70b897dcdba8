/**
 * The wire contract between corral's server and its clients (SPEC §3, §5).
 * Method names, error codes and the shapes of the objects the API returns live here and
 * nowhere else, so the CLI, the server and the tests agree by construction.
 * This module must stay dependency-free: the CLI imports it on its fast path.
 */

/** Stable string codes carried in a JSON-RPC error's `data.code` (SPEC §3). */
export const ERROR_CODES = [
  'invalid_params',
  'invalid_request',
  'method_not_found',
  'target_not_found',
  'target_ambiguous',
  'workspace_not_found',
  'tab_not_found',
  'pane_not_found',
  'agent_not_found',
  'agent_not_ready',
  'agent_blocked',
  'agent_prompt_stalled',
  'agent_not_running',
  'agent_not_idle',
  'agent_name_taken',
  'invalid_agent_name',
  'unsupported_agent_kind',
  'agent_pane_busy',
  'invalid_agent_timeout',
  'empty_agent_prompt',
  'invalid_key',
  'invalid_regex',
  'timeout',
  'scripting_disabled',
  'server_busy',
  'parse_error',
  'internal_error',
  // Client-side only: the CLI could not reach a server.
  'server_not_running',
  // The socket's directory is not private to the user (SPEC §8): server and CLI refuse it.
  'unsafe_socket_dir',
  // `client.detach` of a client id that is not attached.
  'client_not_found',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** JSON-RPC 2.0 numeric codes; application errors share -32000 and differ by data.code. */
export const RPC_CODES = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  application: -32000,
} as const;

const NUMERIC_CODE_BY_ERROR: Partial<Record<ErrorCode, number>> = {
  parse_error: RPC_CODES.parseError,
  invalid_request: RPC_CODES.invalidRequest,
  method_not_found: RPC_CODES.methodNotFound,
  invalid_params: RPC_CODES.invalidParams,
  internal_error: RPC_CODES.internalError,
};

/** The JSON-RPC numeric code used on the wire for a corral error code. */
export function rpcCodeFor(code: ErrorCode): number {
  return NUMERIC_CODE_BY_ERROR[code] ?? RPC_CODES.application;
}

/** The corral code for a standard JSON-RPC numeric code (errors that carry no `data.code`). */
export function errorCodeForRpc(numeric: number): ErrorCode | undefined {
  for (const [code, value] of Object.entries(NUMERIC_CODE_BY_ERROR)) if (value === numeric) return code as ErrorCode;
  return undefined;
}

/** An error with a stable code; thrown anywhere in the core, sent as a JSON-RPC error. */
export class CorralError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly data: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'CorralError';
  }
}

/** CLI exit codes (SPEC §6). */
export const EXIT = {
  ok: 0,
  runtime: 1,
  usage: 2,
  target: 3,
  timeout: 4,
} as const;

const TARGET_CODES: ReadonlySet<string> = new Set([
  'target_not_found',
  'target_ambiguous',
  'workspace_not_found',
  'tab_not_found',
  'pane_not_found',
  'agent_not_found',
  'client_not_found',
]);

/** The process exit code a CLI verb uses for an error code. */
export function exitCodeFor(code: string): number {
  if (TARGET_CODES.has(code)) return EXIT.target;
  if (code === 'timeout') return EXIT.timeout;
  return EXIT.runtime;
}

/**
 * How the scripting gate (SPEC §8) treats a method. The gate's principle: with it closed,
 * nothing a caller sends can make a program already running in a pane act on text the
 * caller chose.
 * - `read`: touches no pane's input (reads, waits, listings); always allowed.
 * - `never`: allowed with the gate closed (structure, typing without submitting, starting
 *   an agent), but the caller text it carries must be inert (see `inert` and `words`).
 * - `when-submitting`: `never` unless the `submit` param is true, then `always`.
 * - `always`: submits input to a pane; refused with `scripting_disabled` while closed.
 */
export type Gating = 'read' | 'never' | 'when-submitting' | 'always';

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

/**
 * Every method the server answers, with its gating — declared here once; the dispatcher
 * enforces it (src/rpc/gate.ts) and test/integration/gate-table.test.ts walks it.
 */
export const METHOD_TABLE = {
  'system.ping': { gated: 'read' },
  'system.identify': { gated: 'read' },
  'system.capabilities': { gated: 'read' },
  'fleet.list': { gated: 'read' },
  'surface.list': { gated: 'read' },
  'surface.status': { gated: 'read' },
  'surface.read': { gated: 'read' },
  'surface.search': { gated: 'read' },
  'surface.send_text': { gated: 'when-submitting', inert: ['text'], verb: 'send --submit' },
  'surface.send_keys': { gated: 'always', verb: 'key' },
  'surface.focus': { gated: 'never' },
  'surface.rename': { gated: 'never', inert: ['name'] },
  'events.subscribe': { gated: 'read' },
  'workspace.create': { gated: 'never', inert: ['label'] },
  // Runs commands only in panes it creates itself, so not gated (SPEC §8); prompts are typed, not submitted.
  'workspace.up': { gated: 'never', inert: ['name', 'panes.*.name', 'panes.*.prompt'] },
  'workspace.list': { gated: 'read' },
  'workspace.get': { gated: 'read' },
  'workspace.focus': { gated: 'never' },
  'workspace.rename': { gated: 'never', inert: ['label'] },
  'workspace.close': { gated: 'never' },
  'tab.create': { gated: 'never', inert: ['label'] },
  'tab.list': { gated: 'read' },
  'tab.get': { gated: 'read' },
  'tab.focus': { gated: 'never' },
  'tab.rename': { gated: 'never', inert: ['label'] },
  'tab.close': { gated: 'never' },
  'pane.split': { gated: 'never' },
  'pane.move': { gated: 'never' },
  'pane.list': { gated: 'read' },
  'pane.get': { gated: 'read' },
  'pane.current': { gated: 'read' },
  'pane.focus': { gated: 'never' },
  'pane.rename': { gated: 'never', inert: ['name'] },
  'pane.close': { gated: 'never' },
  'pane.zoom': { gated: 'never' },
  'pane.resize': { gated: 'never' },
  'pane.swap': { gated: 'never' },
  'pane.read': { gated: 'read' },
  'pane.send_text': { gated: 'never', inert: ['text'] },
  'pane.send_keys': { gated: 'always' },
  'pane.run': { gated: 'always' },
  'pane.wait_for_output': { gated: 'read' },
  'agent.list': { gated: 'read' },
  'agent.get': { gated: 'read' },
  'agent.rename': { gated: 'never', inert: ['name'] },
  'agent.release': { gated: 'never' },
  'agent.focus': { gated: 'never' },
  'agent.explain': { gated: 'read' },
  'agent.start': { gated: 'never', inert: ['name'], words: ['args'] },
  'agent.prompt': { gated: 'always' },
  'agent.wait': { gated: 'read' },
  'agent.read': { gated: 'read' },
  'agent.send_keys': { gated: 'always' },
  // Writes only corral's own state file; reveals paths and problems, no pane content.
  'session.save': { gated: 'never' },
  'session.info': { gated: 'read' },
  // Attached clients (SPEC §1, docs/clients.md). An attached client is the user's own
  // keyboard, as with tmux: the gate governs what scripts send through RPC, not a terminal
  // someone attached. Detaching a client is a nuisance, not an injection: the panes keep
  // running and nothing reaches their input, so it is not gated either.
  'client.attach': { gated: 'never' },
  'client.list': { gated: 'read' },
  'client.detach': { gated: 'never' },
  // `kill-server --forget`: deletes the saved session, as kill-server itself ends every pane.
  'session.forget': { gated: 'never' },
} as const satisfies Record<string, MethodSpec>;

export type MethodName = keyof typeof METHOD_TABLE;

/** Every method the server answers. The CLI and `system.capabilities` read this list. */
export const METHODS = Object.keys(METHOD_TABLE) as MethodName[];

/**
 * Hook notifications (`corral hook` in a pane → `ai.*`, SPEC §4): they update an agent's
 * status and never reach a pane's input, so they are `read` for the gate.
 */
export const HOOK_METHODS = ['ai.session_start', 'ai.prompt_submit', 'ai.tool_use', 'ai.notification', 'ai.stop', 'ai.exit', 'ai.session_end'] as const;

/** The CLI verb that calls `method`, for messages: its declared `verb`, else `pane.send_keys` → `pane send-keys`. */
export function methodVerb(method: string): string {
  return methodSpec(method)?.verb ?? method.replace('.', ' ').replaceAll('_', '-');
}

/** The gating of any method the server registers (hook notifications included); undefined if unknown. */
export function methodSpec(method: string): MethodSpec | undefined {
  if (Object.hasOwn(METHOD_TABLE, method)) return METHOD_TABLE[method as MethodName];
  if ((HOOK_METHODS as readonly string[]).includes(method)) return { gated: 'read' };
  return undefined;
}

/** Name of the JSON-RPC notification that carries one event on a subscribed connection. */
export const EVENT_NOTIFICATION = 'events.event';

/** Hard limits of the transport (SPEC §3). */
export const LIMITS = {
  /** A request line longer than this is refused and the connection closed. */
  maxLineBytes: 1024 * 1024,
  /** Connections beyond this many get server_busy. */
  maxConnections: 64,
  /** A client that sent half a line and then nothing for this long is dropped. */
  partialLineTimeoutMs: 30_000,
  /** A connection that sent nothing for this long and holds no stream or wait is closed. */
  idleConnectionMs: 60_000,
  /** Replies queued for a client that does not read them; past this, its requests wait unread. */
  maxQueuedReplyBytes: 8 * 1024 * 1024,
  /** Requests one connection may have running at once (waits included); more wait their turn. */
  maxRequestsInFlight: 64,
  /** Largest text `send_text` accepts. */
  maxSendTextBytes: 64 * 1024,
  /** Per-subscriber queue before events are dropped. */
  subscriberQueue: 1024,
  /** A quiet subscription gets a heartbeat after this long. */
  heartbeatMs: 15_000,
  /** `surface_changed` is coalesced to at most one per pane per this many ms. */
  surfaceChangedMs: 50,
} as const;

// ---------------------------------------------------------------------------
// Objects returned by the API (SPEC §5 "Objects").

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

export interface SurfaceRow {
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
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface CorralEvent {
  type: EventType;
  ts: number;
  surface_id?: number;
  pane_id?: string;
  workspace?: string;
  [key: string]: unknown;
}

/** Control frames interleaved with events on a subscription. */
export type ControlFrame =
  | { type: 'subscribed'; id: string }
  | { type: 'heartbeat'; ts: number }
  | { type: 'dropped'; count: number };

// ---------------------------------------------------------------------------
// Results of the Conductor-style methods (SPEC §5), as the CLI reads them.

/** One row of `fleet.list`. */
export interface FleetRow {
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
  completion_seq?: number;
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
