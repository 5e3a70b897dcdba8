/**
 * The TUI's controller: routes input (prefix commands, overlays, mouse, paste, plain keys to
 * the focused pane), keeps the compositor's pane layers in step with the core, and redraws
 * the chrome when what it shows changes. It is just another client of the core: every
 * action goes through the same core methods the socket uses.
 */
import type { ClientCore } from './client-view.js';
import type { Disposable } from '../contract/disposable.js';
import { CorralError } from '../contract/errors.js';
import type { PaneRecord } from '../session/model.js';
import { neighbor } from '../session/layout.js';
import { damagedRows } from '../terminal/damage.js';
import { encodeKey } from '../terminal/keys.js';
import { encodeKeyForPane, legacyBytes, type KeyPress } from '../terminal/key-protocol.js';
import { encodePaste } from '../terminal/paste.js';
import type { Compositor } from '../screen/compositor.js';
import { printableAscii } from '../screen/echo-prediction.js';
import { ECHO_TRACE, HOP } from '../screen/echo-trace.js';
import type { ChromeModel } from '../../components/chrome-model.js';
import { contains, type Rect } from '../contract/rect.js';
import { buildChrome, nextAttention, visibleFrames, type OverlayState, type RenameTarget, type UiState } from './chrome-builder.js';
import { frameInterior, screenGeometry, type ScreenGeometry } from '../../components/geometry.js';
import { InputParser, type InputEvent, type MouseEvent } from './input-parser.js';
import { resolveBindings, type CommandId } from '../config/keybindings.js';
import { overlayKey, routeInput, type KeyMap } from './key-routes.js';
import { borderAt, dragBorder, type BorderGrab } from './border-drag.js';
import { applyRename, busyProgram, currentName, FocusHistory, nextPaneInTab } from './tui-actions.js';
import { Notifier } from '../notify/notifier.js';
import { CopyModes } from './copy-mode/copy-modes.js';
import { openReview, type ReviewHost } from './review.js';
import { TerminalPaste } from './terminal-paste.js';
import { mebibytes } from '../pty/pane-input.js';

/** Draws the chrome offscreen (the Ink views, loaded by the client hub in the server). */
export interface ChromeRenderer {
  renderChrome(model: ChromeModel): string;
  renderOverlay(model: ChromeModel): { text: string; rect: Rect; cursor?: { x: number; y: number } } | null;
  /** The chrome entry drawn at a cell, for mouse clicks. */
  hitTest(model: ChromeModel, x: number, y: number): ChromeHit | null;
}

export type ChromeHit = { kind: 'tab'; id: string } | { kind: 'workspace'; id: string } | { kind: 'agent'; key: string };

export interface ControllerOptions {
  core: ClientCore;
  compositor: Compositor;
  renderer: ChromeRenderer;
  cols: number;
  rows: number;
  /** The session has nothing left to show (its last workspace closed). */
  onQuit: () => void;
  /** `prefix d`: this client leaves, the panes keep running (SPEC §1). */
  onDetach: () => void;
  /** Shown in the status line at start (e.g. an invalid config file). */
  startupMessage?: { text: string; error: boolean } | null;
  /** The server's notifier; the TUI attaches to it for its terminal and sidebar marks. */
  notifier?: Notifier;
  /** Writes bytes straight to the outer terminal between frames (notifications, the bell). */
  writeTerminal?: (bytes: string) => void;
  /** Whether the outer terminal takes OSC 52 clipboard writes (default true). */
  clipboard?: boolean;
  /** What this TUI shows or its terminal's focus changed (after the core has been told). */
  onViewReported?: () => void;
  /** Input held back by the escape timeout is about to act (a client becomes the active one first). */
  onDeferredInput?: () => void;
  /**
   * Whether this controller's size decides how tabs are laid out (default: always). With
   * several clients only the most recently active one does; the others show that layout.
   */
  ownsLayout?: () => boolean;
  /**
   * Why this client's input does not reach panes now (SPEC §8: a view-only client while the
   * gate is closed), or null; shown on the status line. The client's core view enforces it.
   */
  inputRefusal?: () => string | null;
  /**
   * A paste fills the pane's input queue (its program is not reading): stop reading this
   * client's terminal until `resumeInput` (the terminal holds the rest, and the keys after it).
   */
  holdInput?: () => void;
  resumeInput?: () => void;
}

const TUNING = {
  /** A lone ESC is the Escape key if nothing follows within this time (as in tmux's escape-time). */
  escapeTimeMs: 15,
  /** Lines one wheel notch scrolls an alternate-screen app (as arrow keys). */
  wheelLines: 3,
  /** Status line messages fade after this long. */
  messageMs: 5000,
  /** A config error at start-up is worth reading: it stays longer. */
  startupMessageMs: 15_000,
  /** Cells one resize key moves a border: columns are narrower than rows are tall. */
  resizeCols: 2,
  resizeRows: 1,
} as const;


export class TuiController {
  private readonly core: ClientCore;
  private readonly compositor: Compositor;
  private readonly parser = new InputParser();
  /** The prefix's bytes and the bindings in force. */
  private readonly keyMap: KeyMap;
  private geometry: ScreenGeometry;
  private cols: number;
  private rows: number;
  private escapeTimer: NodeJS.Timeout | null = null;
  private chromeScheduled = false;
  private layersScheduled = false;
  /** The pane a keystroke was just sent to, until its next output (the echo) is drawn. */
  private echoPending: string | null = null;
  private readonly outputSubscriptions = new Map<string, Disposable>();
  private readonly disposers: Disposable[] = [];
  private disposed = false;
  /** The chrome last drawn, for hit-testing clicks against what is on screen. */
  private lastChrome: ChromeModel | null = null;
  /** Until when a repeatable command's keys work without the prefix (0: not repeating). */
  private repeatUntil = 0;
  /** The border being dragged with the mouse, in its tab. */
  private drag: { tabId: string; grab: BorderGrab } | null = null;
  private messageTimer: NodeJS.Timeout | null = null;
  private readonly focusHistory = new FocusHistory();
  readonly notifier: Notifier;
  private readonly ownNotifier: boolean;
  /** Whether the outer terminal has focus (focus reporting); feeds the seen/done rule. */
  terminalFocused = true;
  readonly ui: UiState;
  /** Copy mode per pane, and the paste buffer. */
  readonly copy: CopyModes;
  /** The paste the terminal is sending now, from its start marker to its end. */
  private readonly paste: TerminalPaste;

  constructor(private readonly options: ControllerOptions) {
    this.core = options.core;
    this.compositor = options.compositor;
    this.cols = options.cols;
    this.rows = options.rows;
    const keys = this.core.config.keys;
    this.keyMap = { prefixBytes: encodeKey(keys.prefix), bindings: resolveBindings(keys.overrides, keys.prefix) };
    this.ui = {
      prefixActive: false,
      prefixLabel: keys.prefix,
      overlay: null,
      message: options.startupMessage ?? null,
      frameLabels: new Map(),
      keyOverrides: keys.overrides,
      notify: null,
      inputRefusal: options.inputRefusal ?? (() => null),
    };
    this.copy = new CopyModes({
      core: this.core,
      compositor: this.compositor,
      flash: (text, error) => this.flash(text, error),
      onChange: () => this.onCopyModeChange(),
      clipboard: options.clipboard,
    });
    this.paste = new TerminalPaste({
      core: this.core,
      copy: this.copy,
      ui: this.ui,
      renderChrome: () => this.renderChrome(),
      flash: (text, error, sticky) => this.flash(text, error, sticky),
      holdInput: () => options.holdInput?.(),
      resumeInput: () => options.resumeInput?.(),
    });
    this.ownNotifier = !options.notifier;
    this.notifier = options.notifier ?? new Notifier({ core: this.core, config: this.core.config.notify });
    this.disposers.push(
      this.notifier.attach({
        writeTerminal: options.writeTerminal ?? (() => {}),
        onChange: () => this.scheduleChrome(),
        onError: (message) => this.flash(message, true),
      }),
    );
    this.ui.notify = this.notifier;
    if (this.ui.message) this.fadeMessage(TUNING.startupMessageMs);
    this.focusHistory.observe(this.core.model.focusedPane()?.id ?? null);
    this.geometry = screenGeometry(this.cols, this.rows, this.core.config.ui.sidebar_width);
    this.applyViewport();
    this.disposers.push(this.core.listen((event) => this.onCoreEvent(event.type)));
    this.refreshLayers();
    this.renderChrome();
  }

  // -- input ----------------------------------------------------------------

  /**
   * The typing express: printable ASCII typed in no mode (what `typingToPane` would pass to
   * the focused pane unchanged) is written to the pane's pty first, before any other work of
   * the keystroke, as raw bytes; then the echo is armed in the compositor while the shell is
   * still echoing, so it leaves the moment it comes off the pty (docs/bench.md, "Typing
   * express"). Every step skipped here (parser, router, UTF-8 decode and re-encode, the
   * promise of `write`) is work cold code paid on every key between the key and its echo.
   * Returns false, having done nothing, for anything else: `handleInput` then.
   */
  typeExpress(bytes: Uint8Array): boolean {
    ECHO_TRACE?.mark(HOP.input);
    // Nothing may overtake input held back: a sequence cut by a read, or a paste still coming
    // (issue 27: a piece of a paste's line that read like typing went straight to the pty,
    // ahead of the paste still gathered in the parser).
    if (this.disposed || this.escapeTimer !== null || !this.parser.idle) return false;
    if (this.ui.overlay !== null || this.ui.prefixActive || this.repeatUntil !== 0) return false;
    const text = printableAscii(bytes);
    // A prefix may be a printable key (tmux users bind a backtick): it is never typing.
    if (text === null || text.includes(this.keyMap.prefixBytes)) return false;
    const pane = this.core.model.focusedPane();
    if (pane === null || this.copy.isActive(pane.id)) return false;
    ECHO_TRACE?.mark(HOP.routed);
    const compositor = this.compositor;
    const id = pane.id;
    if (!this.core.typeToPane(pane, bytes, (data) => compositor.expressEcho(id, data))) return false;
    this.echoPending = id;
    compositor.armEcho(id, text);
    // Drops a keyboard request its app left behind when it died (see CorralCore.paneKeyboard).
    this.core.paneKeyboard(pane);
    return true;
  }

  /** Handles a chunk of the outer terminal's input. */
  handleInput(chunk: string): void {
    ECHO_TRACE?.mark(HOP.input);
    if (this.escapeTimer) {
      clearTimeout(this.escapeTimer);
      this.escapeTimer = null;
    }
    if (this.typingToPane(chunk)) return;
    for (const event of this.parser.feed(chunk)) this.handleEvent(event);
    if (this.parser.awaitsEscapeTimeout) {
      this.escapeTimer = setTimeout(() => {
        this.escapeTimer = null;
        // Input held back (a lone ESC) acts now: for this TUI, whichever client typed meanwhile.
        this.options.onDeferredInput?.();
        for (const event of this.parser.flush()) this.handleEvent(event);
      }, TUNING.escapeTimeMs);
    }
  }

  /**
   * Typing: input with no escape sequence, in no mode (no overlay, prefix, repeat window or copy
   * mode) and without the prefix key goes to the focused pane as it came — what the parser and
   * `routeInput` would decide, without their steps and allocations on every keystroke's way to
   * the pty (docs/bench.md, "Echo: where the time goes"). Returns false to take the full path.
   */
  private typingToPane(chunk: string): boolean {
    if (this.ui.overlay !== null || this.ui.prefixActive || this.repeatUntil !== 0) return false;
    if (!this.parser.passesWhole(chunk) || chunk.includes(this.keyMap.prefixBytes)) return false;
    const focused = this.core.model.focusedPane();
    if (focused === null || this.copy.isActive(focused.id)) return false;
    try {
      this.sendToFocused(chunk, focused);
    } catch (error) {
      this.flash((error as Error).message, true);
    }
    return true;
  }

  /** One input event; a failing action (a pane that just closed, a bad name) is shown, never fatal. */
  private handleEvent(event: InputEvent): void {
    try {
      this.dispatchEvent(event);
    } catch (error) {
      this.flash((error as Error).message, true);
    }
  }

  private dispatchEvent(event: InputEvent): void {
    switch (event.kind) {
      case 'data':
        this.handleData(event.data);
        return;
      case 'key':
        this.handleKey(event.key);
        return;
      case 'paste-start':
        this.paste.start();
        return;
      case 'paste-text':
        this.paste.text(event.text);
        return;
      case 'paste-end':
        this.paste.end();
        return;
      case 'focus':
        this.terminalFocused = event.focused;
        this.reportView();
        return;
      case 'mouse':
        this.handleMouse(event.mouse);
        return;
    }
  }

  /** `forPane`: how the whole of `data` is encoded when it goes to the focused pane untouched (a key report). */
  private handleData(data: string, forPane?: (pane: PaneRecord) => string): void {
    let rest = data;
    while (rest.length > 0) {
      const focused = this.core.model.focusedPane();
      const mode = {
        overlay: this.ui.overlay !== null,
        prefixActive: this.ui.prefixActive,
        repeatUntil: this.repeatUntil,
        copyMode: focused !== null && this.copy.isActive(focused.id),
      };
      const step = routeInput(mode, rest, Date.now(), this.keyMap);
      rest = step.rest;
      const route = step.route;
      switch (route.kind) {
        case 'overlay':
          this.answerOverlay(route.key);
          break;
        case 'command':
          this.setPrefix(false);
          this.runCommand(route);
          break;
        case 'end-repeat':
          this.repeatUntil = 0;
          break;
        case 'copy':
          rest = this.copy.keys(focused!.id, route.keys) + rest;
          break;
        case 'prefix':
          this.setPrefix(true);
          break;
        case 'pane':
          // Input that goes to the pane whole, as it came, is encoded the way the pane asked for.
          this.sendToFocused(forPane && focused && route.data === data ? forPane(focused) : route.data, focused);
          break;
      }
    }
  }

  /**
   * A key reported with its modifiers. Everything the TUI does itself (prefix, commands,
   * overlays, the resize repeat, any mode) sees its legacy bytes, through the same path as
   * plain input; only when it would go to the focused pane as it is does the pane get it
   * encoded the way its application asked for (kitty, modifyOtherKeys, legacy).
   */
  private handleKey(key: KeyPress): void {
    this.handleData(legacyBytes(key), (pane) =>
      // Agents read kitty's form of Shift+Enter & co. without asking for it (SPEC §12: new lines).
      encodeKeyForPane(key, this.core.paneKeyboard(pane), { extendedByDefault: this.core.agents.agentIn(pane) !== null }),
    );
  }

  /** Plain input goes to the focused pane unchanged (`pane`: the focused pane, when the caller has it). */
  private sendToFocused(data: string, pane = this.core.model.focusedPane()): void {
    if (!pane || data === '') return;
    // Drops a keyboard request its app left behind when it died (see CorralCore.paneKeyboard).
    this.core.paneKeyboard(pane);
    this.echoPending = pane.id;
    ECHO_TRACE?.mark(HOP.routed);
    try {
      this.core.writeToPane(pane, data);
    } catch (error) {
      // A view-only client (SPEC §8) is told why, and so is a person whose pane is not reading
      // its input (their keys did not go); a pane that exited between the key and the write
      // says nothing here, its close event follows.
      if (error instanceof CorralError && (error.code === 'scripting_disabled' || error.code === 'machine_unreachable')) {
        this.echoPending = null;
        this.flash(error.message, true);
      } else if (error instanceof CorralError && error.code === 'pane_input_full') {
        this.echoPending = null;
        this.flash(`pane ${pane.id} is not reading its input (${mebibytes(Number(error.data.queued_bytes))} wait for it): keys not sent`, true);
      }
    }
  }

  private setPrefix(active: boolean): void {
    if (this.ui.prefixActive === active) return;
    this.ui.prefixActive = active;
    this.renderChrome();
  }

  // -- commands -------------------------------------------------------------

  /** Runs the command bound to a key pressed after the prefix (or within the repeat window). */
  private runCommand(route: { key: string; command: CommandId | null; repeatUntil: number }): void {
    this.repeatUntil = route.repeatUntil;
    if (!route.command) {
      this.flash(`no command on ${JSON.stringify(route.key)} — ${this.ui.prefixLabel} ? lists them`, true);
      return;
    }
    try {
      this.execute(route.command, route.key);
    } catch (error) {
      this.flash((error as Error).message, true);
    }
  }

  private execute(command: CommandId, key: string): void {
    const core = this.core;
    const pane = core.model.focusedPane();
    switch (command) {
      case 'send_prefix':
        this.sendToFocused(this.keyMap.prefixBytes);
        return;
      case 'help':
        this.openOverlay({ kind: 'help' });
        return;
      case 'detach':
        // Ends nothing, so asks nothing: the panes keep running in the server.
        return this.options.onDetach();
      case 'toggle_scripting':
        core.setScripting(!core.scripting);
        this.flash(`scripting gate ${core.scripting ? 'open: scripts may submit input' : 'closed'}`, false);
        return;
      case 'new_workspace':
        core.createWorkspace({ cwd: pane ? core.paneCwd(pane) : process.cwd() });
        return;
      case 'workspace_switcher': {
        const ids = [...core.model.workspaces.keys()];
        this.openOverlay({ kind: 'workspace-switcher', selected: Math.max(0, ids.indexOf(core.model.focusedWorkspace ?? '')) });
        return;
      }
      case 'next_workspace':
      case 'prev_workspace': {
        const ids = [...core.model.workspaces.keys()];
        if (ids.length === 0) return;
        const at = ids.indexOf(core.model.focusedWorkspace ?? '');
        const step = command === 'next_workspace' ? 1 : -1;
        core.focusWorkspace(ids[(at + step + ids.length) % ids.length]!);
        return;
      }
      case 'next_attention': {
        const target = nextAttention(core, pane?.id ?? null);
        if (target) core.focusPane(target);
        else this.flash('no agent needs attention', false);
        return;
      }
    }
    if (!pane) return;
    const tab = core.model.tab(pane.tabId);
    const workspace = core.model.workspace(pane.workspaceId);
    switch (command) {
      case 'new_tab':
        core.createTab({ workspaceId: workspace.id, cwd: core.paneCwd(pane) });
        return;
      case 'split_right':
      case 'split_down':
        core.splitPane(pane.id, command === 'split_right' ? 'right' : 'down');
        return;
      case 'focus_left':
      case 'focus_right':
      case 'focus_up':
      case 'focus_down': {
        const direction = command.slice('focus_'.length) as 'left' | 'right' | 'up' | 'down';
        const target = neighbor(core.tabRects(tab), pane.id, direction);
        if (target) core.focusPane(target);
        return;
      }
      case 'close_pane': {
        const busy = busyProgram(core, pane);
        if (busy === null) core.closePane(pane.id);
        else this.openOverlay({ kind: 'confirm', question: `Close pane ${pane.id}? ${busy} is running in it`, onYes: () => core.closePane(pane.id) });
        return;
      }
      case 'last_pane': {
        const last = this.focusHistory.last(core);
        if (last) core.focusPane(last);
        else this.flash('no last pane', false);
        return;
      }
      case 'next_pane': {
        const next = nextPaneInTab(core, pane);
        if (next) core.focusPane(next);
        return;
      }
      case 'resize_left':
      case 'resize_right':
      case 'resize_up':
      case 'resize_down': {
        const direction = command.slice('resize_'.length) as 'left' | 'right' | 'up' | 'down';
        const cells = direction === 'left' || direction === 'right' ? TUNING.resizeCols : TUNING.resizeRows;
        if (tab.zoomedPane) core.zoomPane(pane.id, false);
        core.resizePane(pane.id, direction, cells);
        return;
      }
      case 'rename_tab':
        this.openRename({ kind: 'tab', id: tab.id });
        return;
      case 'rename_workspace':
        this.openRename({ kind: 'workspace', id: workspace.id });
        return;
      case 'mute_pane': {
        const muted = this.notifier.toggleMute(pane.surfaceId);
        this.flash(`notifications from ${pane.id} ${muted ? 'muted' : 'on'}`, false);
        return;
      }
      case 'zoom':
        core.zoomPane(pane.id);
        return;
      case 'next_tab':
      case 'prev_tab': {
        const tabs = workspace.tabs;
        const at = tabs.indexOf(tab.id);
        const step = command === 'next_tab' ? 1 : -1;
        core.focusTab(tabs[(at + step + tabs.length) % tabs.length]!);
        return;
      }
      case 'select_tab': {
        const target = workspace.tabs[Number(key) - 1];
        if (target) core.focusTab(target);
        else this.flash(`no tab ${key}`, true);
        return;
      }
      case 'rename':
        this.openRename({ kind: 'pane', id: pane.id });
        return;
      case 'copy_mode':
        this.copy.enter(pane);
        return;
      case 'review':
        void openReview(this.review, pane);
        return;
      case 'paste_buffer':
        if (this.copy.buffer === '') return this.flash('the paste buffer is empty: copy something in copy mode first', false);
        this.copy.exit(pane.id);
        // As a paste from the outer terminal: bracketed when the app asked for it.
        this.sendToFocused(encodePaste(this.copy.buffer, this.core.view(pane).bracketedPasteMode), pane);
        return;
    }
  }

  // -- overlays -------------------------------------------------------------

  private openOverlay(overlay: OverlayState): void {
    this.ui.overlay = overlay;
    this.renderChrome();
  }

  private openRename(target: RenameTarget): void {
    this.openOverlay({ kind: 'rename', target, value: currentName(this.core, target) });
  }

  private closeOverlay(): void {
    this.ui.overlay = null;
    this.renderChrome();
  }

  private answerOverlay(key: string): void {
    const ids = [...this.core.model.workspaces.keys()];
    const outcome = overlayKey(this.ui.overlay!, key, { prefixBytes: this.keyMap.prefixBytes, workspaces: ids.length });
    if (outcome.kind === 'ignore') return;
    if (outcome.kind === 'update') {
      this.ui.overlay = outcome.overlay;
      this.renderChrome();
      return;
    }
    const closing = this.ui.overlay!;
    this.closeOverlay();
    const effect = outcome.then;
    if (effect?.kind === 'focus-workspace') this.core.focusWorkspace(ids[effect.index]!);
    else if (effect?.kind === 'confirmed' && closing.kind === 'confirm') closing.onYes();
    else if (effect?.kind === 'rename') applyRename(this.core, effect.target, effect.value);
  }

  // -- mouse ----------------------------------------------------------------

  private handleMouse(mouse: MouseEvent): void {
    if (this.ui.overlay) {
      if (mouse.action === 'press') this.closeOverlay();
      return;
    }
    if (this.dragBorderMouse(mouse)) return;
    const frame = visibleFrames(this.core, this.geometry).find((f) => contains(f.rect, mouse.x, mouse.y));
    if (frame) {
      const pane = this.core.model.pane(frame.paneId);
      if (mouse.action === 'press' && !this.core.model.isPaneFocused(pane)) this.core.focusPane(pane.id);
      const inner = frameInterior(frame.rect);
      if (this.copy.mouse(pane, mouse, inner)) return;
      const view = this.core.view(pane);
      if (view.mouseTrackingMode !== 'none' && contains(inner, mouse.x, mouse.y)) {
        // The app asked for the mouse: pass the report on in pane coordinates (SGR encoding).
        const x = mouse.x - inner.x + 1;
        const y = mouse.y - inner.y + 1;
        this.core.writeToPane(pane, `\x1b[<${mouse.raw.code};${x};${y}${mouse.raw.final}`);
        return;
      }
      if ((mouse.action === 'wheel-up' || mouse.action === 'wheel-down') && view.isAlternateScreen) {
        // Full-screen apps without mouse support scroll with arrow keys, as in tmux.
        const arrow = encodeKey(mouse.action === 'wheel-up' ? 'up' : 'down', { applicationCursor: view.applicationCursorKeys });
        this.core.writeToPane(pane, arrow.repeat(TUNING.wheelLines));
      }
      return;
    }
    if (mouse.action !== 'press' || !this.lastChrome) return;
    const hit = this.options.renderer.hitTest(this.lastChrome, mouse.x, mouse.y);
    if (hit?.kind === 'tab') this.core.focusTab(hit.id);
    else if (hit?.kind === 'workspace') this.core.focusWorkspace(hit.id);
    else if (hit?.kind === 'agent' && this.core.model.findPane(hit.key)) this.core.focusPane(hit.key);
  }

  /** Pressing on a border between panes grabs it; dragging moves it; releasing lets go. */
  private dragBorderMouse(mouse: MouseEvent): boolean {
    const x = mouse.x - this.geometry.main.x;
    const y = mouse.y - this.geometry.main.y;
    if (this.drag) {
      if (mouse.action === 'release') this.drag = null;
      else if (mouse.action === 'drag' && this.core.model.tabs.has(this.drag.tabId)) {
        const tab = this.core.model.tab(this.drag.tabId);
        const next = dragBorder(tab.layout, this.drag.grab, x, y);
        if (next !== tab.layout) this.core.setTabLayout(tab.id, next);
      }
      return true;
    }
    if (mouse.action !== 'press' || mouse.button !== 0) return false;
    const pane = this.core.model.focusedPane();
    if (!pane) return false;
    const tab = this.core.model.tab(pane.tabId);
    if (tab.zoomedPane) return false;
    const area = { x: 0, y: 0, cols: this.geometry.main.cols, rows: this.geometry.main.rows };
    const grab = borderAt(tab.layout, area, x, y);
    if (!grab) return false;
    this.drag = { tabId: tab.id, grab };
    return true;
  }

  // -- copy mode ------------------------------------------------------------

  /** What the review view (prefix D, src/tui/review.ts) needs of this controller. */
  private get review(): ReviewHost {
    return {
      core: this.core,
      copy: this.copy,
      flash: (text, error) => this.flash(text, error),
      confirm: (question, onYes) => this.openOverlay({ kind: 'confirm', question, onYes }),
      alive: () => !this.disposed,
    };
  }

  /** A pane entered or left copy mode: its frame says so. */
  private onCopyModeChange(): void {
    const labels = this.ui.frameLabels as Map<string, string>;
    labels.clear();
    for (const id of this.copy.activePanes()) labels.set(id, this.copy.labelOf(id)!);
    this.scheduleLayers();
    this.scheduleChrome();
  }

  // -- drawing --------------------------------------------------------------

  /** Reacts to the core: structure and focus changes move layers and redraw the chrome. */
  private onCoreEvent(type: string): void {
    if (type === 'surface_changed') return;
    this.focusHistory.observe(this.core.model.focusedPane()?.id ?? null);
    if (type === 'workspace.closed' && this.core.model.workspaces.size === 0) {
      this.options.onQuit();
      return;
    }
    this.scheduleLayers();
    this.scheduleChrome();
  }

  /**
   * Something this client shows changed outside the core's events (another machine's
   * structure or state, SPEC §14, or this client's own move onto it): draw layers and chrome again.
   */
  refreshView(): void {
    this.onCoreEvent('view');
  }

  /** Shows a message on the status line (an action forwarded to another machine failed). */
  showMessage(text: string, error: boolean): void {
    this.flash(text, error);
  }

  /** Terminal resized: lay everything out again and resize every pty. */
  resize(cols: number, rows: number): void {
    this.cols = cols;
    this.rows = rows;
    this.geometry = screenGeometry(cols, rows, this.core.config.ui.sidebar_width);
    this.compositor.resize(cols, rows);
    this.applyViewport();
    this.refreshLayers();
    this.renderChrome();
  }

  private applyViewport(): void {
    if (this.options.ownsLayout && !this.options.ownsLayout()) return;
    this.core.setViewport(this.geometry.main.cols, this.geometry.main.rows, frameInterior);
  }

  private scheduleLayers(): void {
    if (this.layersScheduled) return;
    this.layersScheduled = true;
    queueMicrotask(() => {
      this.layersScheduled = false;
      if (!this.disposed) this.refreshLayers();
    });
  }

  private scheduleChrome(): void {
    if (this.chromeScheduled) return;
    this.chromeScheduled = true;
    setImmediate(() => {
      this.chromeScheduled = false;
      if (!this.disposed) this.renderChrome();
    });
  }

  /** Points the compositor at the visible panes and listens to their output. */
  private refreshLayers(): void {
    const frames = visibleFrames(this.core, this.geometry);
    const focused = this.core.model.focusedPane();
    const layers = [];
    const visible = new Set<string>();
    const rects = new Map<string, ReturnType<typeof frameInterior>>();
    for (const frame of frames) {
      const pane = this.core.model.pane(frame.paneId);
      let view;
      try {
        view = this.core.view(pane);
      } catch {
        continue;
      }
      visible.add(pane.id);
      const rect = frameInterior(frame.rect);
      rects.set(pane.id, rect);
      layers.push({ id: pane.id, screen: view, rect, focused: focused?.id === pane.id });
      if (!this.outputSubscriptions.has(pane.id)) {
        const id = pane.id;
        const paneView = view;
        const parsed = paneView.onRevision(() => {
          // The first output after a keystroke is its echo: it is drawn at once, never paced.
          const urgent = this.echoPending === id;
          if (urgent) this.echoPending = null;
          this.compositor.markPaneDirty(id, damagedRows(paneView.lastDamage), { urgent });
        });
        const arriving = paneView.onBeforeParse((data) => this.compositor.beforePaneParse(id, data));
        this.outputSubscriptions.set(id, { dispose: () => (parsed.dispose(), arriving.dispose()) });
      }
    }
    for (const [id, subscription] of this.outputSubscriptions) {
      if (!visible.has(id)) {
        subscription.dispose();
        this.outputSubscriptions.delete(id);
      }
    }
    this.compositor.setPaneLayers(layers);
    this.copy.layout(rects);
    this.compositor.requestFrame();
    this.reportView();
  }

  /** Tells the core what this TUI shows, for the seen/done rule. */
  private reportView(): void {
    const visible = new Set<number>();
    for (const frame of visibleFrames(this.core, this.geometry)) visible.add(frame.surfaceId);
    this.core.setClientView({ focused: this.terminalFocused, visibleSurfaces: visible }, this);
    this.notifier.viewChanged();
    this.options.onViewReported?.();
  }

  /** Renders the chrome offscreen and hands it to the compositor. */
  renderChrome(): void {
    if (this.disposed) return;
    const model = buildChrome(this.core, this.geometry, this.ui, { cols: this.cols, rows: this.rows });
    this.lastChrome = model;
    this.compositor.setUiLayer(this.options.renderer.renderChrome(model));
    const overlay = this.options.renderer.renderOverlay(model);
    this.compositor.setOverlay('overlay', overlay?.text ?? null, overlay ? { x: overlay.rect.x, y: overlay.rect.y } : undefined);
    // The rename prompt takes the hardware cursor; otherwise it stays in the focused pane.
    this.compositor.setCursorOverride(overlay?.cursor ? { ...overlay.cursor, visible: true, shape: 'bar', blink: true } : null);
    this.compositor.requestFrame();
  }

  /** A status-line message; a `sticky` one stays until the next message replaces it. */
  private flash(text: string, error: boolean, sticky = false): void {
    this.ui.message = { text, error };
    if (sticky) {
      if (this.messageTimer) clearTimeout(this.messageTimer);
      this.messageTimer = null;
    } else {
      this.fadeMessage(TUNING.messageMs);
    }
    this.renderChrome();
  }

  /** Clears the status line message after `ms`, unless a newer message replaced it. */
  private fadeMessage(ms: number): void {
    if (this.messageTimer) clearTimeout(this.messageTimer);
    const message = this.ui.message;
    this.messageTimer = setTimeout(() => {
      this.messageTimer = null;
      if (this.ui.message !== message || this.disposed) return;
      this.ui.message = null;
      this.renderChrome();
    }, ms);
    this.messageTimer.unref();
  }

  dispose(): void {
    this.disposed = true;
    // A paste cut short by its client leaving is ended: the pane's other writers go on.
    this.paste.dispose();
    this.core.setClientView(null, this);
    this.copy.dispose();
    if (this.ownNotifier) this.notifier.dispose();
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    if (this.messageTimer) clearTimeout(this.messageTimer);
    for (const subscription of this.outputSubscriptions.values()) subscription.dispose();
    this.outputSubscriptions.clear();
    for (const disposer of this.disposers) disposer.dispose();
  }
}
