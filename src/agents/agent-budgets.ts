/**
 * What agents spend and the budgets that stop them (SPEC §18), for the agent registry: the
 * usage tracker over every agent, the budgets shared by several (a flow's or an `up` file's
 * `budget_tokens`), turns opened, the check before anything is typed, and what happens when a
 * budget is crossed (the kind's interrupt keys, `agent.budget_exceeded`).
 */
import { CorralError, type EventInput } from '../contract/protocol.js';
import type { AgentUsage, BudgetExceeded } from '../contract/objects.js';
import type { PaneRecord } from '../session/model.js';
import type { Clock } from '../clock.js';
import { UsageTracker, type SharedBudget } from './usage-tracker.js';
import { agentEventFields, DEFAULT_INTERRUPT_KEYS, INTERRUPT_KEY_GAP_MS, paneRef, type TrackedAgent } from './tracked-agent.js';

/** What budgets need of the registry. */
export interface BudgetsHost {
  clock: Clock;
  agentIn(pane: PaneRecord): TrackedAgent | null;
  paneOf(agent: TrackedAgent): PaneRecord | null;
  /** Every tracked agent. */
  trackedAgents(): TrackedAgent[];
  emit(event: EventInput): void;
  pressKeys?(pane: PaneRecord, keys: readonly string[], gapMs: number): void;
  /** Looks for the agent's session id (its record is where usage is read). */
  lookUpSession(pane: PaneRecord, agent: TrackedAgent): void;
}

export class AgentBudgets {
  /** What each agent spends, read from its own record. */
  readonly usage: UsageTracker;
  /** Budgets over several agents (flows' `budget_tokens`, `up` files'), by name. */
  private readonly shared = new Map<string, SharedBudget>();

  constructor(private readonly host: BudgetsHost) {
    this.usage = new UsageTracker(
      {
        usageChanged: (agent) => this.emitUsage(agent as TrackedAgent),
        budgetExceeded: (agent, exceeded) => this.budgetExceeded(agent as TrackedAgent, exceeded),
        agents: () => host.trackedAgents(),
        lookUpSession: (agent) => {
          const pane = host.paneOf(agent as TrackedAgent);
          if (pane) host.lookUpSession(pane, agent as TrackedAgent);
        },
      },
      host.clock,
    );
  }


  /** A turn begins for the pane's agent (corral submits a prompt), with its own limit or none. */
  openTurnIn(pane: PaneRecord, maxTokens: number | null): void {
    const agent = this.host.agentIn(pane);
    if (agent) this.openTurn(agent, maxTokens);
  }

  /** A turn begins for this agent (corral prompted it, or it was seen working), with its own limit or none. */
  openTurn(agent: TrackedAgent, maxTokens: number | null): void {
    agent.turnOpen = true;
    this.usage.openTurn(agent, maxTokens);
  }

  /** What the pane's agent spent (SPEC §18); null when unknown. */
  usageOf(pane: PaneRecord): AgentUsage | null {
    const agent = this.host.agentIn(pane);
    return agent ? this.usage.usage(agent) : null;
  }

  /** The pane's agent's next turn nobody here prompts is bounded by `maxTokens` (an `up` pane's prompt). */
  limitNextTurn(pane: PaneRecord, maxTokens: number): void {
    const agent = this.host.agentIn(pane);
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
  stop(agent: TrackedAgent): void {
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
    const agent = this.host.agentIn(pane);
    const spent = agent ? this.usage.spent(agent) : null;
    if (!spent) return;
    throw new CorralError('budget_exceeded', `the agent in ${pane.id} has spent its ${spent.scope === 'flow' ? "flow's " : ''}budget (${spent.used} of ${spent.limit} tokens); nothing was sent — raise or clear it with agent budget`, { limit: spent.limit, used: spent.used, scope: spent.scope, pane_id: pane.id });
  }


  private emitUsage(agent: TrackedAgent): void {
    const pane = this.host.paneOf(agent);
    if (!pane) return;
    this.host.emit({ type: 'agent.usage', ...paneRef(pane), agent: agent.name ?? pane.id, usage: this.usage.usage(agent), turn_usage: this.usage.turnUsage(agent) });
  }

  /** Presses the kind's interrupt keys (the agent is interrupted, never killed) and tells everyone. */
  private budgetExceeded(agent: TrackedAgent, exceeded: BudgetExceeded): void {
    const pane = this.host.paneOf(agent);
    if (!pane) return;
    const detected = agent.state.snapshot().detected;
    if (detected === 'working' || detected === 'blocked') {
      const keys = agent.rules?.interruptKeys.length ? agent.rules.interruptKeys : DEFAULT_INTERRUPT_KEYS;
      this.host.pressKeys?.(pane, keys, INTERRUPT_KEY_GAP_MS);
    }
    this.host.emit({ type: 'agent.budget_exceeded', ...paneRef(pane), ...agentEventFields(agent), agent: agent.name ?? pane.id, ...exceeded });
  }
}
