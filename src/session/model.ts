/**
 * The session model: workspaces, tabs, panes, each tab's split layout and the focus chain.
 * Pure data and the operations on it — no processes, no I/O, no events. The core
 * (`src/core/corral-core.ts`) pairs every pane record with a live pty and turns each
 * operation's result into events, so this file can be unit-tested on its own.
 */
import { CorralError, type SplitDirection } from '../contract/protocol.js';
import { IdAllocator, type IdCounters } from './ids.js';
import {
  type LayoutNode,
  leaf,
  leaves,
  removeLeaf,
  splitLeaf,
  swapLeaves,
} from './layout.js';

export interface WorkspaceRecord {
  id: string;
  label: string;
  cwd: string;
  tabs: string[];
  focusedTab: string;
}

export interface TabRecord {
  id: string;
  workspaceId: string;
  label: string;
  layout: LayoutNode;
  focusedPane: string;
  zoomedPane: string | null;
}

export interface PaneRecord {
  id: string;
  surfaceId: number;
  workspaceId: string;
  tabId: string;
  name: string | null;
  /** The directory the pane's shell started in; the live cwd comes from /proc. */
  startCwd: string;
  /** Earlier ids of a pane moved across workspaces; they keep resolving to it. */
  aliases: string[];
}

/** What a close removed, so the core can end processes and emit events in order. */
export interface CloseResult {
  panes: PaneRecord[];
  tabs: TabRecord[];
  workspaces: WorkspaceRecord[];
}

export interface MoveTarget {
  workspace?: string;
  tab?: string;
  newTab?: boolean;
  newWorkspace?: boolean;
}

export interface MoveResult {
  changed: boolean;
  pane: PaneRecord;
  previousPaneId: string;
  previousWorkspaceId: string;
  previousTabId: string;
  createdTab: TabRecord | null;
  createdWorkspace: WorkspaceRecord | null;
  closed: CloseResult;
}

/** The tree of workspaces → tabs → panes, with ids that are never reused. */
export class SessionModel {
  private readonly ids = new IdAllocator();
  readonly workspaces = new Map<string, WorkspaceRecord>();
  readonly tabs = new Map<string, TabRecord>();
  readonly panes = new Map<string, PaneRecord>();
  private readonly aliasToPane = new Map<string, string>();
  private readonly bySurface = new Map<number, PaneRecord>();
  focusedWorkspace: string | null = null;

  /** A default label not used by another workspace: the cwd's name, then `name-2`, `name-3`, … */
  private uniqueLabel(base: string): string {
    const labels = new Set([...this.workspaces.values()].map((w) => w.label));
    return uniqueWorkspaceLabel(base, (label) => labels.has(label));
  }

  /** Creates a workspace with its first tab and root pane. */
  createWorkspace(opts: { cwd: string; label?: string; focus?: boolean }): {
    workspace: WorkspaceRecord;
    tab: TabRecord;
    pane: PaneRecord;
  } {
    const id = this.ids.nextWorkspace();
    const workspace: WorkspaceRecord = { id, label: opts.label || this.uniqueLabel(defaultWorkspaceLabel(opts.cwd, id)), cwd: opts.cwd, tabs: [], focusedTab: '' };
    this.workspaces.set(id, workspace);
    const { tab, pane } = this.createTab({ workspaceId: id, cwd: opts.cwd, focus: true });
    if (opts.focus !== false || this.focusedWorkspace === null) this.focusedWorkspace = id;
    return { workspace, tab, pane };
  }

  /** Creates a tab with a root pane (or with an existing pane as its root, for moves). */
  createTab(opts: { workspaceId: string; label?: string; cwd?: string; focus?: boolean; rootPane?: PaneRecord }): {
    tab: TabRecord;
    pane: PaneRecord;
  } {
    const workspace = this.workspace(opts.workspaceId);
    const tabId = this.ids.nextTab(workspace.id);
    const pane = opts.rootPane ?? this.newPane(workspace.id, tabId, opts.cwd ?? workspace.cwd);
    const tab: TabRecord = {
      id: tabId,
      workspaceId: workspace.id,
      label: opts.label || String(workspace.tabs.length + 1),
      layout: leaf(pane.id),
      focusedPane: pane.id,
      zoomedPane: null,
    };
    pane.tabId = tabId;
    this.tabs.set(tabId, tab);
    workspace.tabs.push(tabId);
    if (opts.focus !== false || !workspace.focusedTab) workspace.focusedTab = tabId;
    return { tab, pane };
  }

  /** Splits a pane; the new pane goes right of or below it. */
  splitPane(paneId: string, direction: SplitDirection, opts: { ratio?: number; cwd?: string; focus?: boolean } = {}): PaneRecord {
    const target = this.pane(paneId);
    const tab = this.tab(target.tabId);
    const pane = this.newPane(target.workspaceId, tab.id, opts.cwd ?? target.startCwd);
    tab.layout = splitLeaf(tab.layout, target.id, pane.id, direction, opts.ratio ?? 0.5);
    tab.zoomedPane = null;
    if (opts.focus !== false) tab.focusedPane = pane.id;
    return pane;
  }

  /** Removes a pane; an emptied tab closes, and an emptied workspace closes with it. */
  closePane(paneId: string): CloseResult {
    const pane = this.pane(paneId);
    const result: CloseResult = { panes: [pane], tabs: [], workspaces: [] };
    this.detachPane(pane, result);
    this.forgetPane(pane);
    return result;
  }

  /** Closes a tab and all its panes. */
  closeTab(tabId: string): CloseResult {
    const tab = this.tab(tabId);
    const result: CloseResult = { panes: [], tabs: [], workspaces: [] };
    for (const paneId of leaves(tab.layout)) {
      const pane = this.pane(paneId);
      result.panes.push(pane);
      this.forgetPane(pane);
    }
    this.removeTab(tab, result);
    return result;
  }

  /** Closes a workspace with all its tabs and panes. */
  closeWorkspace(workspaceId: string): CloseResult {
    const workspace = this.workspace(workspaceId);
    const result: CloseResult = { panes: [], tabs: [], workspaces: [] };
    for (const tabId of [...workspace.tabs]) {
      const closed = this.closeTab(tabId);
      result.panes.push(...closed.panes);
      result.tabs.push(...closed.tabs);
      result.workspaces.push(...closed.workspaces);
    }
    return result;
  }

  /**
   * Moves a pane to another tab or workspace (or a new one). Crossing workspaces gives the
   * pane a new id in the target workspace; the old id stays an alias.
   */
  movePane(paneId: string, target: MoveTarget): MoveResult {
    const pane = this.pane(paneId);
    const previous = { paneId: pane.id, workspaceId: pane.workspaceId, tabId: pane.tabId };
    const closed: CloseResult = { panes: [], tabs: [], workspaces: [] };
    let createdTab: TabRecord | null = null;
    let createdWorkspace: WorkspaceRecord | null = null;

    // Decide the destination before detaching, so a bad target changes nothing.
    let destWorkspace: WorkspaceRecord | null = null;
    let destTab: TabRecord | null = null;
    if (target.newWorkspace) {
      // Created below, once the pane is out of its old tab.
    } else if (target.tab) {
      destTab = this.tab(target.tab);
      destWorkspace = this.workspace(destTab.workspaceId);
    } else if (target.workspace) {
      destWorkspace = this.workspace(target.workspace);
      if (!target.newTab) destTab = this.tab(destWorkspace.focusedTab);
    } else if (target.newTab) {
      destWorkspace = this.workspace(pane.workspaceId);
    } else {
      throw new CorralError('invalid_params', 'pane.move needs one of workspace, tab, new_tab or new_workspace');
    }
    // Into a new tab of its own workspace, when it is that workspace's only pane: detaching it
    // would close the workspace before the new tab could be made, so the move is a no-op.
    const alone = this.workspace(pane.workspaceId).tabs.length === 1 && leaves(this.tab(pane.tabId).layout).length === 1;
    if (!destTab && destWorkspace?.id === pane.workspaceId && alone) destTab = this.tab(pane.tabId);
    if (destTab && destTab.id === pane.tabId) {
      return { changed: false, pane, previousPaneId: pane.id, previousWorkspaceId: pane.workspaceId, previousTabId: pane.tabId, createdTab, createdWorkspace, closed };
    }

    this.detachPane(pane, closed);
    if (target.newWorkspace) {
      const wsId = this.ids.nextWorkspace();
      createdWorkspace = { id: wsId, label: this.uniqueLabel(defaultWorkspaceLabel(pane.startCwd, wsId)), cwd: pane.startCwd, tabs: [], focusedTab: '' };
      this.workspaces.set(wsId, createdWorkspace);
      destWorkspace = createdWorkspace;
    }
    const workspace = destWorkspace!;
    if (workspace.id !== pane.workspaceId) this.renumberPane(pane, workspace.id);
    if (destTab && this.tabs.has(destTab.id)) {
      const anchor = destTab.focusedPane;
      destTab.layout = splitLeaf(destTab.layout, anchor, pane.id, 'right', 0.5);
      destTab.zoomedPane = null;
      destTab.focusedPane = pane.id;
      pane.tabId = destTab.id;
    } else {
      createdTab = this.createTab({ workspaceId: workspace.id, rootPane: pane, focus: true }).tab;
    }
    // Its old workspace closed behind it and focus fell to nothing: it goes where the pane went.
    if (this.focusedWorkspace === null) this.focusedWorkspace = workspace.id;
    return {
      changed: true,
      pane,
      previousPaneId: previous.paneId,
      previousWorkspaceId: previous.workspaceId,
      previousTabId: previous.tabId,
      createdTab,
      createdWorkspace,
      closed,
    };
  }

  /** Makes a pane the focused one of its tab, its tab of its workspace, and its workspace global. */
  focusPane(paneId: string): PaneRecord {
    const pane = this.pane(paneId);
    const tab = this.tab(pane.tabId);
    if (tab.zoomedPane && tab.zoomedPane !== pane.id) tab.zoomedPane = null;
    tab.focusedPane = pane.id;
    this.focusTab(tab.id);
    return pane;
  }

  focusTab(tabId: string): TabRecord {
    const tab = this.tab(tabId);
    const workspace = this.workspace(tab.workspaceId);
    workspace.focusedTab = tab.id;
    this.focusedWorkspace = workspace.id;
    return tab;
  }

  focusWorkspace(workspaceId: string): WorkspaceRecord {
    const workspace = this.workspace(workspaceId);
    this.focusedWorkspace = workspace.id;
    return workspace;
  }

  /** Toggles (or sets) the zoom of a pane within its tab. */
  zoomPane(paneId: string, zoom?: boolean): TabRecord {
    const pane = this.pane(paneId);
    const tab = this.tab(pane.tabId);
    const on = zoom ?? tab.zoomedPane !== pane.id;
    tab.zoomedPane = on ? pane.id : null;
    if (on) tab.focusedPane = pane.id;
    return tab;
  }

  /** Swaps two panes' places; both must be in the same tab. */
  swapPanes(a: string, b: string): TabRecord {
    const first = this.pane(a);
    const second = this.pane(b);
    if (first.tabId !== second.tabId) {
      throw new CorralError('invalid_params', `cannot swap ${first.id} and ${second.id}: they are in different tabs`);
    }
    const tab = this.tab(first.tabId);
    tab.layout = swapLeaves(tab.layout, first.id, second.id);
    return tab;
  }

  // -- saved sessions (src/persist/) ------------------------------------------

  /** The id counters, saved with the session so a restore never reuses an id. */
  idCounters(): IdCounters {
    return this.ids.counters();
  }

  /**
   * Loads a saved session into an empty model: the records as they were (ids, surface ids,
   * aliases, layouts, focus, zoom), counters raised above them. The caller (src/persist/)
   * has checked that the records are consistent.
   */
  load(saved: {
    workspaces: WorkspaceRecord[];
    tabs: TabRecord[];
    panes: PaneRecord[];
    focusedWorkspace: string | null;
    counters: IdCounters;
  }): void {
    if (this.workspaces.size > 0) throw new CorralError('internal_error', 'a saved session loads only into an empty model');
    for (const workspace of saved.workspaces) this.workspaces.set(workspace.id, workspace);
    for (const tab of saved.tabs) this.tabs.set(tab.id, tab);
    for (const pane of saved.panes) {
      this.panes.set(pane.id, pane);
      this.bySurface.set(pane.surfaceId, pane);
      for (const alias of pane.aliases) this.aliasToPane.set(alias, pane.id);
    }
    this.focusedWorkspace = saved.focusedWorkspace;
    this.ids.raiseTo(saved.counters);
  }

  // -- lookups --------------------------------------------------------------

  /** A pane by id or by an alias left behind by a move. */
  findPane(idOrAlias: string): PaneRecord | undefined {
    return this.panes.get(idOrAlias) ?? this.panes.get(this.aliasToPane.get(idOrAlias) ?? '');
  }

  /** A pane by its surface id (stable across moves). */
  paneBySurface(surfaceId: number): PaneRecord | undefined {
    return this.bySurface.get(surfaceId);
  }

  pane(idOrAlias: string): PaneRecord {
    const pane = this.findPane(idOrAlias);
    if (!pane) throw new CorralError('pane_not_found', `no pane "${idOrAlias}"`, { pane_id: idOrAlias });
    return pane;
  }

  tab(tabId: string): TabRecord {
    const tab = this.tabs.get(tabId);
    if (!tab) throw new CorralError('tab_not_found', `no tab "${tabId}"`, { tab_id: tabId });
    return tab;
  }

  workspace(workspaceId: string): WorkspaceRecord {
    const workspace = this.workspaces.get(workspaceId);
    if (!workspace) throw new CorralError('workspace_not_found', `no workspace "${workspaceId}"`, { workspace_id: workspaceId });
    return workspace;
  }

  /** The pane that has focus: focused workspace → its focused tab → that tab's focused pane. */
  focusedPane(): PaneRecord | null {
    if (!this.focusedWorkspace) return null;
    const workspace = this.workspaces.get(this.focusedWorkspace);
    const tab = workspace && this.tabs.get(workspace.focusedTab);
    return (tab && this.panes.get(tab.focusedPane)) ?? null;
  }

  isPaneFocused(pane: PaneRecord): boolean {
    return this.focusedPane()?.id === pane.id;
  }

  isTabFocused(tab: TabRecord): boolean {
    return this.focusedWorkspace === tab.workspaceId && this.workspace(tab.workspaceId).focusedTab === tab.id;
  }

  /** Panes of a tab in reading order. */
  tabPanes(tabId: string): PaneRecord[] {
    return leaves(this.tab(tabId).layout).map((id) => this.pane(id));
  }

  // -- internals ------------------------------------------------------------

  private newPane(workspaceId: string, tabId: string, cwd: string): PaneRecord {
    const pane: PaneRecord = {
      id: this.ids.nextPane(workspaceId),
      surfaceId: this.ids.nextSurface(),
      workspaceId,
      tabId,
      name: null,
      startCwd: cwd,
      aliases: [],
    };
    this.panes.set(pane.id, pane);
    this.bySurface.set(pane.surfaceId, pane);
    return pane;
  }

  /** Takes a pane out of its tab's layout, closing the tab (and workspace) if it empties. */
  private detachPane(pane: PaneRecord, result: CloseResult): void {
    const tab = this.tab(pane.tabId);
    const remaining = removeLeaf(tab.layout, pane.id);
    if (remaining === null) {
      this.removeTab(tab, result);
      return;
    }
    tab.layout = remaining;
    if (tab.zoomedPane === pane.id) tab.zoomedPane = null;
    if (tab.focusedPane === pane.id) tab.focusedPane = leaves(remaining)[0]!;
  }

  private removeTab(tab: TabRecord, result: CloseResult): void {
    this.tabs.delete(tab.id);
    result.tabs.push(tab);
    const workspace = this.workspace(tab.workspaceId);
    const index = workspace.tabs.indexOf(tab.id);
    workspace.tabs.splice(index, 1);
    if (workspace.tabs.length === 0) {
      this.workspaces.delete(workspace.id);
      result.workspaces.push(workspace);
      if (this.focusedWorkspace === workspace.id) {
        // Like closing a tmux session: focus falls to the most recently created survivor.
        this.focusedWorkspace = [...this.workspaces.keys()].pop() ?? null;
      }
      return;
    }
    if (workspace.focusedTab === tab.id) {
      workspace.focusedTab = workspace.tabs[Math.min(index, workspace.tabs.length - 1)]!;
    }
  }

  private forgetPane(pane: PaneRecord): void {
    this.panes.delete(pane.id);
    this.bySurface.delete(pane.surfaceId);
    for (const alias of pane.aliases) this.aliasToPane.delete(alias);
  }

  private renumberPane(pane: PaneRecord, workspaceId: string): void {
    const oldId = pane.id;
    const newId = this.ids.nextPane(workspaceId);
    this.panes.delete(oldId);
    pane.aliases.push(oldId);
    for (const alias of pane.aliases) this.aliasToPane.set(alias, newId);
    pane.id = newId;
    pane.workspaceId = workspaceId;
    this.panes.set(newId, pane);
  }
}

/** `base`, or `base-2`, `base-3`, … when a workspace already has that label (like tmux's session names). */
function uniqueWorkspaceLabel(base: string, taken: (label: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

function defaultWorkspaceLabel(cwd: string, id: string): string {
  const base = cwd.split('/').filter(Boolean).pop();
  return base || id;
}
