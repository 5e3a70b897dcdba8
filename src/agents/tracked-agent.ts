/**
 * What the agent registry (src/agents/agent-registry.ts) keeps of each agent and of each
 * pane it watches, the timings it reads screens and processes by, and the small rules about
 * rules it applies (which idle rule says the input is live, which `ai.*` event a screen
 * transition stands for). Types and constants; the registry does the watching.
 */
import { CONDUCTOR_STATE, type AiEventType, type EventInput } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import type { PaneHost } from '../pty/pane-host.js';
import type { AgentState } from './agent-state.js';
import type { ProcessTable } from '../pty/foreground.js';
import type { Clock, ClockTimer } from '../clock.js';
import { matchingRules, type AgentRules, type evaluateRules, type Rule, type RuleVerdict, type ScreenSnapshot } from './rules.js';
import { newPromptTrack, type PromptTrack } from './rule-fallback.js';
import type { StartLine } from './start-line.js';
import { newUsageTrack, type UsageTrack } from './usage-tracker.js';

export const TRACKING = {
  /** Output this quiet makes a screen "settled" enough to classify (a redraw is done by then). */
  screenSettleMs: 40,
  /** …but a screen that never stops changing (a spinner) is still classified this often. */
  screenMaxWaitMs: 150,
  /** Process checks after output are throttled to one per this interval per pane. */
  processCheckMs: 400,
  /**
   * After a line is submitted to a pane with no agent, the process is checked this many more
   * times, `processCheckMs` apart, until a program is found: the shell forks its command after
   * the echo whose check came too early, and a program that prints nothing gives no output to
   * check after.
   */
  submitChecks: 3,
  /** How often working agents are checked for a stall. */
  stallCheckMs: 1000,
  /** Used when a kind's rules give no confirmation window. */
  defaultIdleConfirmMs: 500,
  /** An Esc or ctrl+c sent to a working agent makes the idle that follows within this long an interrupt. */
  interruptWindowMs: 5000,
  /**
   * An agent read with the generic rules is ready for input once its program reads keys itself
   * (the terminal left canonical mode); checked this often while it has not…
   */
  genericReadyPollMs: 250,
  /** …and taken as ready after this long anyway: a line-mode program never leaves it. */
  genericLineModeReadyMs: 5000,
  /**
   * Read with the generic rules, a working spell shorter than this may be a step before the
   * turn rather than the turn (Qwen Code shows "⠋ Initializing..." for a second, then nothing
   * for two while its first request waits for a token), so the idle after it must hold for
   * `genericShortTurnConfirmMs` before it counts. Own rules know their agent's gaps.
   */
  genericShortTurnMs: 4000,
  genericShortTurnConfirmMs: 3000,
} as const;

/** How long an idle screen must hold after `workedMs` of working before it counts as idle. */
export function idleConfirmMs(rules: AgentRules, workedMs: number): number {
  const own = rules.idleConfirmMs ?? TRACKING.defaultIdleConfirmMs;
  if (!rules.generic || workedMs >= TRACKING.genericShortTurnMs) return own;
  return Math.max(own, TRACKING.genericShortTurnConfirmMs);
}

/** Keys that interrupt a turn in every supported agent: Esc and ctrl+c, sent on their own. */
export const INTERRUPT_KEYS: ReadonlySet<string> = new Set(['\x1b', '\x03']);

export const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

/** What the registry needs from the core, so it never reaches into it. */
export interface RegistryHost {
  panes(): Iterable<PaneRecord>;
  findPane(surfaceId: number): PaneRecord | undefined;
  host(pane: PaneRecord): PaneHost | null;
  /** The pane is visible in the focused tab of an attached, focused TUI (SPEC §4 seen rule). */
  isWatched(pane: PaneRecord): boolean;
  emit(event: EventInput): void;
  stallThresholdMs(): number;
  /** The pane's live cwd, where an agent's session files are matched (optional: /proc is read first). */
  paneCwd?(pane: PaneRecord): string;
  /** Presses named keys in the pane, one at a time `gapMs` apart (a budget's interrupt). */
  pressKeys?(pane: PaneRecord, keys: readonly string[], gapMs: number): void;
}

/** Keys pressed to interrupt a kind whose rule file names none (SPEC §18). */
export const DEFAULT_INTERRUPT_KEYS: readonly string[] = ['esc'];
/** Between two interrupt keys (Kilo and OpenCode take Esc twice; one burst reads as one key). */
export const INTERRUPT_KEY_GAP_MS = 300;

/** What the registry reads time and processes through: the real ones unless a test brings its own. */
export interface RegistrySeams {
  clock?: Clock;
  processes?: ProcessTable;
}

export interface TrackedAgent {
  kind: string;
  pid: number | null;
  name: string | null;
  /** The rules its screen is read with: its kind's own, or the generic set (no rules for it). */
  rules: AgentRules | null;
  /**
   * The agent's own session id (SPEC §13): from its hook payloads, else the id its argv
   * resumes, else its session files (looked up after it starts and after each turn).
   */
  sessionId: string | null;
  /** Where `sessionId` came from: a hook's word outranks a guess from files. */
  sessionIdFrom: 'hook' | 'argv' | 'files' | null;
  /** A session-file lookup is running. */
  sessionLookup: boolean;
  /** The command line it was started with (program first), when corral started it. */
  argv: string[] | null;
  /** When corral first saw it: session files older than this (and untouched since) are not its. */
  startedAt: number;
  state: AgentState;
  /** The verdict and evidence behind the current screen status, for `agent explain`. */
  lastVerdict: ReturnType<typeof evaluateRules> | null;
  /** The rule set behind `lastVerdict`: its own, or the generic set (src/agents/rule-fallback.ts). */
  decidedBy: AgentRules | null;
  /** Why the generic set decided in place of its own rules; null when its own did. */
  fallback: string | null;
  /** The rule set that saw the current working or blocked spell: its idle window applies. */
  busyRules: AgentRules | null;
  /** The last prompt corral submitted to it, for the rule fallback. */
  prompt: PromptTrack;
  pendingIdleSince: number | null;
  /** When an interrupt key was last sent to it while it worked. */
  interruptedAt: number;
  /**
   * The row where the shell echoed the command corral typed to start it: rows above it are
   * not its screen while it is still there (src/agents/start-line.ts); null once gone.
   */
  startLine: StartLine | null;
  /** What it spends and its budgets (SPEC §18, src/agents/usage-tracker.ts). */
  usage: UsageTrack;
  /** A turn is open for usage: corral prompted it, or it was seen working since it was last idle. */
  turnOpen: boolean;
}

/** What the registry knows of an agent just found: its kind, process and rules, and nothing yet of its turns. */
export function newTrackedAgent(kind: string, pid: number | null, rules: AgentRules | null, state: AgentState, now: number): TrackedAgent {
  return {
    kind,
    pid,
    name: null,
    rules,
    sessionId: null,
    sessionIdFrom: null,
    sessionLookup: false,
    argv: null,
    startedAt: now,
    state,
    lastVerdict: null,
    decidedBy: null,
    fallback: null,
    busyRules: null,
    prompt: newPromptTrack(),
    pendingIdleSince: null,
    interruptedAt: -Infinity,
    startLine: null,
    usage: newUsageTrack(),
    turnOpen: false,
  };
}

/** Who a restored pane's agent was (SPEC §13): its kind, corral name, command line and session. */
export interface ExpectedAgent {
  kind: string;
  name: string | null;
  argv: readonly string[];
  sessionId: string | null;
}

/** An unrecognised foreground program, watched with the generic rules until it acts like an agent. */
export interface Candidate {
  pid: number;
  name: string;
}

export interface PaneWatch {
  agent: TrackedAgent | null;
  candidate: Candidate | null;
  /** When the pane last rang a bare BEL (only listened to for agents read with generic rules). */
  lastBellAt: number;
  bell: { dispose(): void } | null;
  screenTimer: ClockTimer | null;
  screenDeadline: number;
  processTimer: ClockTimer | null;
  lastProcessCheck: number;
  /** The checks after a submitted line (`TRACKING.submitChecks`). */
  submitTimer: ClockTimer | null;
  confirmTimer: ClockTimer | null;
  /** Re-checks a generic agent's readiness while its program has not taken its keys over. */
  readyTimer: ClockTimer | null;
  /** Checks the screen when a prompt's own-rules window ends (src/agents/rule-fallback.ts). */
  promptTimer: ClockTimer | null;
}

/** An idle rule that is not an interrupt: positive evidence that the agent's input is live. */
export function isReadyRule(rule: Rule): boolean {
  return rule.state === 'idle' && !rule.interrupted;
}

/**
 * Whether the screen shows the agent's input is live: a ready rule matches, even under a
 * higher interrupt rule (a resumed pi redraws an old "Operation aborted" above its editor,
 * which alone says nothing of readiness); a kind with no ready rule is ready when idle.
 */
export function showsReady(rules: AgentRules, verdict: RuleVerdict, snap: ScreenSnapshot): boolean {
  if (verdict.rule && isReadyRule(verdict.rule)) return true;
  if (!rules.rules.some(isReadyRule)) return true;
  return verdict.rule?.interrupted === true && matchingRules(rules, snap).some(({ rule }) => isReadyRule(rule));
}

/** The `ai.*` event a screen-detected transition stands for (SPEC §7: emitted for both sources). */
export const AI_EVENT_FOR: Partial<Record<string, AiEventType>> = {
  working: 'ai.prompt_submit',
  blocked: 'ai.notification',
  idle: 'ai.stop',
  done: 'ai.stop',
};

/** An agent's fields in every `agent.*` and `ai.*` event. */
export function agentEventFields(agent: TrackedAgent) {
  const snap = agent.state.snapshot();
  return {
    state: CONDUCTOR_STATE[snap.status],
    agent_status: snap.status,
    tool: agent.kind,
    name: agent.name,
    message: snap.message,
    active_tool_name: snap.activeToolName,
    state_change_seq: snap.stateChangeSeq,
    ...(snap.completionSeq !== undefined ? { completion_seq: snap.completionSeq } : {}),
  };
}

/** Where an event happened: the pane's ids and workspace. */
export function paneRef(pane: PaneRecord) {
  return { surface_id: pane.surfaceId, pane_id: pane.id, workspace: pane.workspaceId };
}
