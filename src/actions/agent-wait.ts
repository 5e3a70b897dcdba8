/**
 * Waiting on an agent's state, event-driven: resolves as soon as the agent's status matches,
 * ends with `agent_not_running` when the agent leaves its pane (exits, is replaced, or the
 * pane moves to another workspace), `timeout` when time runs out, and quietly when the
 * caller goes away.
 */
import { CorralError, eventSurfaceId, type AgentInfo, type AgentStatus } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { agentView } from '../core/views.js';
import { waitUntil } from '../wait/wait-until.js';

/** Statuses a wait accepts when the caller names none (SPEC §5: `unknown` only when named). */
export const DEFAULT_UNTIL: readonly AgentStatus[] = ['idle', 'done', 'blocked'];

export interface WaitOptions {
  /** Resolve when this holds for the agent's current state. */
  until: (agent: AgentInfo) => boolean;
  /** Absolute deadline (ms since epoch), or undefined to wait forever. */
  deadline?: number;
  signal?: AbortSignal;
  /** Error to raise at the deadline (default `timeout`). */
  onDeadline?: () => CorralError;
  /** A budget the agent crosses from this time on (default: the wait's start) fails the wait `budget_exceeded` (SPEC §18). */
  budgetSince?: number;
}

/** Whether a wait's `until` set matches a status, with the seq rule of `agent.prompt`. */
export function statusMatches(agent: AgentInfo, until: readonly AgentStatus[], afterSeq?: number): boolean {
  if (afterSeq !== undefined && agent.state_change_seq <= afterSeq) return false;
  return until.includes(agent.agent_status);
}

/** Waits for the agent in `pane` to satisfy `opts.until`. */
export function waitForAgent(core: CorralCore, pane: PaneRecord, opts: WaitOptions): Promise<AgentInfo> {
  const surfaceId = pane.surfaceId;
  const workspaceId = pane.workspaceId;
  const tracked = core.agents.agentIn(pane);
  if (!tracked) return Promise.reject(notRunning(pane));
  const budgetSince = opts.budgetSince ?? Date.now();
  return waitUntil(
    {
      deadline: opts.deadline,
      signal: opts.signal,
      onTimeout: () => opts.onDeadline?.() ?? new CorralError('timeout', `agent in ${pane.id} did not reach the awaited state in time`),
      subscribe: (recheck) => {
        const listener = core.listen((event) => {
          if (eventSurfaceId(event) !== surfaceId) return;
          if (event.type === 'agent.status_changed' || event.type === 'pane.moved' || event.type === 'pane.closed' || event.type === 'agent.detected' || event.type === 'agent.budget_exceeded') recheck();
        });
        return () => listener.dispose();
      },
    },
    () => {
      const current = core.paneBySurface(surfaceId);
      if (!current || current.workspaceId !== workspaceId || core.agents.agentIn(current) !== tracked) throw notRunning(pane);
      // The record may hold a call its watch has not reported yet: read it before answering (SPEC §18).
      core.agents.budgets.usage.refreshNow(tracked);
      const exceeded = tracked.usage.exceeded;
      if (exceeded && exceeded.at >= budgetSince) {
        throw new CorralError('budget_exceeded', `the agent in ${pane.id} crossed its ${exceeded.scope} budget (${exceeded.used} of ${exceeded.limit} tokens) and was interrupted`, { limit: exceeded.limit, used: exceeded.used, scope: exceeded.scope, pane_id: pane.id });
      }
      const agent = agentView(core, current);
      // `until` may also throw: it decided the wait is hopeless (e.g. blocked while starting).
      return opts.until(agent) ? agent : undefined;
    },
  );
}

function notRunning(pane: PaneRecord): CorralError {
  return new CorralError('agent_not_running', `the agent in ${pane.id} is no longer running there (it exited, was replaced, or its pane moved)`, {
    pane_id: pane.id,
  });
}
