/**
 * What the agent registry shows of an agent (SPEC §5): the `agent` object, how far its screen
 * verdict can be trusted, how long it has waited or sat idle, and what decided its status.
 */
import { CONDUCTOR_STATE, type AgentInfo } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import { resumeSpec } from './resume.js';
import { explainRules, provenanceOf, ruleTrust, type RuleTrust, type ScreenSnapshot } from './rules.js';
import { explainCuts } from './cut-explain.js';
import type { UsageTracker } from './usage-tracker.js';
import type { TrackedAgent } from './tracked-agent.js';

/** The `agent` object of SPEC §5 for the agent in `pane`, working in `cwd`. */
export function agentInfo(pane: PaneRecord, agent: TrackedAgent, cwd: string, usage: UsageTracker): AgentInfo {
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
  info.usage = usage.usage(agent);
  info.turn_usage = usage.turnUsage(agent);
  info.usage_source = usage.sourceKind(agent);
  info.budget_tokens = agent.usage.agentLimit;
  info.budget_exceeded = agent.usage.exceeded;
  const trust = agentRuleTrust(agent);
  if (trust !== null) info.rules = trust;
  return info;
}

/**
 * How far the current screen verdict can be trusted: `verified`, `unverified` (the kind's
 * rules are guesses) or `generic` (common idioms, not the agent's own); null when no screen
 * rule decided (hooked, or nothing matched yet).
 */
export function agentRuleTrust(agent: TrackedAgent): RuleTrust | null {
  if (!agent.rules || !agent.lastVerdict?.rule || agent.state.snapshot().hooked) return null;
  return ruleTrust(agent.decidedBy ?? agent.rules);
}

/** Milliseconds blocked and since the last activity (fleet rows). */
export function agentTimings(agent: TrackedAgent, now: number): { waiting_ms: number; idle_ms: number } {
  const snap = agent.state.snapshot();
  return { waiting_ms: snap.status === 'blocked' ? now - snap.statusSince : 0, idle_ms: now - snap.lastActivityAt };
}

/** What decided the agent's status, for `agent explain`: the rules, the evidence on `screen` (null: none read), the cuts. */
export function explainAgent(pane: PaneRecord, agent: TrackedAgent, screen: ScreenSnapshot | null, alternateScreen: boolean): string {
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
  if (!rules || !screen) return `${head}\nno screen rules for ${agent.kind}`;
  const cuts = explainCuts(agent, rules, screen.lines, alternateScreen);
  if (!fallback) return `${head}\n${explainRules(rules, screen)}\n${cuts}`;
  return `${head}\ndecided by the generic rules:\n${explainRules(fallback, screen)}\n\nthe kind's own rules:\n${explainRules(rules, screen)}\n${cuts}`;
}
