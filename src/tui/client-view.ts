/**
 * The session as one attached client sees it (SPEC §1: each client has its own current
 * workspace and tab; pane focus inside a tab is shared). The model keeps one focus — that of
 * the most recently active client, which every action and every script acts on. A client
 * that is not the active one keeps the place it last looked at (`ClientPlace`) and reads the
 * model through this view: the same records, with the focused workspace and that
 * workspace's current tab read from its place. Which pane of a tab has focus is the tab's
 * own (`TabRecord.focusedPane`), so it stays shared.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRead, WorktreeDiffResult, WorktreeMergeResult } from '../contract/protocol.js';
import type { ReadOptions } from '../actions/pane-io.js';
import { readAgent } from '../actions/transcript.js';
import { mergeWorktreeBack, paneWorktreeDiff, worktreeNamed } from '../actions/worktree-actions.js';
import type { IdCounters } from '../session/ids.js';
import type { PaneRecord, ReadonlyModel, TabRecord, WorkspaceRecord } from '../session/model.js';
import { ClientRights } from './client-rights.js';

/** Where a client looks: a workspace and the tab it shows there. */
export interface ClientPlace {
  workspace: string;
  tab: string;
}

/** The place the model's focus is at now (what the active client shows), or null with no workspace. */
export function currentPlace(model: ReadonlyModel): ClientPlace | null {
  const workspace = model.focusedWorkspace === null ? undefined : model.workspaces.get(model.focusedWorkspace);
  return workspace ? { workspace: workspace.id, tab: workspace.focusedTab } : null;
}

/**
 * `place` as it stands now: a closed tab gives way to its workspace's current tab; a closed
 * workspace gives null (the client then follows the model's focus).
 */
export function resolvePlace(model: ReadonlyModel, place: ClientPlace | null): ClientPlace | null {
  if (place === null) return null;
  const workspace = model.workspaces.get(place.workspace);
  if (!workspace) return null;
  return { workspace: workspace.id, tab: workspace.tabs.includes(place.tab) ? place.tab : workspace.focusedTab };
}

/**
 * `model` with its focus read from `place()` whenever that gives a place (null: the model's
 * own). Everything else is the model's, read through one explicit getter or method each: the
 * four focus members are the whole of what a client sees differently.
 */
export class ClientModelView implements ReadonlyModel {
  constructor(
    private readonly model: ReadonlyModel,
    private readonly place: () => ClientPlace | null,
  ) {}

  get workspaces(): ReadonlyModel['workspaces'] {
    return this.model.workspaces;
  }
  get tabs(): ReadonlyModel['tabs'] {
    return this.model.tabs;
  }
  get panes(): ReadonlyModel['panes'] {
    return this.model.panes;
  }
  findPane(idOrAlias: string): Readonly<PaneRecord> | undefined {
    return this.model.findPane(idOrAlias);
  }
  paneBySurface(surfaceId: number): Readonly<PaneRecord> | undefined {
    return this.model.paneBySurface(surfaceId);
  }
  pane(idOrAlias: string): Readonly<PaneRecord> {
    return this.model.pane(idOrAlias);
  }
  tab(tabId: string): Readonly<TabRecord> {
    return this.model.tab(tabId);
  }
  workspace(workspaceId: string): Readonly<WorkspaceRecord> {
    return this.model.workspace(workspaceId);
  }
  tabPanes(tabId: string): Readonly<PaneRecord>[] {
    return this.model.tabPanes(tabId);
  }
  idCounters(): IdCounters {
    return this.model.idCounters();
  }

  // -- the client's own focus ---------------------------------------------------

  get focusedWorkspace(): string | null {
    return this.here()?.workspace ?? this.model.focusedWorkspace;
  }
  focusedPane(): Readonly<PaneRecord> | null {
    const at = this.here();
    if (!at) return this.model.focusedPane();
    const tab = this.model.tabs.get(at.tab);
    return (tab && this.model.panes.get(tab.focusedPane)) ?? null;
  }
  isPaneFocused(pane: Readonly<PaneRecord>): boolean {
    return this.focusedPane()?.id === pane.id;
  }
  isTabFocused(tab: Readonly<TabRecord>): boolean {
    const at = this.here();
    return at ? at.tab === tab.id : this.model.isTabFocused(tab);
  }

  private here(): ClientPlace | null {
    return resolvePlace(this.model, this.place());
  }
}

/**
 * What a client's controller, chrome, copy mode and notifier use of the core: exactly these
 * members, so a new use is a deliberate line here. The real `CorralCore` satisfies it.
 */
export interface ClientCore
  extends Readonly<
    Pick<
      CorralCore,
      | 'agents'
      | 'worktrees'
      | 'config'
      | 'scripting'
      | 'setScripting'
      | 'listen'
      | 'isWatched'
      | 'setClientView'
      | 'setViewport'
      | 'tabRects'
      | 'view'
      | 'writeToPane'
      | 'typeToPane'
      | 'paneBySurface'
      | 'paneCwd'
      | 'paneKeyboard'
      | 'paneForegroundProgram'
      | 'createWorkspace'
      | 'createTab'
      | 'splitPane'
      | 'closePane'
      | 'focusWorkspace'
      | 'focusTab'
      | 'focusPane'
      | 'renameWorkspace'
      | 'renameTab'
      | 'renamePane'
      | 'zoomPane'
      | 'resizePane'
      | 'setTabLayout'
    >
  > {
  readonly model: ReadonlyModel;
  /**
   * An agent's transcript, as `agent.read` gathers it (copy mode shows it): an action on the
   * core, so the TUI itself never reaches a pane's host (test/unit/read-interface.test.ts).
   */
  readAgent(pane: PaneRecord, opts: ReadOptions): Promise<PaneRead>;
  /** The diff of the worktree a pane works in (the review view, prefix D): an action, which runs git; the TUI never does. */
  reviewDiff(pane: PaneRecord): Promise<WorktreeDiffResult>;
  /** Merges a worktree back, as `worktree merge` does: a person's decision, so a view-only client may not. */
  mergeWorktree(name: string): Promise<WorktreeMergeResult>;
}

/** A person at their own terminal: what a client is when nothing says otherwise (tests, the local TUI). */
export const PERSON_RIGHTS = new ClientRights({ kind: 'outside', terminal: true }, String);

/**
 * The core as one client sees it: `model` is its `ClientModelView`; every other member goes
 * straight to the core (actions act on the one session, whichever client sent them), except
 * that what would reach a pane's input or open the gate first asks the client's rights
 * (SPEC §8): this is the one place every key path of a client passes.
 */
export class ClientCoreView implements ClientCore {
  readonly model: ClientModelView;

  constructor(
    private readonly core: CorralCore,
    place: () => ClientPlace | null,
    readonly rights: ClientRights = PERSON_RIGHTS,
  ) {
    this.model = new ClientModelView(core.model, place);
  }

  get agents(): CorralCore['agents'] {
    return this.core.agents;
  }
  get config(): CorralCore['config'] {
    return this.core.config;
  }
  get worktrees(): CorralCore['worktrees'] {
    return this.core.worktrees;
  }
  get scripting(): boolean {
    return this.core.scripting;
  }
  readonly setScripting: ClientCore['setScripting'] = (on) => {
    this.rights.assertMaySetGate(on);
    this.core.setScripting(on);
  };
  readonly listen: ClientCore['listen'] = (listener) => this.core.listen(listener);
  readonly isWatched: ClientCore['isWatched'] = (pane) => this.core.isWatched(pane);
  readonly setClientView: ClientCore['setClientView'] = (view, client) => this.core.setClientView(view, client);
  readonly setViewport: ClientCore['setViewport'] = (cols, rows, contentRect) => this.core.setViewport(cols, rows, contentRect);
  readonly tabRects: ClientCore['tabRects'] = (tab) => this.core.tabRects(tab);
  readonly view: ClientCore['view'] = (pane) => this.core.view(pane);
  readonly readAgent: ClientCore['readAgent'] = (pane, opts) => readAgent(this.core, pane, opts);
  readonly reviewDiff: ClientCore['reviewDiff'] = (pane) => paneWorktreeDiff(this.core, pane);
  readonly mergeWorktree: ClientCore['mergeWorktree'] = async (name) => {
    this.rights.assertMayType(this.core.scripting);
    return mergeWorktreeBack(this.core, await worktreeNamed(this.core, name), { mode: 'merge' });
  };
  readonly writeToPane: ClientCore['writeToPane'] = (pane, data) => {
    this.rights.assertMayType(this.core.scripting);
    this.core.writeToPane(pane, data);
  };
  /** Refused quietly (false): the key then takes the full path, which says why. */
  readonly typeToPane: ClientCore['typeToPane'] = (pane, bytes, onEcho) =>
    this.rights.refusal(this.core.scripting) === null && this.core.typeToPane(pane, bytes, onEcho);
  readonly paneBySurface: ClientCore['paneBySurface'] = (surfaceId) => this.core.paneBySurface(surfaceId);
  readonly paneCwd: ClientCore['paneCwd'] = (pane, maxAgeMs) => this.core.paneCwd(pane, maxAgeMs);
  readonly paneKeyboard: ClientCore['paneKeyboard'] = (pane) => this.core.paneKeyboard(pane);
  readonly paneForegroundProgram: ClientCore['paneForegroundProgram'] = (pane) => this.core.paneForegroundProgram(pane);
  readonly createWorkspace: ClientCore['createWorkspace'] = (opts) => this.core.createWorkspace(opts);
  readonly createTab: ClientCore['createTab'] = (opts) => this.core.createTab(opts);
  readonly splitPane: ClientCore['splitPane'] = (...args) => this.core.splitPane(...args);
  readonly closePane: ClientCore['closePane'] = (paneId) => this.core.closePane(paneId);
  readonly focusWorkspace: ClientCore['focusWorkspace'] = (workspaceId) => this.core.focusWorkspace(workspaceId);
  readonly focusTab: ClientCore['focusTab'] = (tabId) => this.core.focusTab(tabId);
  readonly focusPane: ClientCore['focusPane'] = (paneId) => this.core.focusPane(paneId);
  readonly renameWorkspace: ClientCore['renameWorkspace'] = (workspaceId, label) => {
    this.rights.assertInert(label, this.core.scripting);
    return this.core.renameWorkspace(workspaceId, label);
  };
  readonly renameTab: ClientCore['renameTab'] = (tabId, label) => {
    this.rights.assertInert(label, this.core.scripting);
    return this.core.renameTab(tabId, label);
  };
  readonly renamePane: ClientCore['renamePane'] = (paneId, name) => {
    this.rights.assertInert(name, this.core.scripting);
    return this.core.renamePane(paneId, name);
  };
  readonly zoomPane: ClientCore['zoomPane'] = (paneId, zoom) => this.core.zoomPane(paneId, zoom);
  readonly resizePane: ClientCore['resizePane'] = (paneId, direction, cells) => this.core.resizePane(paneId, direction, cells);
  readonly setTabLayout: ClientCore['setTabLayout'] = (tabId, layout) => this.core.setTabLayout(tabId, layout);
}
