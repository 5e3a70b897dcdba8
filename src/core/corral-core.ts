/**
 * The corral core: the session model plus one live pty + headless terminal per pane (kept by
 * live-panes.ts), the event stream, the scripting gate and every action a client can take. The
 * RPC handlers and the TUI both call these methods; nothing here knows a UI exists.
 */
import { CorralError, type AgentWorktree, type SplitDirection, type CorralEvent, type EventInput } from '../contract/protocol.js';
import type { Config } from '../config/schema.js';
import { SessionModel, type CloseResult, type PaneRecord, type ReadonlyModel, type TabRecord } from '../session/model.js';
import { computeRects, leaves, resizeLeaf, type LayoutNode } from '../session/layout.js';
import type { Rect } from '../contract/rect.js';
import { resolveSelector, type SelectorCandidate } from '../session/selectors.js';
import { isPaneId } from '../session/ids.js';
import { spawnPaneHost, type PaneFactory, type PaneHost } from '../pty/pane-host.js';
import type { ProcessTable } from '../pty/foreground.js';
import type { PeerPlace, PeerProcfs } from '../pty/peer-place.js';
import { SYSTEM_CLOCK, type Clock } from '../clock.js';
import type { PaneView } from '../terminal/pane-view.js';
import { encodeKey } from '../terminal/keys.js';
import type { KeyboardModesView } from '../terminal/keyboard-modes.js';
import type { ExitInfo, PtyOutput } from '../pty/pane-process.js';
import type { PasteStream } from '../pty/paste-stream.js';
import { mebibytes } from '../pty/pane-input.js';
import { findExecutable } from '../pty/isolated-exec.js';
import { EventBus } from './event-bus.js';
import { LivePanes } from './live-panes.js';
import type { Disposable } from '../contract/disposable.js';
import { AgentRegistry } from '../agents/agent-registry.js';
import type { AgentRules } from '../agents/rules.js';

/** Size of the virtual screen panes are laid out in when no TUI is attached. */
export const HEADLESS_VIEWPORT = { cols: 160, rows: 48 } as const;

export interface CoreOptions {
  config: Config;
  scripting: boolean;
  socketPath: string;
  /** Directory holding the `corral` launcher, prepended to every pane's PATH. */
  launcherDir: string | null;
  /** The environment panes inherit (the server's own, normally). */
  baseEnv: NodeJS.ProcessEnv;
  viewport?: { cols: number; rows: number };
  /** Screen rules per agent kind (assets/agents/*.toml). */
  agentRules: ReadonlyMap<string, AgentRules>;
  /** Seams for unit tests; production leaves them out and gets real ptys, time and /proc. */
  panes?: PaneFactory;
  clock?: Clock;
  processes?: ProcessTable;
  /** Where callers are placed relative to the panes (SPEC §8); the real /proc unless a test brings its own. */
  peers?: PeerProcfs;
}

/** What an attached TUI shows, for the seen/done rule (SPEC §4). */
export interface ClientView {
  /** The outer terminal has focus. */
  focused: boolean;
  /** Surface ids of the panes drawn on screen (the focused tab's). */
  visibleSurfaces: ReadonlySet<number>;
}

/** How one pane of a saved session starts again (src/persist/restore.ts decides). */
export interface RestoredPaneStart {
  cwd: string;
  env: Record<string, string>;
  /** Written into the pane's terminal before the shell's first output: saved lines, the restored line. */
  preamble: string;
  /** Typed into the fresh shell (a resumed agent, an `up` pane's command); null for none. */
  input: string | null;
  restoreCommand: string | null;
}

/** The saved session (src/persist/), as the `session.*` RPC methods reach it. */
export interface SessionPersistence {
  save(): Promise<{ path: string; bytes: number }>;
  forget(): Promise<{ path: string; forgotten: boolean }>;
  info(): { path: string; saved_at: string | null; restored_from: string | null; restored_at: string | null; problems: string[] };
}

/**
 * Which corral worktree a pane works in, as last seen (SPEC §15; src/actions/worktree-watch.ts
 * keeps it from events, so reading it costs no /proc read or git run): what views show.
 */
export interface PaneWorktrees {
  forPane(pane: PaneRecord): AgentWorktree | null;
}

/**
 * Checkpoints per turn (SPEC §20; src/actions/checkpoint-keeper.ts): told of every write to a
 * pane, since an Enter at an idle agent may start a turn.
 */
export interface PaneCheckpoints {
  input(pane: PaneRecord, data: string): void;
}

export class CorralCore {
  /** The session model; only the actions below change it. */
  private readonly session = new SessionModel();
  /** The session model for readers (the TUI, handlers, views): change it through the actions. */
  readonly model: ReadonlyModel = this.session;
  readonly bus = new EventBus();
  /** Each pane's pty and terminal (src/core/live-panes.ts). */
  private readonly live: LivePanes;
  private viewport: { cols: number; rows: number };
  /** Maps a tab's pane rectangle to the pty's size; the TUI takes away room for borders. */
  private contentRect: (rect: Rect) => Rect = (rect) => rect;
  scripting: boolean;
  private closed = false;
  /** What each attached client shows, by client (SPEC §12: seen when in view on any client). */
  private readonly clientViews = new Map<object, ClientView>();
  readonly agents: AgentRegistry;
  /** Set by the server when it saves its session; null in tests and with nothing to save to. */
  persistence: SessionPersistence | null = null;
  /** Set by the server (src/actions/worktree-watch.ts); null in tests and before it starts. */
  worktrees: PaneWorktrees | null = null;
  /** Set by the server (src/actions/checkpoint-keeper.ts); null in tests and before it starts. */
  checkpoints: PaneCheckpoints | null = null;
  private readonly clock: Clock;

  constructor(readonly options: CoreOptions) {
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.live = new LivePanes({
      factory: options.panes ?? spawnPaneHost,
      clock: this.clock,
      baseEnv: options.baseEnv,
      socketPath: options.socketPath,
      launcherDir: options.launcherDir,
      processes: options.processes,
      peers: options.peers,
      paneBySurface: (surfaceId) => this.paneBySurface(surfaceId),
      emit: (event) => this.emit(event),
      onOutput: (surfaceId) => this.agents.paneOutput(surfaceId),
      onExit: (surfaceId, info) => this.onPaneExit(surfaceId, info),
    });
    this.scripting = options.scripting || options.config.ai_unrestricted;
    this.viewport = { ...(options.viewport ?? HEADLESS_VIEWPORT) };
    this.agents = new AgentRegistry(
      {
        panes: () => this.model.panes.values(),
        findPane: (surfaceId) => this.paneBySurface(surfaceId),
        host: (pane) => this.live.find(pane),
        isWatched: (pane) => this.isWatched(pane),
        emit: (event) => this.emit(event),
        stallThresholdMs: () => this.config.agent_stall_threshold_secs * 1000,
        pressKeys: (pane, keys, gapMs) => this.pressKeys(pane, keys, gapMs),
      },
      options.agentRules,
      { clock: this.clock, processes: options.processes },
    );
  }

  /** A client reports what it shows; null when it detaches. `client` tells several apart. */
  setClientView(view: ClientView | null, client: object = this): void {
    const wasWatching = this.clientViews.get(client)?.focused ?? false;
    if (view) this.clientViews.set(client, view);
    else this.clientViews.delete(client);
    // Coming back to a focused terminal looks at the visible panes: finished agents there are seen.
    if (view?.focused && !wasWatching) this.markVisibleSeen();
  }

  /** Visible on some attached client whose terminal has focus. */
  isWatched(pane: PaneRecord): boolean {
    for (const view of this.clientViews.values()) if (view.focused && view.visibleSurfaces.has(pane.surfaceId)) return true;
    return false;
  }

  private markVisibleSeen(): void {
    for (const pane of this.model.panes.values()) if (this.isWatched(pane)) this.agents.markSeen(pane);
  }

  /** Focusing a tab looks at every pane in it (SPEC §4). */
  private markTabSeen(tab: TabRecord): void {
    for (const paneId of leaves(tab.layout)) {
      const pane = this.model.findPane(paneId);
      if (pane) this.agents.markSeen(pane);
    }
  }

  get config(): Config {
    return this.options.config;
  }

  // -- structure ------------------------------------------------------------

  /** `env`: extra variables for the root pane's shell (an `up` file's `env`); corral's own win. */
  createWorkspace(opts: { cwd: string; label?: string; focus?: boolean; env?: Record<string, string> }) {
    this.requirePaneRoom(1);
    this.requireShell();
    const created = this.session.createWorkspace(opts);
    this.startPane(created.pane, opts.env);
    this.emit({ type: 'workspace.created', workspace: created.workspace.id });
    this.emit({ type: 'tab.created', workspace: created.workspace.id, tab: created.tab.id });
    this.emitPaneCreated(created.pane);
    this.layoutTab(created.tab);
    this.emitFocusIfChanged();
    return created;
  }

  createTab(opts: { workspaceId: string; label?: string; cwd?: string; focus?: boolean }) {
    this.requirePaneRoom(1);
    this.requireShell();
    const created = this.session.createTab(opts);
    this.startPane(created.pane);
    this.emit({ type: 'tab.created', workspace: created.tab.workspaceId, tab: created.tab.id });
    this.emitPaneCreated(created.pane);
    if (opts.focus !== false) this.session.focusTab(created.tab.id);
    this.layoutTab(created.tab);
    this.emitFocusIfChanged();
    return created;
  }

  splitPane(
    paneId: string,
    direction: SplitDirection,
    opts: { ratio?: number; cwd?: string; focus?: boolean; env?: Record<string, string> } = {},
  ) {
    const target = this.model.pane(paneId);
    this.requirePaneRoom(1);
    this.requireShell();
    // A fresh /proc read: the new shell starts where the user is now, not 250 ms ago.
    const pane = this.session.splitPane(target.id, direction, { ...opts, cwd: opts.cwd ?? this.paneCwd(target, 0) });
    // Size the new pty to its slot before spawning so the shell starts at the right width.
    this.startPane(pane, opts.env);
    this.emitPaneCreated(pane);
    if (opts.focus !== false) this.session.focusPane(pane.id);
    this.layoutTab(this.model.tab(pane.tabId));
    this.emitFocusIfChanged();
    return pane;
  }

  /**
   * Refuses to go past `max_panes` (SPEC §11) before anything is created, so a client cannot
   * exhaust the host's processes and ptys through the server; `count` lets `up` check all of
   * its panes at once instead of building half a workspace.
   */
  requirePaneRoom(count: number): void {
    const max = this.config.max_panes;
    if (this.model.panes.size + count > max) {
      throw new CorralError(
        'invalid_params',
        `cannot create ${count === 1 ? 'a pane' : `${count} panes`}: this server holds ${this.model.panes.size} of at most ${max} (config key max_panes)`,
        { max_panes: max, panes: this.model.panes.size },
      );
    }
  }

  closePane(paneId: string): CloseResult {
    const pane = this.model.pane(paneId);
    const closed = this.session.closePane(pane.id);
    this.finishClose(closed);
    return closed;
  }

  closeTab(tabId: string): CloseResult {
    const closed = this.session.closeTab(tabId);
    this.finishClose(closed);
    return closed;
  }

  closeWorkspace(workspaceId: string): CloseResult {
    const closed = this.session.closeWorkspace(workspaceId);
    this.finishClose(closed);
    return closed;
  }

  movePane(paneId: string, target: { workspace?: string; tab?: string; newTab?: boolean; newWorkspace?: boolean }) {
    const result = this.session.movePane(paneId, target);
    if (!result.changed) return result;
    if (result.createdWorkspace) this.emit({ type: 'workspace.created', workspace: result.createdWorkspace.id });
    if (result.createdTab) this.emit({ type: 'tab.created', workspace: result.createdTab.workspaceId, tab: result.createdTab.id });
    this.emitStructureClosed(result.closed);
    this.emit({
      type: 'pane.moved',
      ...this.paneRef(result.pane),
      previous_pane_id: result.previousPaneId,
      previous_workspace_id: result.previousWorkspaceId,
      previous_tab_id: result.previousTabId,
    });
    this.layoutTab(this.model.tab(result.pane.tabId));
    const previousTab = this.model.tabs.get(result.previousTabId);
    if (previousTab) this.layoutTab(previousTab);
    this.emitFocusIfChanged();
    return result;
  }

  focusPane(paneId: string): Readonly<PaneRecord> {
    const pane = this.session.focusPane(paneId);
    this.agents.markSeen(pane);
    this.layoutTab(this.model.tab(pane.tabId));
    this.emitFocusIfChanged(true);
    return pane;
  }

  focusTab(tabId: string): Readonly<TabRecord> {
    const tab = this.session.focusTab(tabId);
    this.markTabSeen(tab);
    this.emitFocusIfChanged(true);
    return tab;
  }

  focusWorkspace(workspaceId: string) {
    const workspace = this.session.focusWorkspace(workspaceId);
    this.markTabSeen(this.model.tab(workspace.focusedTab));
    this.emitFocusIfChanged(true);
    return workspace;
  }

  renamePane(paneId: string, name: string): Readonly<PaneRecord> {
    const pane = this.session.pane(paneId);
    // Selectors try numbers (surface ids), pane ids and cmdline:/cwd: before names, so such a
    // name could never select its pane: refuse it rather than accept a dead alias.
    if (/^\d+$/.test(name) || isPaneId(name) || /^(cmdline|cwd):/.test(name)) {
      throw new CorralError('invalid_params', `pane name "${name}" would read as a selector (a number, a pane id, cmdline: or cwd:); pick another`, { name });
    }
    pane.name = name === '' ? null : name;
    this.emit({ type: 'pane.renamed', ...this.paneRef(pane), name: pane.name });
    return pane;
  }

  renameWorkspace(workspaceId: string, label: string) {
    const workspace = this.session.workspace(workspaceId);
    workspace.label = label;
    this.emit({ type: 'workspace.renamed', workspace: workspace.id, label });
    return workspace;
  }

  renameTab(tabId: string, label: string): Readonly<TabRecord> {
    const tab = this.session.tab(tabId);
    tab.label = label;
    this.emit({ type: 'tab.renamed', workspace: tab.workspaceId, tab: tab.id, label });
    return tab;
  }

  zoomPane(paneId: string, zoom?: boolean): Readonly<TabRecord> {
    const tab = this.session.zoomPane(paneId, zoom);
    this.layoutChanged(tab);
    return tab;
  }

  swapPanes(a: string, b: string): Readonly<TabRecord> {
    const tab = this.session.swapPanes(a, b);
    this.layoutChanged(tab);
    return tab;
  }

  resizePane(paneId: string, direction: 'left' | 'right' | 'up' | 'down', cells: number): Readonly<TabRecord> {
    const pane = this.model.pane(paneId);
    const tab = this.session.tab(pane.tabId);
    tab.layout = resizeLeaf(tab.layout, computeRects(tab.layout, this.area()), pane.id, direction, cells);
    this.layoutChanged(tab);
    return tab;
  }

  /** Replaces a tab's whole layout (an `up` preset); it must hold exactly the tab's panes. */
  setTabLayout(tabId: string, layout: LayoutNode): Readonly<TabRecord> {
    const tab = this.session.tab(tabId);
    const now = leaves(tab.layout).sort();
    const next = leaves(layout).sort();
    if (now.length !== next.length || now.some((id, i) => id !== next[i])) {
      throw new CorralError('invalid_params', `a layout for tab ${tab.id} must hold exactly its panes (${now.join(', ')})`);
    }
    tab.layout = layout;
    tab.zoomedPane = null;
    this.layoutChanged(tab);
    return tab;
  }

  private layoutChanged(tab: TabRecord): void {
    this.layoutTab(tab);
    this.emit({ type: 'pane.layout_changed', workspace: tab.workspaceId, tab: tab.id });
  }

  /** Sets the size of the area tabs are laid out in; the TUI calls this on every resize. */
  setViewport(cols: number, rows: number, contentRect?: (rect: Rect) => Rect): void {
    this.viewport = { cols: Math.max(1, cols), rows: Math.max(1, rows) };
    if (contentRect) this.contentRect = contentRect;
    for (const tab of this.model.tabs.values()) this.layoutTab(tab);
  }

  /** The rectangles of a tab's visible panes (one when zoomed), in viewport cells. */
  tabRects(tab: TabRecord): Map<string, Rect> {
    const area = this.area();
    if (tab.zoomedPane) return new Map([[tab.zoomedPane, area]]);
    return computeRects(tab.layout, area);
  }

  // -- panes: I/O -----------------------------------------------------------

  /** The read interface of a pane (src/terminal/pane-view.ts): what the TUI, the compositor and other clients read. */
  view(pane: PaneRecord): PaneView {
    return this.host(pane).terminal;
  }

  /** The live pty/terminal of a pane (for the core's own floors: actions, detection). */
  host(pane: PaneRecord): PaneHost {
    return this.live.get(pane);
  }

  /** The pid of each pane's process that is still live (e.g. to tell a pane's own tty from a client's). */
  panePids(): Iterable<number> {
    return this.live.pids();
  }

  /** Where process `pid` stands relative to the panes: a client's rights, a hook's pane, a detach's reach (SPEC §8). */
  placeProcess(pid: number, followTerminal: boolean): PeerPlace {
    return this.live.place(pid, followTerminal);
  }

  paneExit(pane: PaneRecord): { exited: boolean; exitCode: number | null; exitSignal: string | null } {
    return this.live.exit(pane);
  }

  /** Opens or closes the scripting gate (SPEC §8); src/rpc/gate.ts checks it on every request. */
  setScripting(on: boolean): void {
    this.scripting = on;
    this.emit({ type: 'scripting.changed', scripting: on });
  }

  /**
   * Presses named keys in a pane one at a time, `gapMs` apart (a budget's interrupt, SPEC §18:
   * Kilo and OpenCode read two Esc in one burst as one key). A pane gone by then gets nothing.
   */
  private pressKeys(pane: PaneRecord, keys: readonly string[], gapMs: number): void {
    keys.forEach((key, index) => {
      const press = (): void => {
        const current = this.paneBySurface(pane.surfaceId);
        const host = current ? this.live.find(current) : null;
        if (!current || !host || host.exited) return;
        try {
          this.writeToPane(current, encodeKey(key, { applicationCursor: host.terminal.applicationCursorKeys }));
        } catch {
          // A full input queue: the agent is not reading keys, and the next crossing tries again.
        }
      };
      if (index === 0) press();
      else this.clock.setTimeout(press, gapMs * index).unref();
    });
  }

  /**
   * Writes raw bytes to a pane's pty, behind everything written before (src/pty/pane-input.ts).
   * A pane whose program has stopped reading and holds a full queue refuses them:
   * `pane_input_full`, nothing sent.
   */
  writeToPane(pane: PaneRecord, data: string): void {
    const host = this.live.running(pane);
    if (!host.write(data)) throw paneInputFull(pane, host);
    this.agents.paneInput(pane, data);
    this.checkpoints?.input(pane, data);
  }

  /**
   * Types a command line and Enter into a pane. When its shell sits at the prompt, the line is
   * noted as typed ahead, so text sent next waits for the shell to take it and is framed for the
   * command it starts, not for the shell (src/pty/typed-line.ts).
   */
  typeLine(pane: PaneRecord, line: string): void {
    this.writeToPane(pane, `${line}\r`);
    const host = this.live.running(pane);
    // Read now, not from the process cache: the agent a line started a moment ago keeps paste mode on.
    if (host.isShellAtPrompt(0)) host.typedLine.typed();
  }

  /**
   * A paste from a client's terminal, streamed into the pane as it arrives (one unit of its
   * input: nothing else gets between its pieces); bracketed if the pane's program asks for it now.
   */
  openPaste(pane: PaneRecord): PasteStream {
    return this.live.running(pane).openPaste();
  }

  /**
   * Typed keys to a pane's pty now, the echo's head start (PaneHost.typeKeys); false when the
   * pane cannot take them this way (exited, input queued, a paste open): `writeToPane` then. Only
   * for printable text, which `writeToPane`'s interrupt-key bookkeeping never needs; the
   * checkpoint keeper's prompt line does, and is told after the write.
   */
  typeToPane(pane: PaneRecord, bytes: Uint8Array, onEcho: (data: PtyOutput) => void): boolean {
    if (!this.live.typeKeys(pane, bytes, onEcho)) return false;
    // After the write, off the echo's path: a person's prompt is typed this way (SPEC §20 names the turn by it).
    this.checkpoints?.input(pane, String.fromCharCode(...bytes));
    return true;
  }

  /** The pane's live working directory (its foreground process's, else its shell's). */
  paneCwd(pane: PaneRecord, maxAgeMs?: number): string {
    return this.live.cwd(pane, maxAgeMs);
  }

  /**
   * The pane's foreground command line, or the shell's when it sits at its prompt. Right
   * after a spawn (`pane split` answers then) the child may not have exec'd or taken its
   * terminal yet: /proc shows the server's own argv or no foreground group at all (that
   * was the `"cmd":""` of a fresh split). Until the shell has printed anything, and
   * whenever /proc cannot tell, the program the pane was spawned with is the answer.
   */
  paneCommand(pane: PaneRecord, maxAgeMs?: number): string {
    return this.live.command(pane, maxAgeMs);
  }

  /**
   * The program in the pane's foreground now (a fresh /proc read): its argv[0], '' when /proc
   * cannot tell, null when the shell sits at its prompt or the pane's process exited.
   */
  paneForegroundProgram(pane: PaneRecord): string | null {
    return this.live.foregroundProgram(pane);
  }

  /** The keyboard reporting the pane's application asked for; a request its app left behind is dropped (pane-keyboard.ts). */
  paneKeyboard(pane: PaneRecord): KeyboardModesView {
    return this.live.keyboard(pane);
  }

  // -- selectors ------------------------------------------------------------

  /** Resolves a selector (SPEC §2) to one pane, or several when allowed. */
  resolve(selector: string, opts: { allowMany?: boolean } = {}): Readonly<PaneRecord>[] {
    // An exact id or alias is the common case and needs no /proc reads.
    const direct = this.model.findPane(selector);
    if (direct) return [direct];
    const needsProcess = selector.startsWith('cmdline:') || selector.startsWith('cwd:');
    const candidates: SelectorCandidate[] = [...this.model.panes.values()].map((pane) => ({
      paneId: pane.id,
      aliases: pane.aliases,
      surfaceId: pane.surfaceId,
      paneName: pane.name,
      agentName: this.agents.agentIn(pane)?.name ?? null,
      // Fresh /proc reads: a script that just ran `cd` or started a program expects it to match.
      cmdline: needsProcess ? this.paneCommand(pane, 0) : '',
      cwd: needsProcess ? this.paneCwd(pane, 0) : pane.startCwd,
    }));
    const matched = resolveSelector(selector, candidates, { allowMany: opts.allowMany ?? false });
    return matched.map((candidate) => this.model.pane(candidate.paneId));
  }

  resolveOne(selector: string): Readonly<PaneRecord> {
    return this.resolve(selector)[0]!;
  }

  // -- saved sessions (src/persist/) ------------------------------------------

  /** What a pane was created with, for the saved session. */
  paneLaunch(pane: PaneRecord): { env: Record<string, string>; restoreCommand: string | null } {
    return this.live.launch(pane);
  }

  /** Marks the command a pane re-runs when the session is restored (`up` file `restore = true`). */
  setRestoreCommand(pane: PaneRecord, command: string | null): void {
    this.live.setRestoreCommand(pane, command);
  }

  /**
   * Recreates a saved session in an empty core: the model's records as saved (same ids), one
   * fresh shell per pane as `plan` says. Emits the usual created events, so clients and the
   * saver see the panes appear.
   */
  restoreSession(records: Parameters<SessionModel['load']>[0], plan: (pane: PaneRecord) => RestoredPaneStart): void {
    this.session.load(records);
    for (const workspace of this.session.workspaces.values()) {
      this.emit({ type: 'workspace.created', workspace: workspace.id });
      for (const tabId of workspace.tabs) {
        const tab = this.session.tab(tabId);
        this.emit({ type: 'tab.created', workspace: workspace.id, tab: tab.id });
        for (const pane of this.session.tabPanes(tab.id)) {
          const start = plan(pane);
          pane.startCwd = start.cwd;
          this.startPane(pane, start.env, start.preamble);
          this.live.setRestoreCommand(pane, start.restoreCommand);
          if (start.input !== null) this.live.get(pane).write(start.input);
          this.emitPaneCreated(pane);
        }
        this.layoutTab(tab);
      }
    }
    this.emitFocusIfChanged();
  }

  // -- lifecycle ------------------------------------------------------------

  /** Ends every pane's process group; used on server shutdown. */
  async shutdown(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.agents.dispose();
    await this.live.stopAll();
  }

  // -- internals ------------------------------------------------------------

  /**
   * Refuses to create a pane whose shell cannot start, before anything is created: node-pty
   * would fork anyway and the pane would vanish at once with nothing to say why.
   */
  private requireShell(): void {
    const shell = this.config.shell;
    // The fd-closing step hands the program to `env -i`, which reads NAME=VALUE as a variable.
    if (shell.includes('=')) {
      throw new CorralError('invalid_params', `the shell ${JSON.stringify(shell)} has "=" in its path, which corral cannot start: use a path without it`, { shell });
    }
    if (findExecutable(shell, this.options.baseEnv.PATH) !== null) return;
    throw new CorralError(
      'invalid_params',
      `the shell ${JSON.stringify(shell)} is not an executable file${shell.includes('/') ? '' : ' on PATH'}: ` +
        'set `shell` in config.toml (or $SHELL) to an installed shell',
      { shell },
    );
  }

  private startPane(pane: PaneRecord, extraEnv?: Record<string, string>, preamble?: string): void {
    const rect = this.tabRects(this.model.tab(pane.tabId)).get(pane.id) ?? this.area();
    const size = this.contentRect(rect);
    this.live.start(pane, { shell: this.config.shell, cols: size.cols, rows: size.rows, scrollback: this.config.scrollback_lines, env: extraEnv, preamble });
    this.agents.paneStarted(pane);
  }

  private onPaneExit(surfaceId: number, info: ExitInfo): void {
    const pane = this.paneBySurface(surfaceId);
    if (!pane) return;
    this.emit({ type: 'pane.exited', ...this.paneRef(pane), exit_code: info.exitCode, exit_signal: info.signal });
    // Like tmux without remain-on-exit: a pane whose shell ended goes away.
    if (!this.closed) this.closePane(pane.id);
  }

  paneBySurface(surfaceId: number): Readonly<PaneRecord> | undefined {
    return this.model.paneBySurface(surfaceId);
  }

  private finishClose(closed: CloseResult): void {
    for (const pane of closed.panes) {
      this.agents.paneClosed(pane.surfaceId);
      this.live.stop(pane.surfaceId);
    }
    this.emitStructureClosed(closed);
    for (const tab of this.model.tabs.values()) this.layoutTab(tab);
    this.emitFocusIfChanged();
  }

  private emitStructureClosed(closed: CloseResult): void {
    for (const pane of closed.panes) this.emit({ type: 'pane.closed', ...this.paneRef(pane) });
    for (const tab of closed.tabs) this.emit({ type: 'tab.closed', workspace: tab.workspaceId, tab: tab.id });
    for (const workspace of closed.workspaces) this.emit({ type: 'workspace.closed', workspace: workspace.id });
  }

  private area(): Rect {
    return { x: 0, y: 0, cols: this.viewport.cols, rows: this.viewport.rows };
  }

  /** Resizes every pty of a tab to its slot in the layout. */
  private layoutTab(tab: TabRecord): void {
    if (!this.model.tabs.has(tab.id)) return;
    const rects = this.tabRects(tab);
    for (const paneId of leaves(tab.layout)) {
      const pane = this.model.findPane(paneId);
      const rect = rects.get(paneId);
      if (!pane || !rect) continue;
      const size = this.contentRect(rect);
      this.live.resize(pane, size.cols, size.rows);
    }
  }

  private lastFocusedPaneId: string | null = null;

  /** Emits `pane.focused` when the globally focused pane changed (or always, when forced). */
  private emitFocusIfChanged(force = false): void {
    const pane = this.model.focusedPane();
    if (!pane) {
      this.lastFocusedPaneId = null;
      return;
    }
    if (!force && pane.id === this.lastFocusedPaneId) return;
    this.lastFocusedPaneId = pane.id;
    this.emit({ type: 'pane.focused', ...this.paneRef(pane), tab: pane.tabId });
  }

  private emitPaneCreated(pane: PaneRecord): void {
    this.emit({ type: 'pane.created', ...this.paneRef(pane), tab: pane.tabId });
  }

  paneRef(pane: PaneRecord): { surface_id: number; pane_id: string; workspace: string } {
    return { surface_id: pane.surfaceId, pane_id: pane.id, workspace: pane.workspaceId };
  }

  private emit(event: EventInput): void {
    this.bus.emit(event);
  }

  /** Emits an event the core does not make itself (a worktree's refreshed diff size). */
  announce(event: Extract<EventInput, { type: 'worktree.changed' }>): void {
    this.emit(event);
  }

  /** Listens to every core event in-process (for the TUI and waits). */
  listen(listener: (event: CorralEvent) => void): Disposable {
    return this.bus.listen(listener);
  }
}

/** The error for input a pane cannot take: its program stopped reading and its queue is full. */
function paneInputFull(pane: PaneRecord, host: PaneHost): CorralError {
  const queued = host.input.queuedBytes;
  return new CorralError('pane_input_full', `pane ${pane.id} is not reading its input (${mebibytes(queued)} wait for it): nothing more is taken until it reads`, { pane_id: pane.id, queued_bytes: queued });
}
