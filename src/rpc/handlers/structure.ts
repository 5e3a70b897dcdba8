/** herdr-style `workspace.*`, `tab.*` and the structural `pane.*` methods. */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { CorralError } from '../../contract/protocol.js';
import { optBool, optInt, optNumber, optOneOf, optStr, optStrAny, text, type Params } from '../params.js';
import { paneView, tabView, workspaceView } from '../../core/views.js';
import type { CorralCore } from '../../core/corral-core.js';
import type { HandlerGroup } from './context.js';
import { BOUNDS } from '../../contract/bounds.js';
import { paneParam, worktreeOptions } from './handler-params.js';
import { workspaceInWorktree } from '../../actions/worktree-actions.js';

/** A `cwd` param must name an existing directory, so a typo fails here and not in a shell. */
function optCwd(p: Params): string | undefined {
  const cwd = optStr(p, 'cwd');
  if (cwd === undefined || cwd === '') return undefined;
  if (!isAbsolute(cwd)) throw new CorralError('invalid_params', `cwd must be an absolute path, got "${cwd}"`);
  let isDir = false;
  try {
    isDir = statSync(cwd).isDirectory();
  } catch {
    // Reported below.
  }
  if (!isDir) throw new CorralError('invalid_params', `cwd "${cwd}" is not a directory`);
  return cwd;
}

const workspaceId = (p: Params) => {
  const id = optStrAny(p, ['workspace_id', 'workspace']);
  if (!id) throw new CorralError('invalid_params', 'param "workspace_id" is required');
  return id;
};
const tabId = (p: Params) => {
  const id = optStrAny(p, ['tab_id', 'tab']);
  if (!id) throw new CorralError('invalid_params', 'param "tab_id" is required');
  return id;
};

/** The workspace a tab is created in: the given one, or the focused one. */
function targetWorkspace(core: CorralCore, p: Params): string {
  const id = optStrAny(p, ['workspace', 'workspace_id']);
  if (id) return core.model.workspace(id).id;
  if (!core.model.focusedWorkspace) throw new CorralError('workspace_not_found', 'there is no workspace; create one first');
  return core.model.focusedWorkspace;
}

export const structureHandlers = {
  'workspace.create': async (p, { core, signal }) => {
    const opts = { cwd: optCwd(p) ?? process.cwd(), label: optStr(p, 'label'), focus: optBool(p, 'focus') };
    const worktree = worktreeOptions(p);
    if (worktree) return workspaceInWorktree(core, opts, worktree, signal);
    const created = core.createWorkspace(opts);
    return {
      workspace: workspaceView(core, created.workspace),
      tab: tabView(core, created.tab),
      root_pane: paneView(core, created.pane),
    };
  },
  'workspace.list': (_p, { core }) => ({
    workspaces: [...core.model.workspaces.values()].map((w) => workspaceView(core, w)),
  }),
  'workspace.get': (p, { core }) => ({ workspace: workspaceView(core, core.model.workspace(workspaceId(p))) }),
  'workspace.focus': (p, { core }) => ({ workspace: workspaceView(core, core.focusWorkspace(workspaceId(p))) }),
  'workspace.rename': (p, { core }) => ({
    workspace: workspaceView(core, core.renameWorkspace(workspaceId(p), text(p, 'label'))),
  }),
  'workspace.close': (p, { core }) => {
    const closed = core.closeWorkspace(workspaceId(p));
    return { closed: true, workspace_id: closed.workspaces[0]?.id, panes: closed.panes.map((pane) => pane.id) };
  },

  'tab.create': (p, { core }) => {
    const created = core.createTab({
      workspaceId: targetWorkspace(core, p),
      label: optStr(p, 'label'),
      cwd: optCwd(p),
      focus: optBool(p, 'focus'),
    });
    return { tab: tabView(core, created.tab), root_pane: paneView(core, created.pane) };
  },
  'tab.list': (p, { core }) => {
    const ws = optStrAny(p, ['workspace', 'workspace_id']);
    if (ws) core.model.workspace(ws);
    const tabs = [...core.model.tabs.values()].filter((t) => !ws || t.workspaceId === ws);
    return { tabs: tabs.map((t) => tabView(core, t)) };
  },
  'tab.get': (p, { core }) => ({ tab: tabView(core, core.model.tab(tabId(p))) }),
  'tab.focus': (p, { core }) => ({ tab: tabView(core, core.focusTab(tabId(p))) }),
  'tab.rename': (p, { core }) => ({ tab: tabView(core, core.renameTab(tabId(p), text(p, 'label'))) }),
  'tab.close': (p, { core }) => {
    const id = tabId(p);
    const closed = core.closeTab(id);
    return { closed: true, tab_id: id, panes: closed.panes.map((pane) => pane.id) };
  },

  'pane.split': (p, { core }) => {
    const target = paneParam(core, p);
    const direction = optOneOf(p, 'direction', ['right', 'down'] as const) ?? 'right';
    const pane = core.splitPane(target.id, direction, {
      ratio: optNumber(p, 'ratio', BOUNDS.splitRatio.min, BOUNDS.splitRatio.max),
      cwd: optCwd(p),
      focus: optBool(p, 'focus'),
    });
    return { pane: paneView(core, pane) };
  },
  'pane.move': (p, { core }) => {
    const pane = paneParam(core, p);
    const result = core.movePane(pane.id, {
      workspace: optStrAny(p, ['workspace', 'workspace_id']),
      tab: optStrAny(p, ['tab', 'tab_id']),
      newTab: optBool(p, 'new_tab'),
      newWorkspace: optBool(p, 'new_workspace'),
    });
    return {
      move_result: {
        changed: result.changed,
        pane: paneView(core, result.pane),
        previous_pane_id: result.previousPaneId,
        previous_workspace_id: result.previousWorkspaceId,
        previous_tab_id: result.previousTabId,
      },
    };
  },
  'pane.list': (p, { core }) => {
    const ws = optStrAny(p, ['workspace', 'workspace_id']);
    const tab = optStrAny(p, ['tab', 'tab_id']);
    if (ws) core.model.workspace(ws);
    if (tab) core.model.tab(tab);
    const panes = [...core.model.tabs.values()]
      .filter((t) => (!ws || t.workspaceId === ws) && (!tab || t.id === tab))
      .flatMap((t) => core.model.tabPanes(t.id));
    return { panes: panes.map((pane) => paneView(core, pane)) };
  },
  'pane.get': (p, { core }) => ({ pane: paneView(core, paneParam(core, p)) }),
  'pane.current': (p, { core }) => {
    const id = optStr(p, 'pane_id');
    if (!id) throw new CorralError('invalid_params', 'no current pane: CORRAL_PANE_ID is not set (run this inside a corral pane)');
    return { pane: paneView(core, core.model.pane(id)) };
  },
  'pane.focus': (p, { core }) => ({ pane: paneView(core, core.focusPane(paneParam(core, p).id)) }),
  'pane.rename': (p, { core }) => ({ pane: paneView(core, core.renamePane(paneParam(core, p).id, text(p, 'name'))) }),
  'pane.close': (p, { core }) => {
    const pane = paneParam(core, p);
    core.closePane(pane.id);
    return { closed: true, pane_id: pane.id };
  },
  'pane.zoom': (p, { core }) => {
    const pane = paneParam(core, p);
    core.zoomPane(pane.id, optBool(p, 'zoom'));
    return { pane: paneView(core, pane) };
  },
  'pane.resize': (p, { core }) => {
    const pane = paneParam(core, p);
    const direction = optOneOf(p, 'direction', ['left', 'right', 'up', 'down'] as const) ?? 'right';
    core.resizePane(pane.id, direction, optInt(p, 'amount', BOUNDS.resizeAmount.min, BOUNDS.resizeAmount.max) ?? 5);
    return { pane: paneView(core, pane) };
  },
  'pane.swap': (p, { core }) => {
    const pane = paneParam(core, p);
    const other = paneParam(core, p, 'other_pane_id');
    core.swapPanes(pane.id, other.id);
    return { pane: paneView(core, pane) };
  },
} satisfies HandlerGroup;
