/**
 * Which agent runs in which pane, and in what state. Watches each pane cheaply — a process
 * check only after output (throttled), a screen check only on settled output of panes that
 * host an agent — and turns what it sees, plus hook events, into each agent's state machine
 * and into `agent.*` and `ai.*` events.
 */
import { isAgentKind } from './kinds.js';
import { CONDUCTOR_STATE, CorralError, type AgentInfo, type AiEventType, type EventInput } from '../contract/protocol.js';
import { isDeepStrictEqual } from 'node:util';
import type { PaneRecord } from '../session/model.js';
import type { PaneHost } from '../pty/pane-host.js';
import { AgentState, SequenceCounter, type DetectedStatus, type StatusChange } from './agent-state.js';
import { foregroundProcess, processArgv, PROC, type ProcessTable } from '../pty/foreground.js';
import { SYSTEM_CLOCK, type Clock, type ClockTimer } from '../clock.js';
import { detectForeground, programName } from './process-detect.js';
import { evaluateRules, explainRules, GENERIC_KIND, matchingRules, provenanceOf, ruleTrust, type AgentRules, type Rule, type RuleTrust, type RuleVerdict, type ScreenSnapshot } from './rules.js';
import { progressString, snapshotFromText } from './screen-snapshot.js';
import { isValidSessionId, resumeArgv, resumedSessionId, resumeSpec } from './resume.js';
import { readsKeysItself } from '../pty/line-mode.js';
import { decide, FALLBACK, newPromptTrack, notePrompt, type PromptTrack } from './rule-fallback.js';
import { explainCuts } from './cut-explain.js';
import { noteTurnScreen } from './turn-screens.js';
import { agentProcessFacts, findSessionId } from './session-files.js';
import { rowsBelowStartLine, startLineAtAdoption, type StartLine } from './start-line.js';
import { newUsageTrack, UsageTracker, type SharedBudget, type UsageTrack } from './usage-tracker.js';
import type { AgentUsage, BudgetExceeded } from '../contract/objects.js';

export const TRACKING = {
  /** Output this quiet makes a screen "settled" enough to classify (a redraw is done by then). */
  screenSettleMs: 40,
  /** …but a screen that never stops changing (a spinner) is still classified this often. */
  screenMaxWaitMs: 150,
  /** Process checks after output are throttled to one per this interval per pane. */
  processCheckMs: 400,
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
function idleConfirmMs(rules: AgentRules, workedMs: number): number {
  const own = rules.idleConfirmMs ?? TRACKING.defaultIdleConfirmMs;
  if (!rules.generic || workedMs >= TRACKING.genericShortTurnMs) return own;
  return Math.max(own, TRACKING.genericShortTurnConfirmMs);
}

/** Keys that interrupt a turn in every supported agent: Esc and ctrl+c, sent on their own. */
const INTERRUPT_KEYS: ReadonlySet<string> = new Set(['\x1b', '\x03']);

const AGENT_NAME = /^[a-z][a-z0-9_-]{0,31}$/;

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
const DEFAULT_INTERRUPT_KEYS: readonly string[] = ['esc'];
/** Between two interrupt keys (Kilo and OpenCode take Esc twice; one burst reads as one key). */
const INTERRUPT_KEY_GAP_MS = 300;

/** What the registry reads time and processes through: the real ones unless a test brings its own. */
export interface RegistrySeams {
  clock?: Clock;
  processes?: ProcessTable;
}

interface TrackedAgent {
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

/** Who a restored pane's agent was (SPEC §13): its kind, corral name, command line and session. */
export interface ExpectedAgent {
  kind: string;
  name: string | null;
  argv: readonly string[];
  sessionId: string | null;
}

/** An unrecognised foreground program, watched with the generic rules until it acts like an agent. */
interface Candidate {
  pid: number;
  name: string;
}

interface PaneWatch {
  agent: TrackedAgent | null;
  candidate: Candidate | null;
  /** When the pane last rang a bare BEL (only listened to for agents read with generic rules). */
  lastBellAt: number;
  bell: { dispose(): void } | null;
  screenTimer: ClockTimer | null;
  screenDeadline: number;
  processTimer: ClockTimer | null;
  lastProcessCheck: number;
  confirmTimer: ClockTimer | null;
  /** Re-checks a generic agent's readiness while its program has not taken its keys over. */
  readyTimer: ClockTimer | null;
  /** Checks the screen when a prompt's own-rules window ends (src/agents/rule-fallback.ts). */
  promptTimer: ClockTimer | null;
}

export class AgentRegistry {
  private readonly counter = new SequenceCounter();
  private readonly watches = new Map<number, PaneWatch>();
  /** Agents a restore started again, by surface id: who they were, given when they show up. */
  private readonly expected = new Map<number, ExpectedAgent>();
  /** The command line corral last typed to start an agent, by surface id, until one shows up. */
  private readonly startCommands = new Map<number, { command: string; beforeShell: boolean; adoptAnyProgram: boolean }>();
  private stallTimer: ClockTimer | null = null;
  private readonly clock: Clock;
  private readonly processes: ProcessTable;
  /** What agents spend, and their budgets (SPEC §18). */
  readonly usage: UsageTracker;
  /** Budgets over several agents (flows' `budget_tokens`, `up` files'), by name. */
  private readonly shared = new Map<string, SharedBudget>();

  constructor(
    private readonly core: RegistryHost,
    private readonly rules: ReadonlyMap<string, AgentRules>,
    seams: RegistrySeams = {},
  ) {
    this.clock = seams.clock ?? SYSTEM_CLOCK;
    this.processes = seams.processes ?? PROC;
    this.usage = new UsageTracker(
      {
        usageChanged: (agent) => this.emitUsage(agent as TrackedAgent),
        budgetExceeded: (agent, exceeded) => this.budgetExceeded(agent as TrackedAgent, exceeded),
        agents: () => [...this.watches.values()].flatMap((w) => (w.agent ? [w.agent] : [])),
        lookUpSession: (agent) => {
          const pane = this.paneOf(agent as TrackedAgent);
          if (pane) this.lookUpSessionId(pane, agent as TrackedAgent);
        },
      },
      this.clock,
    );
  }

  // -- inputs from the core --------------------------------------------------

  /** A new pane: look once for an agent (a pane may be created around a running one after a move). */
  paneStarted(pane: PaneRecord): void {
    this.watch(pane.surfaceId);
    this.scheduleProcessCheck(pane.surfaceId);
  }

  /** Output arrived in a pane. */
  paneOutput(surfaceId: number): void {
    const watch = this.watch(surfaceId);
    const now = this.clock.now();
    if (watch.agent) {
      const pane = this.core.findPane(surfaceId);
      const change = pane ? watch.agent.state.noteActivity(now, this.core.isWatched(pane)) : null;
      if (change && pane) this.publish(pane, watch.agent, change, 'screen');
      this.scheduleScreenCheck(surfaceId, now);
    } else if (watch.candidate) this.scheduleScreenCheck(surfaceId, now);
    this.scheduleProcessCheck(surfaceId);
  }

  paneClosed(surfaceId: number): void {
    this.expected.delete(surfaceId);
    this.startCommands.delete(surfaceId);
    const watch = this.watches.get(surfaceId);
    if (!watch) return;
    if (watch.agent) this.stopUsage(watch.agent);
    this.clearTimers(watch);
    this.watches.delete(surfaceId);
  }

  /**
   * Input written to a pane (from the TUI or a script). An Esc or ctrl+c while the agent works
   * means the turn was cut short, which not every agent shows on screen (Codex may not).
   */
  paneInput(pane: PaneRecord, data: string): void {
    if (!INTERRUPT_KEYS.has(data)) return;
    const agent = this.agentIn(pane);
    const detected = agent?.state.snapshot().detected;
    if (agent && (detected === 'working' || detected === 'blocked')) agent.interruptedAt = this.clock.now();
  }

  /** The pane (or its tab) got focus: a finished agent there is seen. */
  markSeen(pane: PaneRecord): void {
    const agent = this.watches.get(pane.surfaceId)?.agent;
    const change = agent?.state.markSeen(this.clock.now());
    if (agent && change) this.publish(pane, agent, change, 'screen');
  }

  /** A hook event (`ai.*` notification from `corral hook`). */
  applyHook(pane: PaneRecord, event: string, params: Record<string, unknown>): void {
    const watch = this.watch(pane.surfaceId);
    if (!watch.agent) {
      const kind = typeof params.kind === 'string' && isAgentKind(params.kind) ? params.kind : this.processKind(pane)?.kind;
      if (!kind) return;
      this.adopt(pane, watch, kind, this.processKind(pane)?.pid ?? null);
    }
    const agent = watch.agent!;
    const now = this.clock.now();
    const visible = this.core.isWatched(pane);
    const text = (key: string) => (typeof params[key] === 'string' ? (params[key] as string) : null);
    const wasReady = agent.state.snapshot().interactiveReady;
    // The agent's own session id, for resuming it later (SPEC §13); hooks carry it on every event.
    const hookSession = text('session_id');
    if (hookSession !== null && isValidSessionId(hookSession)) {
      agent.sessionId = hookSession;
      agent.sessionIdFrom = 'hook';
      this.usage.resolve(agent);
    }
    let change: StatusChange | null = null;
    switch (event) {
      case 'ai.prompt_submit':
        change = agent.state.observeHook('working', now, { visible, tool: null });
        break;
      case 'ai.tool_use':
        change = agent.state.observeHook('working', now, { visible, tool: text('tool_name') ?? text('active_tool_name') });
        break;
      case 'ai.notification':
        change = agent.state.observeHook('blocked', now, { visible, message: text('message') });
        break;
      case 'ai.stop':
        change = agent.state.observeHook('idle', now, { visible, lastResult: text('last_result') });
        break;
      case 'ai.exit': {
        const code = typeof params.exit_code === 'number' ? params.exit_code : 0;
        change = agent.state.exited(code, now, visible);
        break;
      }
      case 'ai.session_start': {
        // Codex 0.171 fires SessionStart lazily, with the first prompt, after that turn began:
        // a session starting says nothing of a turn in progress, and must not finish it (it
        // read as done 0.1 s into the answer, with no last_result).
        const current = agent.state.snapshot().detected;
        if (current !== 'working' && current !== 'blocked') change = agent.state.observeHook('idle', now, { visible });
        break;
      }
      default:
        break;
    }
    this.core.emit({ type: event as AiEventType, ...this.ref(pane), ...this.eventFields(agent), source: 'hook' });
    if (change) this.publish(pane, agent, change, null);
    else if (!wasReady && agent.state.snapshot().interactiveReady) {
      // Same status (Qwen's SessionStart hook on an idle screen), but its input just became
      // live: `agent start` waits on status changes and must hear of it, as from the screen.
      this.core.emit({ type: 'agent.status_changed', ...this.ref(pane), ...this.eventFields(agent), interactive_ready: true });
    }
  }

  // -- queries ----------------------------------------------------------------

  agentIn(pane: PaneRecord): TrackedAgent | null {
    return this.watches.get(pane.surfaceId)?.agent ?? null;
  }

  /** Live agents with the panes they run in. */
  *agents(): Iterable<{ pane: PaneRecord; agent: TrackedAgent }> {
    for (const pane of this.core.panes()) {
      const agent = this.agentIn(pane);
      if (agent) yield { pane, agent };
    }
  }

  /** The pane whose live agent has this name. */
  paneByAgentName(name: string): PaneRecord | undefined {
    for (const { pane, agent } of this.agents()) if (agent.name === name) return pane;
    return undefined;
  }

  /** The `agent` object of SPEC §5. */
  info(pane: PaneRecord, cwd: string): AgentInfo {
    const agent = this.agentIn(pane);
    if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
    const snap = agent.state.snapshot();
    const info: AgentInfo = {
      pane_id: pane.id,
      surface_id: pane.surfaceId,
      workspace_id: pane.workspaceId,
      tab_id: pane.tabId,
      name: agent.name,
      kind: agent.kind,
      pid: agent.pid,
      agent_status: snap.status,
      state: CONDUCTOR_STATE[snap.status],
      seen: snap.seen,
      hooked: snap.hooked,
      interactive_ready: snap.interactiveReady,
      state_change_seq: snap.stateChangeSeq,
      cwd,
      message: snap.message,
      active_tool_name: snap.activeToolName,
      last_result: snap.lastResult,
      resume: resumeSpec(agent.kind) ? 'supported' : 'unsupported',
      usage: null,
      turn_usage: null,
      usage_source: 'unsupported',
      budget_tokens: null,
      budget_exceeded: null,
    };
    if (snap.completionSeq !== undefined) info.completion_seq = snap.completionSeq;
    if (agent.sessionId !== null) info.session_id = agent.sessionId;
    info.usage = this.usage.usage(agent);
    info.turn_usage = this.usage.turnUsage(agent);
    info.usage_source = this.usage.sourceKind(agent);
    info.budget_tokens = agent.usage.agentLimit;
    info.budget_exceeded = agent.usage.exceeded;
    const trust = this.ruleTrust(pane);
    if (trust !== null) info.rules = trust;
    return info;
  }

  /**
   * How far the current screen verdict can be trusted: `verified`, `unverified` (the kind's
   * rules are guesses) or `generic` (common idioms, not the agent's own); null when no screen
   * rule decided (hooked, or nothing matched yet).
   */
  ruleTrust(pane: PaneRecord): RuleTrust | null {
    const agent = this.agentIn(pane);
    if (!agent?.rules || !agent.lastVerdict?.rule || agent.state.snapshot().hooked) return null;
    return ruleTrust(agent.decidedBy ?? agent.rules);
  }

  /**
   * A turn no rule saw: the agent answered on screen after a prompt without ever looking busy
   * (`agent prompt --wait`, src/actions/agent-actions.ts). Recorded as the turn it was —
   * working, then idle with its completion — so waiters and `done` see it. False when no
   * completion was recorded (the agent is not idle now, or a fresh hook event outranks the screen).
   */
  noteQuickTurn(pane: PaneRecord): boolean {
    const agent = this.agentIn(pane);
    const status = agent?.state.snapshot().status;
    if (!agent || (status !== 'idle' && status !== 'done')) return false;
    const now = this.clock.now();
    const visible = this.core.isWatched(pane);
    const before = agent.state.snapshot().completionSeq;
    for (const step of ['working', 'idle'] as const) {
      const change = agent.state.observeScreen(step, now, { visible });
      if (change) this.publish(pane, agent, change, 'screen');
    }
    return agent.state.snapshot().completionSeq !== before;
  }

  /**
   * Corral just submitted a prompt to the pane's agent: if its own rules see no work within
   * `FALLBACK.missAfterMs` while the screen changes, the generic rules read it
   * (src/agents/rule-fallback.ts). A check then runs even if the screen stays still.
   */
  notePromptSubmitted(pane: PaneRecord): void {
    const agent = this.agentIn(pane);
    const host = this.core.host(pane);
    if (!agent || !host) return;
    notePrompt(agent.prompt, this.clock.now(), host.outputGeneration);
    const watch = this.watch(pane.surfaceId);
    if (watch.promptTimer) this.clock.clear(watch.promptTimer);
    watch.promptTimer = this.clock.setTimeout(() => {
      watch.promptTimer = null;
      if (watch.agent === agent) this.screenCheck(pane.surfaceId);
    }, FALLBACK.missAfterMs);
  }

  /** Milliseconds blocked and since the last activity (fleet rows). */
  timings(pane: PaneRecord): { waiting_ms: number; idle_ms: number } {
    const snap = this.agentIn(pane)?.state.snapshot();
    if (!snap) return { waiting_ms: 0, idle_ms: 0 };
    const now = this.clock.now();
    return { waiting_ms: snap.status === 'blocked' ? now - snap.statusSince : 0, idle_ms: now - snap.lastActivityAt };
  }

  /**
   * Throws `invalid_agent_name` or `agent_name_taken` unless `name` may name the agent in
   * `pane` (null: an agent not started yet, so any live holder is a clash).
   */
  checkName(name: string, pane: PaneRecord | null): void {
    if (!AGENT_NAME.test(name)) {
      throw new CorralError('invalid_agent_name', `agent name "${name}" must match [a-z][a-z0-9_-]{0,31}`, { name });
    }
    const holder = this.paneByAgentName(name);
    if (holder && holder.surfaceId !== pane?.surfaceId) {
      throw new CorralError('agent_name_taken', `agent name "${name}" is taken by the agent in ${holder.id}`, { name, pane_id: holder.id });
    }
  }

  /** Names (or clears, with null) a pane's live agent. */
  rename(pane: PaneRecord, name: string | null): TrackedAgent {
    const agent = this.agentIn(pane);
    if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
    if (name !== null) this.checkName(name, pane);
    agent.name = name;
    this.core.emit({ type: 'agent.status_changed', ...this.ref(pane), ...this.eventFields(agent), renamed: true });
    return agent;
  }

  /** What decided the current status, for `agent explain`. */
  explain(pane: PaneRecord): string {
    const agent = this.agentIn(pane);
    if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
    const snap = agent.state.snapshot();
    const rules = agent.rules;
    const fallback = agent.fallback !== null && agent.decidedBy !== null && agent.decidedBy !== rules ? agent.decidedBy : null;
    const source = snap.hooked
      ? ' — hooked: hook events take precedence'
      : fallback
        ? ` — screen read with ${provenanceOf(fallback)}, because ${agent.fallback}`
        : rules
          ? ` — screen read with ${provenanceOf(rules)}`
          : '';
    const head = `${pane.id} ${agent.kind}${agent.name ? ` (${agent.name})` : ''}: ${snap.status}${source}`;
    const host = this.core.host(pane);
    if (!rules || !host) return `${head}\nno screen rules for ${agent.kind}`;
    const screen = this.readScreen(host, agent).snap;
    const cuts = explainCuts(agent, rules, screen.lines, host.terminal.isAlternateScreen);
    if (!fallback) return `${head}\n${explainRules(rules, screen)}\n${cuts}`;
    return `${head}\ndecided by the generic rules:\n${explainRules(fallback, screen)}\n\nthe kind's own rules:\n${explainRules(rules, screen)}\n${cuts}`;
  }

  /** Forces a process check now (agent start polls through this). */
  checkNow(pane: PaneRecord): TrackedAgent | null {
    this.processCheck(pane.surfaceId);
    const watch = this.watches.get(pane.surfaceId);
    if (watch?.agent) this.screenCheck(pane.surfaceId);
    return watch?.agent ?? null;
  }

  dispose(): void {
    for (const watch of this.watches.values()) {
      if (watch.agent) this.stopUsage(watch.agent);
      this.clearTimers(watch);
    }
    this.usage.dispose();
    this.watches.clear();
    if (this.stallTimer) this.clock.clear(this.stallTimer);
    this.stallTimer = null;
  }

  // -- detection --------------------------------------------------------------

  private watch(surfaceId: number): PaneWatch {
    let watch = this.watches.get(surfaceId);
    if (!watch) {
      watch = { agent: null, candidate: null, lastBellAt: -Infinity, bell: null, screenTimer: null, screenDeadline: 0, processTimer: null, lastProcessCheck: 0, confirmTimer: null, readyTimer: null, promptTimer: null };
      this.watches.set(surfaceId, watch);
    }
    return watch;
  }

  private scheduleProcessCheck(surfaceId: number): void {
    const watch = this.watch(surfaceId);
    if (watch.processTimer) return;
    const wait = Math.max(0, watch.lastProcessCheck + TRACKING.processCheckMs - this.clock.now());
    watch.processTimer = this.clock.setTimeout(() => {
      watch.processTimer = null;
      this.processCheck(surfaceId);
    }, wait);
  }

  private processKind(pane: PaneRecord): { kind: string; pid: number } | null {
    const host = this.core.host(pane);
    if (!host || host.exited) return null;
    const found = detectForeground(host.pid, this.processes);
    return found ? { kind: found.kind, pid: found.pid } : null;
  }

  private processCheck(surfaceId: number): void {
    const watch = this.watches.get(surfaceId);
    const pane = this.core.findPane(surfaceId);
    if (!watch || !pane) return;
    watch.lastProcessCheck = this.clock.now();
    const found = this.processKind(pane);
    const current = watch.agent;
    if (found && current && current.kind === found.kind && (current.pid === found.pid || current.pid === null)) {
      current.pid = found.pid;
      return;
    }
    const unknown = found ? null : this.unknownProgram(pane);
    // An agent recognised by the generic rules stays while its program holds the terminal.
    if (current && !found && unknown && current.pid === unknown.pid) return;
    if (current) this.drop(pane, watch);
    watch.candidate = null;
    if (found) {
      this.adopt(pane, watch, found.kind, found.pid);
      this.scheduleScreenCheck(surfaceId, this.clock.now());
    } else if (unknown && this.rules.has(GENERIC_KIND) && this.startCommands.get(surfaceId)?.adoptAnyProgram) {
      this.adopt(pane, watch, unknown.name, unknown.pid);
      this.scheduleScreenCheck(surfaceId, this.clock.now());
    } else if (unknown && this.rules.has(GENERIC_KIND)) {
      watch.candidate = unknown;
      this.scheduleScreenCheck(surfaceId, this.clock.now());
    }
  }

  /**
   * The pane's foreground program when it is not a shell and no known agent: a generic candidate.
   * Not while the program is still being started, or it would be named wrongly for good (the
   * pid stays): the shell's child between fork and exec still carries the shell's argv, and in
   * the middle of exec its command line reads empty while the kernel already gives the new
   * program's short name (`node` for `node newagent.mjs`).
   */
  private unknownProgram(pane: PaneRecord): Candidate | null {
    const host = this.core.host(pane);
    if (!host || host.exited) return null;
    const fg = foregroundProcess(host.pid, this.processes);
    if (!fg || fg.isShell) return null;
    const argv = this.processes.cmdline(fg.pid);
    if (argv === null || argv.length === 0 || isDeepStrictEqual(argv, processArgv(host.pid, this.processes))) return null;
    const name = programName(argv);
    return name ? { pid: fg.pid, name } : null;
  }

  /** A kind's own rules, else the generic set (an unknown program, or rules switched off). */
  private rulesFor(kind: string): AgentRules | null {
    return (kind !== GENERIC_KIND ? this.rules.get(kind) : undefined) ?? this.rules.get(GENERIC_KIND) ?? null;
  }

  private adopt(pane: PaneRecord, watch: PaneWatch, kind: string, pid: number | null): void {
    const agent: TrackedAgent = {
      kind,
      pid,
      name: null,
      rules: this.rulesFor(kind),
      sessionId: null,
      sessionIdFrom: null,
      sessionLookup: false,
      argv: null,
      startedAt: this.clock.now(),
      state: new AgentState(this.counter, this.clock.now()),
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
    watch.agent = agent;
    this.applyExpected(pane, agent);
    const host = this.core.host(pane);
    const command = this.startCommands.get(pane.surfaceId);
    this.startCommands.delete(pane.surfaceId);
    if (command !== undefined && host && !host.terminal.isAlternateScreen) {
      const { rows, firstRow } = this.screenRows(host);
      agent.startLine = startLineAtAdoption(rows, firstRow, command.command, command.beforeShell);
    }
    if (agent.rules?.generic && host && !watch.bell) {
      watch.bell = host.terminal.onBell(() => {
        watch.lastBellAt = this.clock.now();
      });
    }
    this.usage.resolve(agent);
    this.core.emit({ type: 'agent.detected', ...this.ref(pane), ...this.eventFields(agent) });
    this.core.emit({ type: 'ai.session_start', ...this.ref(pane), ...this.eventFields(agent), source: 'screen' });
  }

  /** The agent left the pane's foreground (exited, or replaced by another program). */
  private drop(pane: PaneRecord, watch: PaneWatch): void {
    const agent = watch.agent!;
    watch.agent = null;
    this.stopUsage(agent);
    watch.bell?.dispose();
    watch.bell = null;
    for (const timer of [watch.confirmTimer, watch.readyTimer, watch.promptTimer]) if (timer) this.clock.clear(timer);
    watch.confirmTimer = watch.readyTimer = watch.promptTimer = null;
    const fields = this.eventFields(agent);
    this.core.emit({ type: 'ai.exit', ...this.ref(pane), ...fields, source: agent.state.hooked ? 'hook' : 'screen' });
    this.core.emit({ type: 'ai.session_end', ...this.ref(pane), ...fields, source: 'screen' });
    this.core.emit({ type: 'agent.status_changed', ...this.ref(pane), ...fields, gone: true });
  }

  private scheduleScreenCheck(surfaceId: number, now: number): void {
    const watch = this.watch(surfaceId);
    if (watch.screenTimer) {
      // Keep debouncing while output flows, but never past the deadline.
      if (now + TRACKING.screenSettleMs > watch.screenDeadline) return;
      this.clock.clear(watch.screenTimer);
    } else {
      watch.screenDeadline = now + TRACKING.screenMaxWaitMs;
    }
    watch.screenTimer = this.clock.setTimeout(() => {
      watch.screenTimer = null;
      this.screenCheck(surfaceId);
    }, TRACKING.screenSettleMs);
  }

  /** The screen rows detection reads, and the absolute row number of the first. */
  private screenRows(host: PaneHost): { rows: string[]; firstRow: number } {
    const read = host.terminal.read({ source: 'detection' });
    const rows = read.text === '' ? [] : read.text.split('\n');
    return { rows, firstRow: read.endLine - rows.length };
  }

  /**
   * What the agent's rules read: its screen, without the rows from before it started, and
   * where its start line stands now (null once it is gone). A read changes nothing: only the
   * screen check moves `agent.startLine`, so whether an echo still hides the old rows never
   * depends on who else looked at the screen in between (`agent explain`).
   */
  private readScreen(host: PaneHost, agent: TrackedAgent | null): { snap: ScreenSnapshot; startLine: StartLine | null } {
    const { rows, firstRow } = this.screenRows(host);
    let shown: readonly string[] = rows;
    let startLine: StartLine | null = null;
    if (agent?.startLine && !host.terminal.isAlternateScreen) {
      const below = rowsBelowStartLine(rows, firstRow, agent.startLine);
      shown = below.rows;
      startLine = below.line;
    }
    return { snap: snapshotFromText(shown.join('\n'), host.terminal.title, progressString(host.terminal.progress)), startLine };
  }

  private screenCheck(surfaceId: number): void {
    const watch = this.watches.get(surfaceId);
    const pane = this.core.findPane(surfaceId);
    if (!watch || !pane) return;
    const host = this.core.host(pane);
    if (!host) return;
    const { snap, startLine } = this.readScreen(host, watch.agent);
    // The one place the start line moves: once the echo is gone, every row is the agent's for good.
    if (watch.agent) watch.agent.startLine = startLine;
    if (!watch.agent && watch.candidate) {
      // An unknown program becomes an agent once it shows an agent's working or blocked idiom.
      const generic = this.rules.get(GENERIC_KIND);
      const early = generic ? evaluateRules(generic, snap).status : 'idle';
      if (early !== 'working' && early !== 'blocked') return;
      this.adopt(pane, watch, watch.candidate.name, watch.candidate.pid);
      watch.candidate = null;
      watch.agent!.state.foundWorking();
    }
    const agent = watch.agent;
    const rules = agent?.rules;
    if (!agent || !rules) return;
    const now = this.clock.now();
    const decision = decide(rules, this.rules.get(GENERIC_KIND) ?? null, snap, agent.prompt, now, host.outputGeneration);
    const verdict = decision.verdict;
    agent.lastVerdict = verdict;
    agent.decidedBy = decision.rules;
    agent.fallback = decision.fallback;
    const detected = agent.state.snapshot().detected;
    let status: DetectedStatus = verdict.status;
    if (status === 'idle' && (detected === 'working' || detected === 'blocked')) {
      // working→idle must hold for the kind's window, or a redraw between frames would flicker it.
      // A BEL rung since the turn began is the agent saying the turn ended (Codex does): for
      // agents read with the generic rules, it ends the window early.
      // The window starts when the idle screen arrived (its last output), not when we looked.
      agent.pendingIdleSince ??= Math.min(now, host.lastOutputAt ?? now);
      const since = agent.state.snapshot().statusSince;
      const busyRules = agent.busyRules ?? rules;
      const belled = busyRules.generic && watch.lastBellAt >= since;
      const confirmMs = belled ? 0 : idleConfirmMs(busyRules, agent.pendingIdleSince - since);
      if (now - agent.pendingIdleSince < confirmMs) {
        if (!watch.confirmTimer) {
          watch.confirmTimer = this.clock.setTimeout(() => {
            watch.confirmTimer = null;
            this.screenCheck(surfaceId);
          }, confirmMs - (now - agent.pendingIdleSince));
        }
        return;
      }
    }
    agent.pendingIdleSince = null;
    if (watch.confirmTimer) this.clock.clear(watch.confirmTimer);
    watch.confirmTimer = null;
    if (status === 'unknown') status = detected === 'unknown' ? 'unknown' : detected;
    const wasReady = agent.state.snapshot().interactiveReady;
    const change = agent.state.observeScreen(status, now, {
      message: verdict.message,
      visible: this.core.isWatched(pane),
      interrupted: (verdict.rule?.interrupted ?? false) || now - agent.interruptedAt < TRACKING.interruptWindowMs,
      ready: wasReady || (showsReady(decision.rules, verdict, snap) && this.takesKeys(surfaceId, watch, host, agent, snap, now)),
    });
    if (status === 'working' || status === 'blocked') agent.busyRules = decision.rules;
    noteTurnScreen(agent, snap.lines, status === 'working' || status === 'blocked', host.terminal.isAlternateScreen);
    if (change) this.publish(pane, agent, change, 'screen');
    else if (!wasReady && agent.state.snapshot().interactiveReady) {
      // Same status, but its input just became live: waiters on readiness must hear of it.
      this.core.emit({ type: 'agent.status_changed', ...this.ref(pane), ...this.eventFields(agent), interactive_ready: true });
    }
  }

  /**
   * Whether the agent's program takes its keys now. The generic rules know no agent's idle
   * screen, so its first frame says nothing of a live input: a program that has not yet turned
   * the kernel's line editing off is still starting, and text typed then is echoed by the
   * kernel (it looks landed) and lost when the program takes the terminal over. A kind with its
   * own ready rule has shown its input already. While the terminal still assembles lines, the
   * check runs again shortly, and passes after `genericLineModeReadyMs` for a line-mode program.
   */
  private takesKeys(surfaceId: number, watch: PaneWatch, host: PaneHost, agent: TrackedAgent, snap: ScreenSnapshot, now: number): boolean {
    if (!agent.rules?.generic) return true;
    // A program that has drawn nothing yet has no input to type into (OpenCode reads keys for
    // half a minute under load before it draws); its first frame brings the next check.
    if (!snap.lines.some((line) => line.trim() !== '')) return false;
    const mode = host.process.lineMode();
    if (mode === null || readsKeysItself(mode) || now - agent.startedAt >= TRACKING.genericLineModeReadyMs) return true;
    watch.readyTimer ??= this.clock.setTimeout(() => {
      watch.readyTimer = null;
      if (watch.agent === agent) this.screenCheck(surfaceId);
    }, TRACKING.genericReadyPollMs);
    return false;
  }

  // -- events -----------------------------------------------------------------

  /** Emits `agent.status_changed`, plus the matching `ai.*` for screen-detected transitions. */
  private publish(pane: PaneRecord, agent: TrackedAgent, change: StatusChange, source: 'screen' | null): void {
    const fields = this.eventFields(agent);
    if (source === 'screen') {
      const aiType = AI_EVENT_FOR[change.to];
      const fromWork = change.from === 'working' || change.from === 'blocked' || change.from === 'stalled';
      if (aiType && (aiType !== 'ai.stop' || fromWork)) this.core.emit({ type: aiType, ...this.ref(pane), ...fields, source });
    }
    this.core.emit({ type: 'agent.status_changed', ...this.ref(pane), ...fields, previous_status: change.from });
    this.updateStallTimer();
    if (change.to === 'idle' || change.to === 'done') {
      agent.turnOpen = false;
      this.lookUpSessionId(pane, agent);
    }
    if (change.to === 'working') {
      // Work nobody here prompted (a person typed): its usage is a turn of its own.
      if (!agent.turnOpen) this.openTurn(agent, null);
      // Its record exists once it works: a budget needs it during this first turn already.
      this.lookUpSessionId(pane, agent);
    }
  }

  // -- usage and budgets (SPEC §18) ---------------------------------------------

  /** A turn begins for the pane's agent (corral submits a prompt), with its own limit or none. */
  openTurnIn(pane: PaneRecord, maxTokens: number | null): void {
    const agent = this.agentIn(pane);
    if (agent) this.openTurn(agent, maxTokens);
  }

  private openTurn(agent: TrackedAgent, maxTokens: number | null): void {
    agent.turnOpen = true;
    this.usage.openTurn(agent, maxTokens);
  }

  /** What the pane's agent spent (SPEC §18); null when unknown. */
  usageOf(pane: PaneRecord): AgentUsage | null {
    const agent = this.agentIn(pane);
    return agent ? this.usage.usage(agent) : null;
  }

  /** The pane's agent's next turn nobody here prompts is bounded by `maxTokens` (an `up` pane's prompt). */
  limitNextTurn(pane: PaneRecord, maxTokens: number): void {
    const agent = this.agentIn(pane);
    if (agent) agent.usage.pendingTurnLimit = maxTokens;
  }

  /** The shared budget named `name` (a flow's, an `up` workspace's), made on first use. */
  sharedBudget(name: string, limit: number): SharedBudget {
    let budget = this.shared.get(name);
    if (!budget) {
      budget = { limit, base: new Map(), exceeded: null };
      this.shared.set(name, budget);
    }
    return budget;
  }

  /** The agent is gone: its usage tracking ends, and a shared budget it was the last member of is forgotten. */
  private stopUsage(agent: TrackedAgent): void {
    for (const budget of this.usage.stop(agent)) {
      for (const [name, known] of this.shared) if (known === budget) this.shared.delete(name);
    }
  }

  /** The shared budget named `name`, if made. */
  findSharedBudget(name: string): SharedBudget | undefined {
    return this.shared.get(name);
  }

  /** Throws `budget_exceeded` when the pane's agent has spent its budget: nothing may be typed. */
  checkBudget(pane: PaneRecord): void {
    const agent = this.agentIn(pane);
    const spent = agent ? this.usage.spent(agent) : null;
    if (!spent) return;
    throw new CorralError('budget_exceeded', `the agent in ${pane.id} has spent its ${spent.scope === 'flow' ? "flow's " : ''}budget (${spent.used} of ${spent.limit} tokens); nothing was sent — raise or clear it with agent budget`, { limit: spent.limit, used: spent.used, scope: spent.scope, pane_id: pane.id });
  }

  private paneOf(agent: TrackedAgent): PaneRecord | null {
    for (const [surfaceId, watch] of this.watches) if (watch.agent === agent) return this.core.findPane(surfaceId) ?? null;
    return null;
  }

  private emitUsage(agent: TrackedAgent): void {
    const pane = this.paneOf(agent);
    if (!pane) return;
    this.core.emit({ type: 'agent.usage', ...this.ref(pane), agent: agent.name ?? pane.id, usage: this.usage.usage(agent), turn_usage: this.usage.turnUsage(agent) });
  }

  /** Presses the kind's interrupt keys (the agent is interrupted, never killed) and tells everyone. */
  private budgetExceeded(agent: TrackedAgent, exceeded: BudgetExceeded): void {
    const pane = this.paneOf(agent);
    if (!pane) return;
    const detected = agent.state.snapshot().detected;
    if (detected === 'working' || detected === 'blocked') {
      const keys = agent.rules?.interruptKeys.length ? agent.rules.interruptKeys : DEFAULT_INTERRUPT_KEYS;
      this.core.pressKeys?.(pane, keys, INTERRUPT_KEY_GAP_MS);
    }
    this.core.emit({ type: 'agent.budget_exceeded', ...this.ref(pane), ...this.eventFields(agent), agent: agent.name ?? pane.id, ...exceeded });
  }

  // -- the agent's own session (SPEC §13) ---------------------------------------

  /**
   * Records the command line `agent start` typed: what a restore resumes with. An argv that
   * already resumes a session (`--resume <id>`) names that session.
   */
  noteStarted(pane: PaneRecord, argv: readonly string[]): void {
    const agent = this.agentIn(pane);
    if (!agent) return;
    agent.argv = [...argv];
    const resumed = resumedSessionId(agent.kind, argv);
    if (resumed !== null && agent.sessionIdFrom !== 'hook') {
      agent.sessionId = resumed;
      agent.sessionIdFrom = 'argv';
      this.usage.resolve(agent);
    }
    this.lookUpSessionId(pane, agent);
  }

  /**
   * A restore typed the command that resumes an agent in this pane: when an agent of that
   * kind shows up there it gets back its name, its command line and its session id.
   */
  expectAgent(pane: PaneRecord, expected: ExpectedAgent): void {
    this.expected.set(pane.surfaceId, expected);
  }

  /**
   * Corral is about to type `command` (without its Enter) to start an agent in this pane: the
   * agent that shows up is read below the row where the shell echoes it (src/agents/start-line.ts).
   * Null forgets it (the start is over, with or without an agent). `beforeShell`: typed ahead
   * into a shell still starting (a restore), so the echo may come after the agent is found.
   * `adoptAnyProgram`: the command is a generic agent's (`agent start --kind generic`), so the
   * program it starts is an agent read with the generic rules from its first frame — not only
   * once it shows a working or blocked idiom, as an unknown program found by chance must.
   */
  expectCommand(pane: PaneRecord, command: string | null, opts: { beforeShell?: boolean; adoptAnyProgram?: boolean } = {}): void {
    if (command === null) this.startCommands.delete(pane.surfaceId);
    else this.startCommands.set(pane.surfaceId, { command, beforeShell: opts.beforeShell ?? false, adoptAnyProgram: opts.adoptAnyProgram ?? false });
  }

  /** Gives a freshly adopted agent what a restore said it was (its kind must match). */
  private applyExpected(pane: PaneRecord, agent: TrackedAgent): void {
    const expected = this.expected.get(pane.surfaceId);
    if (!expected) return;
    this.expected.delete(pane.surfaceId);
    if (expected.kind !== agent.kind) return;
    agent.argv = [...expected.argv];
    if (expected.sessionId !== null) {
      agent.sessionId = expected.sessionId;
      agent.sessionIdFrom = 'argv';
    }
    if (expected.name !== null && AGENT_NAME.test(expected.name) && !this.paneByAgentName(expected.name)) agent.name = expected.name;
  }

  /** The argv that resumes the pane's agent in its own session, or null (no id, no resume form). */
  resumeCommand(pane: PaneRecord): string[] | null {
    const agent = this.agentIn(pane);
    if (!agent?.sessionId) return null;
    const argv = agent.argv ?? [agent.kind];
    return resumeArgv(agent.kind, agent.sessionId, argv);
  }

  /** Looks for the agent's session id in its session files, when nothing better named it. */
  private lookUpSessionId(pane: PaneRecord, agent: TrackedAgent): void {
    const specs = resumeSpec(agent.kind)?.sessionFiles ?? [];
    if (agent.sessionIdFrom !== null || agent.sessionLookup || agent.pid === null || specs.length === 0) return;
    const claimed = new Set<string>();
    for (const other of this.agents()) if (other.agent !== agent && other.agent.sessionId) claimed.add(other.agent.sessionId);
    const facts = agentProcessFacts(agent.pid, this.core.paneCwd?.(pane) ?? '', agent.startedAt, claimed);
    if (!facts) return;
    agent.sessionLookup = true;
    findSessionId(specs, facts)
      .then((id) => {
        if (id === null || agent.sessionIdFrom !== null || this.agentIn(pane) !== agent) return;
        agent.sessionId = id;
        agent.sessionIdFrom = 'files';
        this.usage.resolve(agent);
      })
      .catch(() => {})
      .finally(() => {
        agent.sessionLookup = false;
      });
  }

  private eventFields(agent: TrackedAgent) {
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

  private ref(pane: PaneRecord) {
    return { surface_id: pane.surfaceId, pane_id: pane.id, workspace: pane.workspaceId };
  }

  /** Runs the stall check only while some agent is working. */
  private updateStallTimer(): void {
    const anyWorking = [...this.watches.values()].some((w) => w.agent?.state.snapshot().detected === 'working');
    if (anyWorking && !this.stallTimer) {
      this.stallTimer = this.clock.setInterval(() => this.checkStalls(), TRACKING.stallCheckMs);
      this.stallTimer.unref();
    } else if (!anyWorking && this.stallTimer) {
      this.clock.clear(this.stallTimer);
      this.stallTimer = null;
    }
  }

  private checkStalls(): void {
    const now = this.clock.now();
    const threshold = this.core.stallThresholdMs();
    for (const [surfaceId, watch] of this.watches) {
      const pane = this.core.findPane(surfaceId);
      if (!watch.agent || !pane) continue;
      const change = watch.agent.state.checkStall(now, threshold, this.core.isWatched(pane));
      if (change) this.publish(pane, watch.agent, change, 'screen');
    }
  }

  private clearTimers(watch: PaneWatch): void {
    watch.bell?.dispose();
    watch.bell = null;
    for (const timer of [watch.screenTimer, watch.processTimer, watch.confirmTimer, watch.readyTimer, watch.promptTimer]) if (timer) this.clock.clear(timer);
    watch.screenTimer = watch.processTimer = watch.confirmTimer = watch.readyTimer = watch.promptTimer = null;
  }
}

/** An idle rule that is not an interrupt: positive evidence that the agent's input is live. */
function isReadyRule(rule: Rule): boolean {
  return rule.state === 'idle' && !rule.interrupted;
}

/**
 * Whether the screen shows the agent's input is live: a ready rule matches, even under a
 * higher interrupt rule (a resumed pi redraws an old "Operation aborted" above its editor,
 * which alone says nothing of readiness); a kind with no ready rule is ready when idle.
 */
function showsReady(rules: AgentRules, verdict: RuleVerdict, snap: ScreenSnapshot): boolean {
  if (verdict.rule && isReadyRule(verdict.rule)) return true;
  if (!rules.rules.some(isReadyRule)) return true;
  return verdict.rule?.interrupted === true && matchingRules(rules, snap).some(({ rule }) => isReadyRule(rule));
}

/** The `ai.*` event a screen-detected transition stands for (SPEC §7: emitted for both sources). */
const AI_EVENT_FOR: Partial<Record<string, AiEventType>> = {
  working: 'ai.prompt_submit',
  blocked: 'ai.notification',
  idle: 'ai.stop',
  done: 'ai.stop',
};
