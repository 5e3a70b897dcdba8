/**
 * The fleet page's order (SPEC §16), pure so the page and its tests share it: agents by need —
 * blocked first (longest waiting first), then done and not yet seen, then working — and after
 * them the agents that need nothing and every other pane, under their workspace's label.
 */
import type { AgentStatus, ConductorState } from '../contract/objects.js';
import type { WebAgent, WebFleet, WebPane } from '../contract/web.js';

/** Why an agent is where it is on the page. */
export type Need = 'blocked' | 'done' | 'working' | 'quiet';

export function needOf(agent: WebAgent): Need {
  if (agent.agent_status === 'blocked') return 'blocked';
  if (agent.agent_status === 'done' && !agent.seen) return 'done';
  if (agent.agent_status === 'working') return 'working';
  return 'quiet';
}

const NEED_RANK: Record<Need, number> = { blocked: 0, done: 1, working: 2, quiet: 3 };

/** A workspace's group on the page: its label and what runs in it. */
export interface WorkspaceGroup {
  key: string;
  machine: string | null;
  label: string;
  agents: WebAgent[];
  panes: WebPane[];
}

export interface FleetLayout {
  /** Blocked, done-unseen and working agents, most urgent first. */
  needs: WebAgent[];
  /** Everything else, by machine and workspace, in the server's order. */
  groups: WorkspaceGroup[];
}

/** Within a need, the one waiting longest first; then by machine and pane id for a stable page. */
function compareAgents(a: WebAgent, b: WebAgent): number {
  const rank = NEED_RANK[needOf(a)] - NEED_RANK[needOf(b)];
  if (rank !== 0) return rank;
  const since = (b.since_ms ?? 0) - (a.since_ms ?? 0);
  if (since !== 0) return since;
  return `${a.machine ?? ''}/${a.pane_id}`.localeCompare(`${b.machine ?? ''}/${b.pane_id}`);
}

export function layoutFleet(fleet: WebFleet): FleetLayout {
  const needs = fleet.agents.filter((agent) => needOf(agent) !== 'quiet').sort(compareAgents);
  const groups = new Map<string, WorkspaceGroup>();
  const groupOf = (machine: string | null, workspace: string, label: string): WorkspaceGroup => {
    const key = `${machine ?? ''}/${workspace}`;
    let group = groups.get(key);
    if (!group) {
      group = { key, machine, label, agents: [], panes: [] };
      groups.set(key, group);
    }
    return group;
  };
  for (const agent of fleet.agents) if (needOf(agent) === 'quiet') groupOf(agent.machine, agent.workspace, agent.workspace_label).agents.push(agent);
  for (const pane of fleet.panes) groupOf(pane.machine, pane.workspace, pane.workspace_label).panes.push(pane);
  return { needs, groups: [...groups.values()] };
}

/** "12 s", "4 min", "3 h": how long ago, for a phone's narrow row. */
export function sinceText(ms: number | null): string {
  if (ms === null) return '';
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  return `${Math.floor(m / 60)} h`;
}

/** The fields of an `agent.status_changed` event the page shows at once. */
export interface StatusEvent {
  type?: string;
  machine?: string | null;
  pane_id?: string;
  agent_status?: AgentStatus;
  state?: ConductorState;
  message?: string | null;
}

/**
 * The fleet with one agent's status from an event, or null when the event names no agent the
 * fleet holds. A done agent counts as unseen until the next read says otherwise: the page
 * must not wait a fleet read to move a finished or blocked agent up.
 */
export function patchStatus(fleet: WebFleet, event: StatusEvent): WebFleet | null {
  if (event.type !== 'agent.status_changed' || !event.pane_id || !event.agent_status) return null;
  // Events of this machine say `machine: null`; another machine's name it, with its own pane id.
  const machine = event.machine ?? null;
  const ids = machine === null ? [event.pane_id] : [event.pane_id, `${machine}/${event.pane_id}`];
  const index = fleet.agents.findIndex((a) => a.machine === machine && ids.includes(a.pane_id));
  if (index === -1) return null;
  const agents = [...fleet.agents];
  const before = agents[index]!;
  agents[index] = {
    ...before,
    agent_status: event.agent_status,
    state: event.state ?? before.state,
    message: event.message === undefined ? before.message : event.message,
    since_ms: 0,
    seen: event.agent_status === 'done' ? false : before.seen,
  };
  return { ...fleet, agents };
}
