/**
 * Builds the API's plain objects (SPEC §5 "Objects") from the core's state. Kept apart from
 * the core so every handler shapes a pane, tab or workspace the same way.
 */
import { CONDUCTOR_STATE, type AgentInfo, type AgentWorktree, type AgentStatus, type FleetRow, type PaneInfo, type SurfaceStatus, type SurfaceRow, type TabInfo, type WorkspaceInfo } from '../contract/protocol.js';
import { rollup } from '../agents/agent-state.js';
import type { PaneRecord, TabRecord, WorkspaceRecord } from '../session/model.js';
import { leaves } from '../session/layout.js';
import type { CorralCore } from './corral-core.js';

/** The `pane` object. */
export function paneView(core: CorralCore, pane: PaneRecord): PaneInfo {
  const tab = core.model.tab(pane.tabId);
  const host = safeHost(core, pane);
  const exit = core.paneExit(pane);
  return {
    pane_id: pane.id,
    surface_id: pane.surfaceId,
    workspace_id: pane.workspaceId,
    tab_id: pane.tabId,
    name: pane.name,
    cwd: core.paneCwd(pane),
    cmd: core.paneCommand(pane),
    focused: core.model.isPaneFocused(pane),
    rows: host?.terminal.rows ?? 0,
    cols: host?.terminal.cols ?? 0,
    zoomed: tab.zoomedPane === pane.id,
    exited: exit.exited,
    exit_code: exit.exitCode,
    exit_signal: exit.exitSignal,
    ...(core.agents.agentIn(pane) ? { agent: agentView(core, pane) } : {}),
  };
}

/** The `agent` object of the agent running in a pane (throws agent_not_found). */
export function agentView(core: CorralCore, pane: PaneRecord): AgentInfo {
  return withWorktree(core, pane, core.agents.info(pane, core.paneCwd(pane)));
}

/** An agent's fields plus the worktree its pane works in (SPEC §15), when it has one. */
function withWorktree<T extends object>(core: CorralCore, pane: PaneRecord, fields: T): T & { worktree?: AgentWorktree } {
  const worktree = core.worktrees?.forPane(pane) ?? null;
  return worktree ? { ...fields, worktree } : fields;
}

/** What a rollup reads of the core (a TUI client's view of it too). */
type RollupCore = { agents: { agentIn(pane: PaneRecord): { state: { status: AgentStatus } } | null }; model: Pick<CorralCore['model'], 'tabPanes'> };

/** Rollup of the agents in some panes (SPEC §4), null when none hosts an agent. */
function rollupOf(core: RollupCore, panes: Iterable<PaneRecord>): AgentStatus | null {
  const statuses: AgentStatus[] = [];
  for (const pane of panes) {
    const agent = core.agents.agentIn(pane);
    if (agent) statuses.push(agent.state.status);
  }
  return rollup(statuses);
}

/** Rollup of one tab's agents. */
export function tabRollup(core: RollupCore, tab: TabRecord): AgentStatus | null {
  return rollupOf(core, core.model.tabPanes(tab.id));
}

/** Rollup of one workspace's agents. */
export function workspaceRollup(core: RollupCore, workspace: WorkspaceRecord): AgentStatus | null {
  return rollupOf(core, workspace.tabs.flatMap((id) => core.model.tabPanes(id)));
}

/**
 * The agent's fields for objects that carry no cwd (fleet rows, `surface.status`): the cwd
 * costs /proc reads of the pane's foreground process, which `fleet.list` would otherwise
 * repeat for every agent on every call (cached only 250 ms), so its latency grew with the fleet.
 */
function agentFields(core: CorralCore, pane: PaneRecord): Omit<AgentInfo, 'cwd'> {
  return core.agents.info(pane, pane.startCwd);
}

/** A `fleet.list` row (SPEC §5). */
export function fleetRow(core: CorralCore, pane: PaneRecord): FleetRow {
  const agent = agentFields(core, pane);
  const tracked = core.agents.agentIn(pane)!;
  const reason: FleetRow['reason'] = agent.hooked ? 'hook' : tracked.lastVerdict?.rule ? 'screen' : 'no_hook';
  return withWorktree(core, pane, {
    machine: null,
    pid: agent.pid,
    tool: agent.kind,
    state: agent.state,
    agent_status: agent.agent_status,
    hooked: agent.hooked,
    reason,
    ...(reason === 'screen' && agent.rules ? { rules: agent.rules } : {}),
    surface_id: pane.surfaceId,
    pane_id: pane.id,
    surface_name: pane.name,
    name: agent.name,
    workspace: pane.workspaceId,
    active_tool_name: agent.active_tool_name,
    message: agent.message,
    last_result: agent.last_result,
    ...core.agents.timings(pane),
    state_change_seq: agent.state_change_seq,
    completion_seq: agent.completion_seq ?? null,
    usage: agent.usage,
  });
}

/** `surface.status` (SPEC §5): a pane with no agent is idle, not an error. */
export function surfaceStatus(core: CorralCore, pane: PaneRecord): SurfaceStatus {
  const host = core.host(pane);
  const base = { surface_id: pane.surfaceId, pane_id: pane.id, output_generation: host.outputGeneration };
  const tracked = core.agents.agentIn(pane);
  if (!tracked) {
    return {
      ...base,
      state: CONDUCTOR_STATE.idle,
      agent_status: 'idle' as AgentStatus,
      hooked: false,
      tool: null,
      active_tool_name: null,
      message: null,
      last_result: null,
      waiting_ms: 0,
      idle_ms: host.lastOutputAt === null ? 0 : Math.max(0, Date.now() - host.lastOutputAt),
    };
  }
  const agent = agentFields(core, pane);
  return {
    ...base,
    state: agent.state,
    agent_status: agent.agent_status,
    hooked: agent.hooked,
    tool: agent.kind,
    name: agent.name,
    active_tool_name: agent.active_tool_name,
    message: agent.message,
    last_result: agent.last_result,
    ...core.agents.timings(pane),
    state_change_seq: agent.state_change_seq,
    ...(agent.completion_seq !== undefined ? { completion_seq: agent.completion_seq } : {}),
  };
}

/** The `tab` object. */
export function tabView(core: CorralCore, tab: TabRecord): TabInfo {
  return {
    tab_id: tab.id,
    workspace_id: tab.workspaceId,
    label: tab.label,
    focused: core.model.isTabFocused(tab),
    panes: leaves(tab.layout).map((id) => core.model.pane(id).id),
    focused_pane_id: tab.focusedPane,
    agent_status: tabRollup(core, tab),
  };
}

/** The `workspace` object. */
export function workspaceView(core: CorralCore, workspace: WorkspaceRecord): WorkspaceInfo {
  return {
    workspace_id: workspace.id,
    label: workspace.label,
    cwd: workspace.cwd,
    focused: core.model.focusedWorkspace === workspace.id,
    tabs: [...workspace.tabs],
    focused_tab_id: workspace.focusedTab,
    agent_status: workspaceRollup(core, workspace),
  };
}

/** A row of `surface.list`. */
export function surfaceRow(core: CorralCore, pane: PaneRecord): SurfaceRow {
  const host = safeHost(core, pane);
  return {
    machine: null,
    surface_id: pane.surfaceId,
    pane_id: pane.id,
    name: pane.name,
    title: host?.terminal.title ?? '',
    cwd: core.paneCwd(pane),
    cmd: core.paneCommand(pane),
    workspace: pane.workspaceId,
    tab: pane.tabId,
    focused: core.model.isPaneFocused(pane),
  };
}

function safeHost(core: CorralCore, pane: PaneRecord) {
  try {
    return core.host(pane);
  } catch {
    return null;
  }
}
