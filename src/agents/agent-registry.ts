/**
 * Which agent runs in which pane, and in what state. Watches each pane cheaply — a process
 * check only after output (throttled), a screen check only on settled output of panes that
 * host an agent — and turns what it sees, plus hook events, into each agent's state machine
 * and into `agent.*` and `ai.*` events. Its parts: tracked-agent.ts (what it keeps), agent-info.ts,
 * hook-state.ts, agent-budgets.ts (SPEC §18) and agent-sessions.ts (SPEC §13).
 */
import { isAgentKind } from './kinds.js';
import { CorralError, type AgentInfo, type AiEventType } from '../contract/protocol.js';
import { isDeepStrictEqual } from 'node:util';
import type { PaneRecord } from '../session/model.js';
import type { PaneHost } from '../pty/pane-host.js';
import { AgentState, SequenceCounter, type DetectedStatus, type StatusChange } from './agent-state.js';
import { foregroundProcess, processArgv, PROC, type ProcessTable } from '../pty/foreground.js';
import { SYSTEM_CLOCK, type Clock } from '../clock.js';
import { detectForeground, programName } from './process-detect.js';
import { evaluateRules, GENERIC_KIND, type AgentRules, type ScreenSnapshot } from './rules.js';
import { progressString, snapshotFromText } from './screen-snapshot.js';
import { isValidSessionId } from './resume.js';
import { readsKeysItself } from '../pty/line-mode.js';
import { decide, FALLBACK, notePrompt } from './rule-fallback.js';
import { noteTurnScreen } from './turn-screens.js';
import { rowsBelowStartLine, startLineAtAdoption, type StartLine } from './start-line.js';
import { AgentBudgets } from './agent-budgets.js';
import { AgentSessions } from './agent-sessions.js';
import { observeHook } from './hook-state.js';
import { agentInfo, agentTimings, explainAgent } from './agent-info.js';
import { WhileWorking } from './while-working.js';
import {
  agentEventFields,
  newTrackedAgent,
  AGENT_NAME,
  AI_EVENT_FOR,
  idleConfirmMs,
  INTERRUPT_KEYS,
  paneRef,
  showsReady,
  TRACKING,
  type Candidate,
  type PaneWatch,
  type RegistryHost,
  type RegistrySeams,
  type TrackedAgent,
} from './tracked-agent.js';

export class AgentRegistry {
  private readonly counter = new SequenceCounter();
  private readonly watches = new Map<number, PaneWatch>();
  /** The command line corral last typed to start an agent, by surface id, until one shows up. */
  private readonly startCommands = new Map<number, { command: string; beforeShell: boolean; adoptAnyProgram: boolean }>();
  /** The stall check, on a timer only while some agent works. */
  private readonly stalls: WhileWorking;
  private readonly clock: Clock;
  private readonly processes: ProcessTable;
  /** What agents spend, and their budgets (SPEC §18, src/agents/agent-budgets.ts). */
  readonly budgets: AgentBudgets;
  /** Each agent's own session: its command line, its session id, a restored agent's identity (SPEC §13). */
  readonly sessions: AgentSessions;

  constructor(
    private readonly core: RegistryHost,
    private readonly rules: ReadonlyMap<string, AgentRules>,
    seams: RegistrySeams = {},
  ) {
    this.clock = seams.clock ?? SYSTEM_CLOCK;
    this.processes = seams.processes ?? PROC;
    this.stalls = new WhileWorking(this.clock, TRACKING.stallCheckMs, () => this.checkStalls());
    this.budgets = new AgentBudgets({
      clock: this.clock,
      agentIn: (pane) => this.agentIn(pane),
      paneOf: (agent) => this.paneOf(agent),
      trackedAgents: () => [...this.watches.values()].flatMap((w) => (w.agent ? [w.agent] : [])),
      emit: (event) => core.emit(event),
      pressKeys: core.pressKeys ? (pane, keys, gapMs) => core.pressKeys!(pane, keys, gapMs) : undefined,
      lookUpSession: (pane, agent) => this.sessions.lookUp(pane, agent),
    });
    this.sessions = new AgentSessions({
      agentIn: (pane) => this.agentIn(pane),
      agents: () => this.agents(),
      paneByAgentName: (name) => this.paneByAgentName(name),
      paneCwd: core.paneCwd ? (pane) => core.paneCwd!(pane) : undefined,
      sessionResolved: (agent) => this.budgets.usage.resolve(agent),
    });
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
    this.sessions.forget(surfaceId);
    this.startCommands.delete(surfaceId);
    const watch = this.watches.get(surfaceId);
    if (!watch) return;
    if (watch.agent) this.budgets.stop(watch.agent);
    this.clearTimers(watch);
    this.watches.delete(surfaceId);
  }

  /**
   * Input written to a pane (from the TUI or a script). An Esc or ctrl+c while the agent works
   * means the turn was cut short, which not every agent shows on screen (Codex may not).
   */
  paneInput(pane: PaneRecord, data: string): void {
    if (data.includes('\r') || data.includes('\n')) this.checkAfterSubmit(pane.surfaceId, TRACKING.submitChecks);
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
      this.budgets.usage.resolve(agent);
    }
    const change = observeHook(agent.state, event, params, now, visible);
    this.core.emit({ type: event as AiEventType, ...paneRef(pane), ...agentEventFields(agent), source: 'hook' });
    if (change) this.publish(pane, agent, change, null);
    else if (!wasReady && agent.state.snapshot().interactiveReady) {
      // Same status (Qwen's SessionStart hook on an idle screen), but its input just became
      // live: `agent start` waits on status changes and must hear of it, as from the screen.
      this.core.emit({ type: 'agent.status_changed', ...paneRef(pane), ...agentEventFields(agent), interactive_ready: true });
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
    return agentInfo(pane, this.requireAgent(pane), cwd, this.budgets.usage);
  }

  /** Milliseconds blocked and since the last activity (fleet rows). */
  timings(pane: PaneRecord): { waiting_ms: number; idle_ms: number } {
    const agent = this.agentIn(pane);
    return agent ? agentTimings(agent, this.clock.now()) : { waiting_ms: 0, idle_ms: 0 };
  }

  /** The pane's agent; `agent_not_found` when none runs there. */
  private requireAgent(pane: PaneRecord): TrackedAgent {
    const agent = this.agentIn(pane);
    if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
    return agent;
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
    this.core.emit({ type: 'agent.status_changed', ...paneRef(pane), ...agentEventFields(agent), renamed: true });
    return agent;
  }

  /** What decided the current status, for `agent explain`. */
  explain(pane: PaneRecord): string {
    const agent = this.requireAgent(pane);
    const host = this.core.host(pane);
    const screen = agent.rules && host ? this.readScreen(host, agent).snap : null;
    return explainAgent(pane, agent, screen, host?.terminal.isAlternateScreen ?? false);
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
      if (watch.agent) this.budgets.stop(watch.agent);
      this.clearTimers(watch);
    }
    this.budgets.usage.dispose();
    this.watches.clear();
    this.stalls.dispose();
  }

  // -- detection --------------------------------------------------------------

  private watch(surfaceId: number): PaneWatch {
    let watch = this.watches.get(surfaceId);
    if (!watch) {
      watch = { agent: null, candidate: null, lastBellAt: -Infinity, bell: null, screenTimer: null, screenDeadline: 0, processTimer: null, lastProcessCheck: 0, submitTimer: null, confirmTimer: null, readyTimer: null, promptTimer: null };
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

  /** Looks for a program in a pane with none found yet, `left` times, `processCheckMs` apart. */
  private checkAfterSubmit(surfaceId: number, left: number): void {
    const watch = this.watch(surfaceId);
    // A candidate does not end the checks: it may be a launcher (`env node …`) caught on its way.
    if (watch.agent || left <= 0) return;
    if (watch.submitTimer) this.clock.clear(watch.submitTimer);
    watch.submitTimer = this.clock.setTimeout(() => {
      watch.submitTimer = null;
      this.processCheck(surfaceId);
      this.checkAfterSubmit(surfaceId, left - 1);
    }, TRACKING.processCheckMs);
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
   * program's short name (`node` for `node newagent.mjs`; `foregroundProcess` flags it `execing`).
   * A zombie leader's command line reads empty for good: no candidate either.
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
    const agent = newTrackedAgent(kind, pid, this.rulesFor(kind), new AgentState(this.counter, this.clock.now()), this.clock.now());
    watch.agent = agent;
    this.sessions.applyExpected(pane, agent);
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
    this.budgets.usage.resolve(agent);
    this.core.emit({ type: 'agent.detected', ...paneRef(pane), ...agentEventFields(agent) });
    this.core.emit({ type: 'ai.session_start', ...paneRef(pane), ...agentEventFields(agent), source: 'screen' });
  }

  /** The agent left the pane's foreground (exited, or replaced by another program). */
  private drop(pane: PaneRecord, watch: PaneWatch): void {
    const agent = watch.agent!;
    watch.agent = null;
    this.budgets.stop(agent);
    watch.bell?.dispose();
    watch.bell = null;
    for (const timer of [watch.confirmTimer, watch.readyTimer, watch.promptTimer]) if (timer) this.clock.clear(timer);
    watch.confirmTimer = watch.readyTimer = watch.promptTimer = null;
    const fields = agentEventFields(agent);
    this.core.emit({ type: 'ai.exit', ...paneRef(pane), ...fields, source: agent.state.hooked ? 'hook' : 'screen' });
    this.core.emit({ type: 'ai.session_end', ...paneRef(pane), ...fields, source: 'screen' });
    this.core.emit({ type: 'agent.status_changed', ...paneRef(pane), ...fields, gone: true });
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
      this.core.emit({ type: 'agent.status_changed', ...paneRef(pane), ...agentEventFields(agent), interactive_ready: true });
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
    const fields = agentEventFields(agent);
    if (source === 'screen') {
      const aiType = AI_EVENT_FOR[change.to];
      const fromWork = change.from === 'working' || change.from === 'blocked' || change.from === 'stalled';
      if (aiType && (aiType !== 'ai.stop' || fromWork)) this.core.emit({ type: aiType, ...paneRef(pane), ...fields, source });
    }
    this.core.emit({ type: 'agent.status_changed', ...paneRef(pane), ...fields, previous_status: change.from });
    this.stalls.update([...this.watches.values()].some((w) => w.agent?.state.snapshot().detected === 'working'));
    if (change.to === 'idle' || change.to === 'done') {
      agent.turnOpen = false;
      this.sessions.lookUp(pane, agent);
    }
    if (change.to === 'working') {
      // Work nobody here prompted (a person typed): its usage is a turn of its own.
      if (!agent.turnOpen) this.budgets.openTurn(agent, null);
      // Its record exists once it works: a budget needs it during this first turn already.
      this.sessions.lookUp(pane, agent);
    }
  }

  /** The pane an agent runs in, or null once it is gone. */
  paneOf(agent: TrackedAgent): PaneRecord | null {
    for (const [surfaceId, watch] of this.watches) if (watch.agent === agent) return this.core.findPane(surfaceId) ?? null;
    return null;
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
    for (const timer of [watch.screenTimer, watch.processTimer, watch.submitTimer, watch.confirmTimer, watch.readyTimer, watch.promptTimer]) if (timer) this.clock.clear(timer);
    watch.screenTimer = watch.processTimer = watch.submitTimer = watch.confirmTimer = watch.readyTimer = watch.promptTimer = null;
  }
}
