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
import type { AgentStatus, AgentUsage, MachineState, PaneRead, WorktreeDiffResult, WorktreeMergeResult } from '../contract/protocol.js';
import type { ReadOptions } from '../actions/pane-io.js';
import { readAgent } from '../actions/transcript.js';
import { mergeWorktreeBack, paneWorktreeDiff, worktreeNamed } from '../actions/worktree-actions.js';
import { checkpointDiff, listCheckpoints, rewindAgent } from '../actions/checkpoint-actions.js';
import type { AgentCheckpointsResult, CheckpointDiffResult, RewindResult } from '../contract/checkpoints.js';
import type { IdCounters } from '../session/ids.js';
import type { PasteSink } from '../pty/paste-stream.js';
import type { PaneRecord, ReadonlyModel, TabRecord, WorkspaceRecord } from '../session/model.js';
import { ClientRights } from '../pty/client-rights.js';
import { ForeignModel, isForeign, NO_MIRRORS, UnionMap } from './foreign-model.js';
import { foreignAgent, type ForeignPane } from '../machines/machine-mirror.js';
import type { MirrorDirectory } from '../machines/machine-hub.js';
import { leaves } from '../session/layout.js';
import type { PaneScreen } from '../screen/pane-screen.js';
import type { Disposable } from '../contract/disposable.js';

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
 * own), and other machines' sessions after the local one (SPEC §14): their records, under
 * `NAME/` ids, come from the machines' mirrors (`ForeignModel`). While this client looks at a
 * workspace of another machine (`foreignPlace`), that is its focus: the core's model knows
 * nothing of it, so it is this client's alone.
 */
export class ClientModelView implements ReadonlyModel {
  /** The workspace and tab of another machine this client shows, or null for a local one. */
  foreignPlace: ClientPlace | null = null;
  readonly workspaces: ReadonlyModel['workspaces'];
  readonly tabs: ReadonlyModel['tabs'];
  readonly panes: ReadonlyModel['panes'];

  constructor(
    private readonly model: ReadonlyModel,
    private readonly place: () => ClientPlace | null,
    readonly foreign: ForeignModel = new ForeignModel(NO_MIRRORS),
  ) {
    this.workspaces = new UnionMap(() => [model.workspaces, ...foreign.workspaceMaps()]);
    this.tabs = new UnionMap(() => [model.tabs, ...foreign.tabMaps()]);
    this.panes = new UnionMap(() => [model.panes, ...foreign.paneMaps()]);
  }

  findPane(idOrAlias: string): Readonly<PaneRecord> | undefined {
    return this.model.findPane(idOrAlias) ?? this.foreign.pane(idOrAlias);
  }
  paneBySurface(surfaceId: number): Readonly<PaneRecord> | undefined {
    return this.model.paneBySurface(surfaceId) ?? this.foreign.paneBySurface(surfaceId);
  }
  pane(idOrAlias: string): Readonly<PaneRecord> {
    return this.foreign.pane(idOrAlias) ?? this.model.pane(idOrAlias);
  }
  tab(tabId: string): Readonly<TabRecord> {
    return this.foreign.tab(tabId) ?? this.model.tab(tabId);
  }
  workspace(workspaceId: string): Readonly<WorkspaceRecord> {
    return this.foreign.workspace(workspaceId) ?? this.model.workspace(workspaceId);
  }
  tabPanes(tabId: string): Readonly<PaneRecord>[] {
    const tab = this.foreign.tab(tabId);
    if (!tab) return this.model.tabPanes(tabId);
    return leaves(tab.layout).flatMap((id) => this.foreign.pane(id) ?? []);
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
    const tab = this.tabs.get(at.tab);
    return (tab && this.panes.get(tab.focusedPane)) ?? null;
  }
  isPaneFocused(pane: Readonly<PaneRecord>): boolean {
    return this.focusedPane()?.id === pane.id;
  }
  isTabFocused(tab: Readonly<TabRecord>): boolean {
    const at = this.here();
    return at ? at.tab === tab.id : this.model.isTabFocused(tab);
  }

  private here(): ClientPlace | null {
    if (this.foreignPlace) {
      const workspace = this.foreign.workspace(this.foreignPlace.workspace);
      if (workspace) return { workspace: workspace.id, tab: workspace.tabs.includes(this.foreignPlace.tab) ? this.foreignPlace.tab : workspace.focusedTab };
      // That workspace closed (or its machine went): back to this machine's session.
      this.foreignPlace = null;
    }
    return resolvePlace(this.model, this.place());
  }
}

/** A machine as the sidebar shows it. */
export interface MachineRow {
  name: string;
  label: string;
  state: MachineState;
  latencyMs: number | null;
}

/** What the TUI reads of an agent, this machine's or another's. */
export interface AgentLike {
  readonly kind: string;
  readonly name: string | null;
  readonly state: { readonly status: AgentStatus; readonly seen: boolean; snapshot(): { message: string | null } };
}

/** The agents a client sees (the core's registry satisfies it for this machine alone). */
export interface ClientAgents {
  agentIn(pane: Readonly<PaneRecord>): AgentLike | null;
  agents(): Iterable<{ pane: Readonly<PaneRecord>; agent: AgentLike }>;
  /** What the pane's agent spent (SPEC §18); null when unknown (another machine's agent, or no record). */
  usageOf?(pane: Readonly<PaneRecord>): AgentUsage | null;
}

/**
 * What a client's controller, chrome, copy mode and notifier use of the core: exactly these
 * members, so a new use is a deliberate line here. The real `CorralCore` satisfies it.
 */
export interface ClientCore
  extends Readonly<
    Pick<
      CorralCore,
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
    >
  > {
  readonly model: ReadonlyModel;
  /** A paste streamed into a pane, as it arrives from the client's terminal. */
  openPaste(pane: PaneRecord): PasteSink;
  /** The agents this client can see: this machine's, and other machines' (SPEC §14). */
  readonly agents: ClientAgents;
  /** Other machines, for the sidebar (SPEC §14); absent where there are none. */
  machines?(): MachineRow[];
  /**
   * What the compositor draws for a pane when it is not its plain view: another machine's pane
   * with the keys typed into it drawn before their echo (docs/machines.md "Predicted echo"),
   * and the rows to redraw when those change. Null (or absent) for a pane drawn as it is.
   */
  paneOverlay?(pane: PaneRecord): PaneOverlay | null;
  /**
   * An agent's transcript, as `agent.read` gathers it (copy mode shows it): an action on the
   * core, so the TUI itself never reaches a pane's host (test/unit/read-interface.test.ts).
   */
  readAgent(pane: PaneRecord, opts: ReadOptions): Promise<PaneRead>;
  // Actions on the session. Results are not read: on another machine's pane (SPEC §14) an
  // action is forwarded there, and what it made arrives with the next mirror update.
  createTab(opts: Parameters<CorralCore['createTab']>[0]): void;
  splitPane(...args: Parameters<CorralCore['splitPane']>): void;
  closePane(paneId: string): void;
  focusWorkspace(workspaceId: string): void;
  focusTab(tabId: string): void;
  focusPane(paneId: string): void;
  renameWorkspace(workspaceId: string, label: string): void;
  renameTab(tabId: string, label: string): void;
  renamePane(paneId: string, name: string): void;
  zoomPane(...args: Parameters<CorralCore['zoomPane']>): void;
  resizePane(...args: Parameters<CorralCore['resizePane']>): void;
  setTabLayout(...args: Parameters<CorralCore['setTabLayout']>): void;
  /** The diff of the worktree a pane works in (the review view, prefix D): an action, which runs git; the TUI never does. */
  reviewDiff(pane: PaneRecord): Promise<WorktreeDiffResult>;
  /** Merges a worktree back, as `worktree merge` does: a person's decision, so a view-only client may not. */
  mergeWorktree(name: string): Promise<WorktreeMergeResult>;
  /** The checkpoints of the agent in a pane with what each turn changed (the review view's turns, SPEC §20). */
  turnCheckpoints(pane: PaneRecord): Promise<AgentCheckpointsResult>;
  /** What one turn of the agent in a pane changed, patch included. */
  turnDiff(pane: PaneRecord, turn: number): Promise<CheckpointDiffResult>;
  /** Puts the pane's files back as checkpoint `id` had them: a person's decision, as a merge is. */
  rewindTo(pane: PaneRecord, id: number): Promise<RewindResult>;
}

/** A pane's screen as drawn, with what is drawn over it, and the rows that change without new output. */
export interface PaneOverlay {
  readonly screen: PaneScreen;
  onChange(listener: (rows: number[]) => void): Disposable;
}

/** A person at their own terminal: what a client is when nothing says otherwise (tests, the local TUI). */
export const PERSON_RIGHTS = new ClientRights({ kind: 'outside', terminal: true }, String);

/**
 * The core as one client sees it: `model` is its `ClientModelView`; every other member goes
 * straight to the core (actions act on the one session, whichever client sent them), except
 * that what would reach a pane's input or open the gate first asks the client's rights
 * (SPEC §8): this is the one place every key path of a client passes. Another machine's panes
 * (SPEC §14) are read from their mirrors, and what is done to them is forwarded to that machine.
 */
export class ClientCoreView implements ClientCore {
  readonly model: ClientModelView;
  readonly agents: ClientAgents;
  /** Where an action forwarded to another machine reports its failure (the client's status line). */
  onRemoteError: (message: string) => void = () => {};
  /** This client alone now shows something else (another machine's workspace): it draws again. */
  onLocalChange: () => void = () => {};
  private readonly foreign: ForeignModel;

  constructor(
    private readonly core: CorralCore,
    place: () => ClientPlace | null,
    readonly rights: ClientRights = PERSON_RIGHTS,
    private readonly mirrors: MirrorDirectory = NO_MIRRORS,
  ) {
    this.foreign = new ForeignModel(mirrors);
    this.model = new ClientModelView(core.model, place, this.foreign);
    const foreign = this.foreign;
    this.agents = {
      agentIn: (pane) => (isForeign(pane) ? foreignAgent(pane as ForeignPane) : core.agents.agentIn(pane as PaneRecord)),
      usageOf: (pane) => (isForeign(pane) ? null : core.agents.budgets.usageOf(pane as PaneRecord)),
      *agents() {
        yield* core.agents.agents();
        for (const map of foreign.paneMaps()) {
          for (const pane of map.values()) {
            const agent = foreignAgent(pane);
            if (agent) yield { pane, agent };
          }
        }
      },
    };
  }

  /** The pane of another machine `pane` is, or null for this machine's. */
  private remote(pane: Readonly<PaneRecord>): ForeignPane | null {
    return isForeign(pane) ? (pane as ForeignPane) : null;
  }

  /** Sends an action on another machine's record there; a failure is told, not thrown (it comes later). */
  private forward(id: string, method: string, params: Record<string, unknown>): void {
    const mirror = this.foreign.mirrorOf(id);
    if (!mirror) return;
    mirror.call(method, params).catch((error: unknown) => this.onRemoteError(`${mirror.machine}: ${(error as Error).message}`));
  }

  machines(): MachineRow[] {
    return this.mirrors.mirrors().flatMap((mirror) => {
      const status = this.mirrors.status(mirror.machine);
      return status ? [{ name: mirror.machine, label: status.label, state: status.state, latencyMs: status.latencyMs }] : [];
    });
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
  readonly setViewport: ClientCore['setViewport'] = (cols, rows, contentRect) => {
    this.core.setViewport(cols, rows, contentRect);
    // Mirrored servers lay their tabs out for the same main area, so their panes fit the frames here.
    this.mirrors.setViewport(cols, rows);
  };
  readonly tabRects: ClientCore['tabRects'] = (tab) => this.core.tabRects(tab);
  readonly view: ClientCore['view'] = (pane) => {
    const remote = this.remote(pane);
    if (!remote) return this.core.view(pane);
    return this.foreign.mirrorOf(remote.id)!.view(remote);
  };
  readonly paneOverlay = (pane: PaneRecord): PaneOverlay | null => {
    const remote = this.remote(pane);
    return remote ? (this.foreign.mirrorOf(remote.id)?.prediction(remote) ?? null) : null;
  };
  readonly readAgent: ClientCore['readAgent'] = async (pane, opts) => {
    const remote = this.remote(pane);
    if (!remote) return readAgent(this.core, pane, opts);
    const mirror = this.foreign.mirrorOf(remote.id)!;
    return ((await mirror.call('agent.read', { target: remote.remote.id, ...opts })) as { read: PaneRead }).read;
  };
  readonly reviewDiff: ClientCore['reviewDiff'] = (pane) => paneWorktreeDiff(this.core, pane);
  readonly mergeWorktree: ClientCore['mergeWorktree'] = async (name) => {
    this.rights.assertMayType(this.core.scripting);
    return mergeWorktreeBack(this.core, await worktreeNamed(this.core, name), { mode: 'merge' });
  };
  readonly turnCheckpoints: ClientCore['turnCheckpoints'] = (pane) => listCheckpoints(this.core, pane, { counts: true });
  readonly turnDiff: ClientCore['turnDiff'] = (pane, turn) => checkpointDiff(this.core, pane, turn, true);
  readonly rewindTo: ClientCore['rewindTo'] = async (pane, id) => {
    this.rights.assertMayType(this.core.scripting);
    return rewindAgent(this.core, pane, id);
  };
  readonly writeToPane: ClientCore['writeToPane'] = (pane, data) => {
    this.rights.assertMayType(this.core.scripting);
    const remote = this.remote(pane);
    if (remote) this.foreign.mirrorOf(remote.id)!.input(remote, data);
    else this.core.writeToPane(pane, data);
  };
  /** A paste streamed into the pane (one unit of its input; a machine's pane gets it piece by piece). */
  readonly openPaste: ClientCore['openPaste'] = (pane) => {
    this.rights.assertMayType(this.core.scripting);
    const remote = this.remote(pane);
    if (!remote) return this.core.openPaste(pane);
    return this.foreign.mirrorOf(remote.id)!.openPaste(remote, this.view(remote).bracketedPasteMode);
  };
  /** Refused quietly (false): the key then takes the full path, which says why. */
  readonly typeToPane: ClientCore['typeToPane'] = (pane, bytes, onEcho) =>
    this.rights.refusal(this.core.scripting) === null && !this.remote(pane) && this.core.typeToPane(pane, bytes, onEcho);
  readonly paneBySurface: ClientCore['paneBySurface'] = (surfaceId) => this.core.paneBySurface(surfaceId) ?? (this.foreign.paneBySurface(surfaceId) as PaneRecord | undefined);
  readonly paneCwd: ClientCore['paneCwd'] = (pane, maxAgeMs) => this.remote(pane)?.remote.cwd ?? this.core.paneCwd(pane, maxAgeMs);
  readonly paneKeyboard: ClientCore['paneKeyboard'] = (pane) => {
    const remote = this.remote(pane);
    return remote ? this.view(remote).keyboard : this.core.paneKeyboard(pane);
  };
  readonly paneForegroundProgram: ClientCore['paneForegroundProgram'] = (pane) => {
    const remote = this.remote(pane);
    // Closing a remote pane asks first when an agent runs in it.
    return remote ? (remote.remote.agent?.kind ?? null) : this.core.paneForegroundProgram(pane);
  };
  readonly createWorkspace: ClientCore['createWorkspace'] = (opts) => this.core.createWorkspace(opts);
  createTab(opts: Parameters<CorralCore['createTab']>[0]): void {
    if (this.foreign.workspace(opts.workspaceId)) this.forward(opts.workspaceId, 'tab.create', { workspace: this.foreign.mirrorOf(opts.workspaceId)!.remoteId(opts.workspaceId) });
    else this.core.createTab(opts);
  }
  splitPane(...[paneId, direction]: Parameters<CorralCore['splitPane']>): void {
    if (this.foreign.pane(paneId)) this.forward(paneId, 'pane.split', { pane_id: this.remoteId(paneId), direction });
    else this.core.splitPane(paneId, direction);
  }
  closePane(paneId: string): void {
    if (this.foreign.pane(paneId)) this.forward(paneId, 'pane.close', { pane_id: this.remoteId(paneId) });
    else this.core.closePane(paneId);
  }
  focusWorkspace(workspaceId: string): void {
    if (workspaceId.startsWith('machine:')) {
      // A machine's heading in the sidebar: its first workspace.
      const name = workspaceId.slice('machine:'.length);
      const first = [...this.model.workspaces.keys()].find((id) => id.startsWith(`${name}/`));
      if (first) this.focusWorkspace(first);
      return;
    }
    const workspace = this.foreign.workspace(workspaceId);
    if (workspace) {
      this.model.foreignPlace = { workspace: workspace.id, tab: workspace.focusedTab };
      this.onLocalChange();
      return;
    }
    this.model.foreignPlace = null;
    this.core.focusWorkspace(workspaceId);
  }
  focusTab(tabId: string): void {
    const tab = this.foreign.tab(tabId);
    if (tab) {
      this.model.foreignPlace = { workspace: tab.workspaceId, tab: tab.id };
      this.onLocalChange();
      return;
    }
    this.model.foreignPlace = null;
    this.core.focusTab(tabId);
  }
  focusPane(paneId: string): void {
    const pane = this.foreign.pane(paneId);
    if (!pane) {
      this.model.foreignPlace = null;
      this.core.focusPane(paneId);
      return;
    }
    const tab = this.foreign.tab(pane.tabId);
    if (tab) tab.focusedPane = pane.id;
    this.model.foreignPlace = { workspace: pane.workspaceId, tab: pane.tabId };
    // Focusing there marks its agent seen there (SPEC §4), and the next mirror update agrees.
    this.forward(paneId, 'pane.focus', { pane_id: pane.remote.id });
    this.onLocalChange();
  }
  renameWorkspace(workspaceId: string, label: string): void {
    this.rights.assertInert(label, this.core.scripting);
    if (this.foreign.workspace(workspaceId)) this.forward(workspaceId, 'workspace.rename', { workspace_id: this.remoteId(workspaceId), label });
    else this.core.renameWorkspace(workspaceId, label);
  }
  renameTab(tabId: string, label: string): void {
    this.rights.assertInert(label, this.core.scripting);
    if (this.foreign.tab(tabId)) this.forward(tabId, 'tab.rename', { tab_id: this.remoteId(tabId), label });
    else this.core.renameTab(tabId, label);
  }
  renamePane(paneId: string, name: string): void {
    this.rights.assertInert(name, this.core.scripting);
    if (this.foreign.pane(paneId)) this.forward(paneId, 'pane.rename', { pane_id: this.remoteId(paneId), name });
    else this.core.renamePane(paneId, name);
  }
  zoomPane(...[paneId, zoom]: Parameters<CorralCore['zoomPane']>): void {
    if (this.foreign.pane(paneId)) this.forward(paneId, 'pane.zoom', { pane_id: this.remoteId(paneId), ...(zoom === undefined ? {} : { zoom }) });
    else this.core.zoomPane(paneId, zoom);
  }
  resizePane(...[paneId, direction, cells]: Parameters<CorralCore['resizePane']>): void {
    if (this.foreign.pane(paneId)) this.forward(paneId, 'pane.resize', { pane_id: this.remoteId(paneId), direction, amount: cells });
    else this.core.resizePane(paneId, direction, cells);
  }
  setTabLayout(...[tabId, layout]: Parameters<CorralCore['setTabLayout']>): void {
    if (this.foreign.tab(tabId)) this.onRemoteError(`layouts of ${this.foreign.mirrorOf(tabId)!.machine}'s tabs are set there`);
    else this.core.setTabLayout(tabId, layout);
  }

  /** `build/w1:p2` → `w1:p2`. */
  private remoteId(id: string): string {
    return this.foreign.mirrorOf(id)?.remoteId(id) ?? id;
  }
}
