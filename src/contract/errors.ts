/**
 * Errors of the wire contract (SPEC §3, §6): the stable `data.code` strings, the JSON-RPC
 * numeric codes they travel with, the error class the core throws and the CLI's exit codes.
 * Dependency-free: the CLI imports it on its fast path.
 */

/** The codes that mean "what you named is not there" (or names several): the CLI exits 3 (SPEC §6). */
const TARGET_ERROR_CODES = [
  'target_not_found',
  'target_ambiguous',
  'workspace_not_found',
  'tab_not_found',
  'pane_not_found',
  'agent_not_found',
  'client_not_found',
  'machine_not_found',
  'worktree_not_found',
  // No checkpoint with that id or turn for the agent (SPEC §20).
  'checkpoint_not_found',
] as const;

/** Stable string codes carried in a JSON-RPC error's `data.code` (SPEC §3). */
export const ERROR_CODES = [
  'invalid_params',
  'invalid_request',
  'method_not_found',
  ...TARGET_ERROR_CODES,
  'agent_not_ready',
  'agent_blocked',
  'agent_prompt_stalled',
  'agent_not_running',
  'agent_not_idle',
  // `agent read --answer`: neither the agent's session record nor its screen holds an answer to read.
  'agent_no_answer',
  'agent_name_taken',
  'invalid_agent_name',
  'unsupported_agent_kind',
  'agent_pane_busy',
  'invalid_agent_timeout',
  'empty_agent_prompt',
  // A rewind while the agent works or waits on a question (SPEC §20): its files would move under it.
  'agent_busy',
  // An agent crossed a budget (SPEC §18): data.limit and data.used; a spent agent is typed nothing.
  'budget_exceeded',
  'invalid_key',
  'invalid_regex',
  // A pane whose program stopped reading holds at most a bounded queue of input (8 MiB): more is refused.
  'pane_input_full',
  'timeout',
  'scripting_disabled',
  // Worktrees (SPEC §15): each refusal creates, merges or removes nothing.
  'not_a_git_repo',
  'invalid_worktree_name',
  'worktree_exists',
  'ref_not_found',
  'worktree_setup_failed',
  'worktree_busy',
  'merge_conflict',
  'main_checkout_dirty',
  'main_checkout_detached',
  'git_failed',
  // A hook notification's process is not inside the pane it names (SPEC §8: hooks speak only for their own pane).
  'peer_not_in_pane',
  // A machine's link is not up (SPEC §14): `data.machine`, and the message says why.
  'machine_unreachable',
  'server_busy',
  'parse_error',
  'internal_error',
  // Client-side only: the CLI could not reach a server.
  'server_not_running',
  // The socket's directory is not private to the user (SPEC §8): server and CLI refuse it.
  'unsafe_socket_dir',
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

const TARGET_CODES: ReadonlySet<string> = new Set(TARGET_ERROR_CODES);

/** The process exit code a CLI verb uses for an error code. */
export function exitCodeFor(code: string): number {
  if (TARGET_CODES.has(code)) return EXIT.target;
  if (code === 'timeout') return EXIT.timeout;
  return EXIT.runtime;
}
