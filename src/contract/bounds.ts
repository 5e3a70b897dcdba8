/**
 * The ranges of the numeric params (SPEC §3: numbers are validated, anything else is
 * `invalid_params`). One table for both sides: the server's handlers check params against
 * it, and the CLI checks its flags against it before anything is sent (exit 2).
 */

export interface Range {
  min: number;
  max: number;
  /** Whole numbers only. */
  integer: boolean;
}

export const BOUNDS = {
  /** `lines` of `pane.read`, `agent.read`, `surface.read`, `pane.wait_for_output`. */
  readLines: { min: 1, max: 10_000, integer: true },
  /** `turns` of `agent.read` with `answer`: the agent's last N answers. */
  answerTurns: { min: 1, max: 20, integer: true },
  /** Every `timeout_ms`: the longest delay a Node timer can hold (~24.8 days). */
  timeoutMs: { min: 0, max: 2_147_483_647, integer: true },
  /** `max_matches` of `surface.search`. */
  maxMatches: { min: 1, max: 10_000, integer: true },
  /** `ratio` of `pane.split`: the share the existing pane keeps. */
  splitRatio: { min: 0.05, max: 0.95, integer: false },
  /** `timeout_ms` of `agent.start` (SPEC §5: more than 3 s, at most 5 minutes). */
  agentStartTimeoutMs: { min: 3001, max: 300_000, integer: true },
  /** Token budgets (SPEC §18: `max_tokens`, `agent budget --tokens`, flow files): far past any session. */
  budgetTokens: { min: 1, max: 1_000_000_000_000, integer: true },
  /** `amount` of `pane.resize`, in cells. */
  resizeAmount: { min: 1, max: 1000, integer: true },
} as const satisfies Record<string, Range>;

/** Defaults of optional params (SPEC §5), for the server and the terminal that reads. */
export const PARAM_DEFAULTS = {
  /** `recent` / `recent-unwrapped` reads and output waits: the last 80 rendered rows. */
  recentLines: 80,
  /** `surface.read`: rows returned when `lines` is omitted. */
  surfaceReadLines: 200,
  /** `surface.search`: matches returned when `max_matches` is omitted. */
  maxMatches: 50,
} as const;
