/**
 * The TUI's controller: routes input (prefix commands, overlays, mouse, paste, plain keys to
 * the focused pane), keeps the compositor's pane layers in step with the core, and redraws
 * the chrome when what it shows changes. It is just another client of the core: every
 * action goes through the same core methods the socket uses. What each prefix command does is
 * prefix-commands.ts, the mouse pane-mouse.ts, the panes' output pane-output.ts, the status
 * line's message status-message.ts.
 */
import type { ClientCore, PaneOverlay } from './client-view.js';
import type { Disposable } from '../contract/disposable.js';
import { CorralError } from '../contract/errors.js';
import type { PaneRecord } from '../session/model.js';
import { encodeKey } from '../terminal/keys.js';
import { encodeKeyForPane, legacyBytes, type KeyPress } from '../terminal/key-protocol.js';
import type { Compositor } from '../screen/compositor.js';
import { printableAscii } from '../screen/echo-prediction.js';
import { ECHO_TRACE, HOP } from '../screen/echo-trace.js';
import type { ChromeModel } from '../../components/chrome-model.js';
import type { Rect } from '../contract/rect.js';
import { buildChrome, visibleFrames, type OverlayState, type UiState } from './chrome-builder.js';
import { frameInterior, screenGeometry, type ScreenGeometry } from '../../components/geometry.js';
import { InputParser, type InputEvent } from './input-parser.js';
import { resolveBindings, type CommandId } from '../config/keybindings.js';
import { overlayKey, routeInput, type KeyMap } from './key-routes.js';
import { applyRename, FocusHistory } from './tui-actions.js';
import { Notifier } from '../notify/notifier.js';
import { CopyModes } from './copy-mode/copy-modes.js';
import type { ReviewHost } from './review.js';
import { runPrefixCommand, type CommandHost } from './prefix-commands.js';
import { PaneMouse } from './pane-mouse.js';
import type { ChromeHit } from '../../components/hit-test.js';
import { TerminalPaste } from './terminal-paste.js';
import { PaneOutput } from './pane-output.js';
import { MESSAGE_TIMING, StatusMessage } from './status-message.js';
import type { PaneView } from '../terminal/pane-view.js';
import { mebibytes } from '../pty/pane-input.js';

/** Draws the chrome offscreen (the Ink views, loaded by the client hub in the server). */
export interface ChromeRenderer {
  renderChrome(model: ChromeModel): string;
  renderOverlay(model: ChromeModel): { text: string; rect: Rect; cursor?: { x: number; y: number } } | null;
  /** The chrome entry drawn at a cell, for mouse clicks. */
  hitTest(model: ChromeModel, x: number, y: number): ChromeHit | null;
}


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
  /** The visible panes' output, and which one a keystroke was just sent to (its echo is urgent). */
  private readonly output: PaneOutput;
  private readonly disposers: Disposable[] = [];
  private disposed = false;
  /** The chrome last drawn, for hit-testing clicks against what is on screen. */
  private lastChrome: ChromeModel | null = null;
  /** Until when a repeatable command's keys work without the prefix (0: not repeating). */
  private repeatUntil = 0;
  private readonly mouse: PaneMouse;
  private readonly status: StatusMessage;
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
    this.output = new PaneOutput(this.compositor);
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
    this.status = new StatusMessage(this.ui, () => this.renderChrome());
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
    this.mouse = new PaneMouse({
      core: this.core,
      copy: this.copy,
      geometry: () => this.geometry,
      overlayOpen: () => this.ui.overlay !== null,
      closeOverlay: () => this.closeOverlay(),
      chromeHit: (x, y) => (this.lastChrome ? options.renderer.hitTest(this.lastChrome, x, y) : null),
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
    if (this.ui.message) this.status.fadeAfter(MESSAGE_TIMING.startupMessageMs);
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
    this.output.echoPending = id;
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
        this.mouse.handle(event.mouse);
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
    this.output.echoPending = pane.id;
    ECHO_TRACE?.mark(HOP.routed);
    try {
      this.core.writeToPane(pane, data);
    } catch (error) {
      // A view-only client (SPEC §8) is told why, and so is a person whose pane is not reading
      // its input (their keys did not go); a pane that exited between the key and the write
      // says nothing here, its close event follows.
      if (error instanceof CorralError && (error.code === 'scripting_disabled' || error.code === 'machine_unreachable')) {
        this.output.echoPending = null;
        this.flash(error.message, true);
      } else if (error instanceof CorralError && error.code === 'pane_input_full') {
        this.output.echoPending = null;
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
      runPrefixCommand(this.commandHost, route.command, route.key);
    } catch (error) {
      this.flash((error as Error).message, true);
    }
  }

  // -- overlays -------------------------------------------------------------

  private openOverlay(overlay: OverlayState): void {
    this.ui.overlay = overlay;
    this.renderChrome();
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

  // -- copy mode ------------------------------------------------------------

  /** What a prefix command (src/tui/prefix-commands.ts) needs of this controller. */
  private get commandHost(): CommandHost {
    return {
      core: this.core,
      copy: this.copy,
      notifier: this.notifier,
      focusHistory: this.focusHistory,
      review: this.review,
      prefixBytes: this.keyMap.prefixBytes,
      sendToFocused: (data, pane) => this.sendToFocused(data, pane),
      openOverlay: (overlay) => this.openOverlay(overlay),
      flash: (text, error) => this.flash(text, error),
      detach: () => this.options.onDetach(),
    };
  }

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
    const visible = new Map<string, PaneView>();
    const overlays = new Map<string, PaneOverlay>();
    const rects = new Map<string, ReturnType<typeof frameInterior>>();
    for (const frame of frames) {
      const pane = this.core.model.pane(frame.paneId);
      let view;
      try {
        view = this.core.view(pane);
      } catch {
        continue;
      }
      visible.set(pane.id, view);
      const overlay = this.core.paneOverlay?.(pane) ?? null;
      if (overlay) overlays.set(pane.id, overlay);
      const rect = frameInterior(frame.rect);
      rects.set(pane.id, rect);
      layers.push({ id: pane.id, screen: overlay?.screen ?? view, rect, focused: focused?.id === pane.id });
    }
    this.output.follow(visible, overlays);
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
    this.status.show(text, error, sticky);
  }

  dispose(): void {
    this.disposed = true;
    // A paste cut short by its client leaving is ended: the pane's other writers go on.
    this.paste.dispose();
    this.core.setClientView(null, this);
    this.copy.dispose();
    if (this.ownNotifier) this.notifier.dispose();
    if (this.escapeTimer) clearTimeout(this.escapeTimer);
    this.status.dispose();
    this.output.dispose();
    for (const disposer of this.disposers) disposer.dispose();
  }
}
