/**
 * Builds the API's plain objects (SPEC §5 "Objects") from the core's state. Kept apart from
 * the core so every handler shapes a pane, tab or workspace the same way.
 */
import type { PaneInfo, SurfaceRow, TabInfo, WorkspaceInfo } from '../rpc/protocol.js';
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
    agent_status: null,
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
    agent_status: null,
  };
}

/** A row of `surface.list`. */
export function surfaceRow(core: CorralCore, pane: PaneRecord): SurfaceRow {
  const host = safeHost(core, pane);
  return {
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
