/**
 * Budgets and usage (SPEC §18), the one place a prompt path asks before typing and where an
 * agent's own budget is changed. Setting or lowering a budget is always allowed; raising or
 * clearing one needs the scripting gate, so a pane's program cannot lift its own limit.
 */
import { CorralError, type AgentInfo, type AgentUsageReport } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { agentView } from '../core/views.js';

/** Throws `budget_exceeded` when the pane's agent has spent its budget: called before anything is typed. */
export function checkBudget(core: CorralCore, pane: PaneRecord): void {
  core.agents.budgets.checkBudget(pane);
}

/** A prompt is about to be submitted: its turn begins now, bounded by `maxTokens` when given. */
export function openTurn(core: CorralCore, pane: PaneRecord, maxTokens: number | null): void {
  core.agents.budgets.openTurnIn(pane, maxTokens);
}

/** Whether setting the agent's budget to `tokens` (null: clearing it) lifts a limit: that needs the gate. */
export function budgetRaises(core: CorralCore, pane: PaneRecord, tokens: number | null): boolean {
  const current = core.agents.agentIn(pane)?.usage.agentLimit ?? null;
  return current !== null && (tokens === null || tokens > current);
}

/** The agent's next turn, whoever submits it, is bounded by `maxTokens`. */
export function limitNextTurn(core: CorralCore, pane: PaneRecord, maxTokens: number): void {
  core.agents.budgets.limitNextTurn(pane, maxTokens);
}

/** Whether setting the shared budget `name` to `tokens` lifts its limit (that needs the gate). */
export function sharedBudgetRaises(core: CorralCore, name: string, tokens: number): boolean {
  const budget = core.agents.budgets.findSharedBudget(name);
  return budget !== undefined && tokens > budget.limit;
}

/** Joins the pane's agent to the shared budget `name` (made on first use) and sets its limit (the gate was asked). */
export function joinSharedBudget(core: CorralCore, pane: PaneRecord, name: string, tokens: number): AgentInfo {
  const agent = core.agents.agentIn(pane);
  if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  const budget = core.agents.budgets.sharedBudget(name, tokens);
  core.agents.budgets.usage.joinShared(agent, budget);
  core.agents.budgets.usage.setSharedLimit(budget, tokens);
  return agentView(core, pane);
}

/** `agent.budget`: sets (`tokens`) or clears (null) the agent's total budget (the gate was asked). */
export function setAgentBudget(core: CorralCore, pane: PaneRecord, tokens: number | null): AgentInfo {
  const agent = core.agents.agentIn(pane);
  if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  core.agents.budgets.usage.setBudget(agent, tokens);
  return agentView(core, pane);
}

/** `agent.usage`: every turn of the agent's record and the total. */
export function usageReport(core: CorralCore, pane: PaneRecord): AgentUsageReport {
  const agent = core.agents.agentIn(pane);
  if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  core.agents.budgets.usage.refreshNow(agent);
  return {
    agent: agent.name ?? pane.id,
    pane_id: pane.id,
    usage_source: core.agents.budgets.usage.sourceKind(agent),
    total: core.agents.budgets.usage.usage(agent),
    turns: core.agents.budgets.usage.turns(agent),
    budget_tokens: agent.usage.agentLimit,
  };
}
