/**
 * Follows what each live agent spends (SPEC §18) and holds its budgets. Driven by the record
 * changing: once the agent's session id names its record (or its SQLite store), a watch on
 * that file's directory reads what was appended; nothing polls per agent. The one timer is
 * shared: while some agent's record is still unknown, it looks again every `resolveMs`.
 *
 * Budgets: a turn's (`agent prompt --max-tokens`), the agent's own (`agent budget`), and the
 * flows that drive it (orchestration adds them). Crossing one presses the kind's interrupt
 * keys once, marks the agent `budget_exceeded` and tells the host, which emits the event.
 */
import type { AgentUsage, BudgetExceeded, BudgetScope, UsageSourceKind, UsageTurn } from '../contract/objects.js';
import type { Clock, ClockTimer } from '../clock.js';
import type { AgentRules } from './rules-schema.js';
import { findSessionRecord } from './session-answers.js';
import { processEnv } from './session-files.js';
import { sqliteFileOf, UsageSource, type UsageLocation } from './usage-source.js';
import { totalOf, ZERO_COUNTS } from './session-usage.js';
import { DirWatches } from './dir-watch.js';
import type { Disposable } from '../contract/disposable.js';

export const USAGE_TRACKING = {
  /** `agent.usage` at most this often per agent (SPEC §18). */
  eventIntervalMs: 1000,
  /** While an agent's record is not found yet, the shared look-up runs this often… */
  resolveMs: 1000,
  /** …this many times at most per agent: a record written a minute after its session is named is not coming. */
  maxLookups: 60,
} as const;

/** A budget over several agents (a flow's `budget_tokens`): their usage since it began, summed. */
export interface SharedBudget {
  limit: number;
  /** Each member's total when it joined: only what it spends from then on counts. */
  readonly base: Map<object, number>;
  exceeded: BudgetExceeded | null;
}

/** What the tracker keeps per agent (on the registry's tracked agent). */
export interface UsageTrack {
  source: UsageSource | null;
  resolving: boolean;
  watcher: Disposable | null;
  lastEmitAt: number;
  emitTimer: ClockTimer | null;
  /** The usage when this turn began (corral's prompt, or work seen starting); null before any. */
  turnBase: AgentUsage | null;
  turnLimit: number | null;
  /** The limit of the next turn nobody here prompts (an `up` pane's typed prompt, sent by a person). */
  pendingTurnLimit: number | null;
  agentLimit: number | null;
  shared: Set<SharedBudget>;
  exceeded: BudgetExceeded | null;
  closed: boolean;
  /** Look-ups of its record (or, before, of its session id) that found nothing. */
  lookups: number;
  /** A turn began: from then on its session is worth looking for until it is found. */
  worked: boolean;
  /** The counts the last `agent.usage` carried (or is about to): a record line that changes none is no news. */
  toldKey: string;
}

/** The part of a tracked agent the tracker reads. */
export interface UsageAgent {
  kind: string;
  pid: number | null;
  sessionId: string | null;
  rules: AgentRules | null;
  usage: UsageTrack;
}

/** What the tracker tells its owner. */
export interface UsageHost {
  /** The agent's counts moved (throttled to one per agent per `eventIntervalMs`). */
  usageChanged(agent: UsageAgent): void;
  /** The agent crossed a budget: press its interrupt keys and tell everyone. */
  budgetExceeded(agent: UsageAgent, exceeded: BudgetExceeded): void;
  /** Every live agent (the shared look-up walks them). */
  agents(): Iterable<UsageAgent>;
  /** Looks for the agent's session id again (its files may name it only a while after its turn began). */
  lookUpSession?(agent: UsageAgent): void;
}

export function newUsageTrack(): UsageTrack {
  return { source: null, resolving: false, watcher: null, lastEmitAt: -Infinity, emitTimer: null, turnBase: null, turnLimit: null, pendingTurnLimit: null, agentLimit: null, shared: new Set(), exceeded: null, closed: false, lookups: 0, toldKey: '', worked: false };
}

function minus(now: AgentUsage, base: AgentUsage | null): AgentUsage {
  if (base === null) return now;
  const counts = {
    input: Math.max(0, now.input - base.input),
    output: Math.max(0, now.output - base.output),
    cache_read: Math.max(0, now.cache_read - base.cache_read),
    cache_write: Math.max(0, now.cache_write - base.cache_write),
  };
  const turn: AgentUsage = { ...counts, total: totalOf(counts), calls: Math.max(0, now.calls - base.calls), context_tokens: now.context_tokens };
  if (now.context_window !== undefined) turn.context_window = now.context_window;
  if (now.cost_usd !== undefined) turn.cost_usd = Math.round((now.cost_usd - (base.cost_usd ?? 0)) * 1e6) / 1e6;
  return turn;
}

export class UsageTracker {
  private resolveTimer: ClockTimer | null = null;
  /** One watch per directory, however many agents' records live in it. */
  private readonly watches = new DirWatches();

  constructor(
    private readonly host: UsageHost,
    private readonly clock: Clock,
  ) {}

  /** Where the kind keeps its usage, as `usage_source` says it. */
  sourceKind(agent: UsageAgent): UsageSourceKind {
    const spec = agent.rules?.usage;
    if (!spec || agent.rules?.generic) return 'unsupported';
    return spec.sqlite ? 'sqlite' : 'record';
  }

  /** The agent's usage now; null when unknown. */
  usage(agent: UsageAgent): AgentUsage | null {
    return agent.usage.source?.usage() ?? null;
  }

  /** This turn's usage so far; null when unknown. */
  turnUsage(agent: UsageAgent): AgentUsage | null {
    const now = this.usage(agent);
    return now === null ? null : minus(now, agent.usage.turnBase ?? { ...ZERO_COUNTS, total: 0, calls: 0, context_tokens: 0 });
  }

  /** Every turn of the agent's record. */
  turns(agent: UsageAgent): UsageTurn[] {
    return agent.usage.source?.turns() ?? [];
  }

  /** The session id may be known now, or the agent started work: find its record if not yet found. */
  resolve(agent: UsageAgent): void {
    const track = agent.usage;
    if (track.source || track.resolving || track.closed || this.sourceKind(agent) === 'unsupported') return;
    if (agent.sessionId === null) {
      // Its finding (hooks, argv, files) calls again; once it has worked, the files are looked
      // at again on the shared timer (OpenCode names a session in its log a while after it began).
      if (track.worked && track.lookups < USAGE_TRACKING.maxLookups) {
        track.lookups++;
        this.host.lookUpSession?.(agent);
        this.armResolve();
      }
      return;
    }
    track.resolving = true;
    this.locate(agent, agent.sessionId)
      .then((location) => {
        if (track.closed || track.source) return;
        if (location === null) {
          // The id is known but its record not written yet: looked for again, a bounded number of times.
          if (++track.lookups < USAGE_TRACKING.maxLookups) this.armResolve();
          return;
        }
        track.source = new UsageSource(agent.rules!, location);
        this.startWatch(agent);
        this.read(agent);
      })
      .catch(() => {
        if (++track.lookups < USAGE_TRACKING.maxLookups) this.armResolve();
      })
      .finally(() => {
        track.resolving = false;
      });
  }

  private async locate(agent: UsageAgent, session: string): Promise<UsageLocation | null> {
    const rules = agent.rules!;
    const env = agent.pid === null ? {} : processEnv(agent.pid);
    const sqlite = sqliteFileOf(rules, env);
    if (sqlite !== null) return { kind: 'sqlite', file: sqlite, session };
    const file = await findSessionRecord(rules.resume?.sessionFiles ?? [], session, env);
    return file === null ? null : { kind: 'record', file };
  }

  /** The shared look-up for records not found yet: runs only while some agent needs it. */
  private armResolve(): void {
    if (this.resolveTimer) return;
    this.resolveTimer = this.clock.setTimeout(() => {
      this.resolveTimer = null;
      for (const agent of this.host.agents()) if (!agent.usage.source) this.resolve(agent);
    }, USAGE_TRACKING.resolveMs);
    this.resolveTimer.unref();
  }

  private startWatch(agent: UsageAgent): void {
    const track = agent.usage;
    const { dir, names } = track.source!.watchTargets();
    track.watcher = this.watches.watch(dir, names, () => this.read(agent));
  }

  /** Reads what the record gained; checks budgets at once, tells the host at most once a second. */
  read(agent: UsageAgent): void {
    const track = agent.usage;
    if (track.closed || !track.source || !track.source.refresh()) return;
    this.checkBudgets(agent);
    this.scheduleEmit(agent);
  }

  private scheduleEmit(agent: UsageAgent): void {
    const track = agent.usage;
    // Claude writes a call once per content block: the repeats change no count, and an event
    // for them would only push the next real change behind the one-a-second pace.
    const usage = this.usage(agent);
    const key = usage === null ? '' : `${usage.total}/${usage.calls}/${usage.context_tokens}`;
    if (key === track.toldKey) return;
    track.toldKey = key;
    if (track.emitTimer) return;
    const wait = track.lastEmitAt + USAGE_TRACKING.eventIntervalMs - this.clock.now();
    if (wait <= 0) {
      track.lastEmitAt = this.clock.now();
      this.host.usageChanged(agent);
      return;
    }
    track.emitTimer = this.clock.setTimeout(() => {
      track.emitTimer = null;
      if (track.closed) return;
      track.lastEmitAt = this.clock.now();
      this.host.usageChanged(agent);
    }, wait);
  }

  /** Reads the record now (before a prompt, a budget change). */
  refreshNow(agent: UsageAgent): void {
    const track = agent.usage;
    if (track.source && track.source.refresh()) {
      this.checkBudgets(agent);
      this.scheduleEmit(agent);
    }
  }

  /**
   * A turn begins: corral submits a prompt (with its own limit, or none), or the agent was
   * seen starting work nobody here sent. A turn's crossing is forgotten with it.
   */
  openTurn(agent: UsageAgent, maxTokens: number | null): void {
    this.refreshNow(agent);
    const track = agent.usage;
    track.turnBase = this.usage(agent);
    track.turnLimit = maxTokens ?? track.pendingTurnLimit;
    track.pendingTurnLimit = null;
    track.worked = true;
    this.resolve(agent);
    if (track.exceeded?.scope === 'turn') track.exceeded = null;
  }

  /** The agent's total budget: `null` clears it. A crossing of the old one is forgotten. */
  setBudget(agent: UsageAgent, tokens: number | null): void {
    const track = agent.usage;
    track.agentLimit = tokens;
    if (track.exceeded?.scope === 'agent') track.exceeded = null;
    this.refreshNow(agent);
    this.checkBudgets(agent);
  }

  /** Adds the agent to a shared budget (a flow's), counting from its usage now. */
  joinShared(agent: UsageAgent, budget: SharedBudget): void {
    this.refreshNow(agent);
    if (!budget.base.has(agent)) budget.base.set(agent, this.usage(agent)?.total ?? 0);
    agent.usage.shared.add(budget);
  }

  /** Sets a shared budget's limit; a crossing of the old one is forgotten when it rises. */
  setSharedLimit(budget: SharedBudget, limit: number): void {
    if (limit > budget.limit) budget.exceeded = null;
    budget.limit = limit;
    for (const agent of this.host.agents()) if (agent.usage.shared.has(budget)) this.checkBudgets(agent);
  }

  leaveShared(agent: UsageAgent, budget: SharedBudget): void {
    agent.usage.shared.delete(budget);
  }

  /** What a shared budget's members spent since they joined. */
  sharedUsed(budget: SharedBudget): number {
    let used = 0;
    for (const agent of this.host.agents()) {
      const base = budget.base.get(agent);
      if (base !== undefined) used += Math.max(0, (this.usage(agent)?.total ?? 0) - base);
    }
    return used;
  }

  /**
   * The agent's total budget is spent: what refuses a prompt before anything is typed. Null
   * when it may be prompted (no budget, usage unknown, or some left).
   */
  spent(agent: UsageAgent): BudgetExceeded | null {
    this.refreshNow(agent);
    const track = agent.usage;
    const usage = this.usage(agent);
    const now = this.clock.now();
    if (track.agentLimit !== null && usage !== null && usage.total >= track.agentLimit) return { limit: track.agentLimit, used: usage.total, scope: 'agent', at: now };
    for (const budget of track.shared) {
      const used = this.sharedUsed(budget);
      if (used >= budget.limit) return { limit: budget.limit, used, scope: 'flow', at: now };
    }
    return null;
  }

  private checkBudgets(agent: UsageAgent): void {
    const track = agent.usage;
    const usage = this.usage(agent);
    if (usage === null) return;
    const now = this.clock.now();
    const crossings: BudgetExceeded[] = [];
    if (track.turnLimit !== null) {
      const used = minus(usage, track.turnBase).total;
      if (used > track.turnLimit) {
        crossings.push({ limit: track.turnLimit, used, scope: 'turn', at: now });
        track.turnLimit = null;
      }
    }
    if (track.agentLimit !== null && usage.total > track.agentLimit && track.exceeded?.scope !== 'agent') {
      crossings.push({ limit: track.agentLimit, used: usage.total, scope: 'agent', at: now });
    }
    for (const budget of track.shared) {
      const used = this.sharedUsed(budget);
      if (used > budget.limit && budget.exceeded === null) {
        budget.exceeded = { limit: budget.limit, used, scope: 'flow', at: now };
        // Every agent the budget covers is stopped, not only the one whose call crossed it.
        for (const member of this.host.agents()) {
          if (member === agent || !member.usage.shared.has(budget)) continue;
          member.usage.exceeded = budget.exceeded;
          this.host.budgetExceeded(member, budget.exceeded);
        }
        crossings.push(budget.exceeded);
      }
    }
    const first = crossings[0];
    if (first === undefined) return;
    track.exceeded = first;
    this.host.budgetExceeded(agent, first);
  }

  /**
   * The agent is gone: its watch and timer end, and it leaves its shared budgets. Returns the
   * shared budgets it was the last member of, for their owner to forget.
   */
  stop(agent: UsageAgent): SharedBudget[] {
    const track = agent.usage;
    const emptied: SharedBudget[] = [];
    for (const budget of track.shared) {
      budget.base.delete(agent);
      if (budget.base.size === 0) emptied.push(budget);
    }
    track.closed = true;
    track.watcher?.dispose();
    track.watcher = null;
    if (track.emitTimer) this.clock.clear(track.emitTimer);
    track.emitTimer = null;
    track.shared.clear();
    return emptied;
  }

  dispose(): void {
    if (this.resolveTimer) this.clock.clear(this.resolveTimer);
    this.resolveTimer = null;
    this.watches.dispose();
  }
}
