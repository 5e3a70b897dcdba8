/**
 * The TUI's mouse (SPEC §12): a click focuses a pane, tab or sidebar entry; the wheel scrolls
 * a pane (copy mode over its scrollback, or arrow keys to a full-screen app that did not ask
 * for the mouse); an app that asked gets the report in its own coordinates; a border between
 * panes is dragged to resize; any click closes an open overlay.
 */
import type { ChromeHit } from '../../components/hit-test.js';
import { frameInterior, type ScreenGeometry } from '../../components/geometry.js';
import { contains } from '../contract/rect.js';
import { encodeKey } from '../terminal/keys.js';
import { visibleFrames } from './chrome-builder.js';
import type { ClientCore } from './client-view.js';
import type { CopyModes } from './copy-mode/copy-modes.js';
import { borderAt, dragBorder, type BorderGrab } from './border-drag.js';
import type { MouseEvent } from './input-parser.js';

/** Lines one wheel notch scrolls an alternate-screen app (as arrow keys). */
const WHEEL_LINES = 3;

/** What the mouse needs of the controller. */
export interface MouseHost {
  core: ClientCore;
  copy: CopyModes;
  geometry(): ScreenGeometry;
  overlayOpen(): boolean;
  closeOverlay(): void;
  /** The chrome entry drawn at a cell, as last drawn. */
  chromeHit(x: number, y: number): ChromeHit | null;
}

export class PaneMouse {
  /** The border being dragged, in its tab. */
  private drag: { tabId: string; grab: BorderGrab } | null = null;

  constructor(private readonly host: MouseHost) {}

  /** Routes one mouse report: an overlay, a border drag, a pane (its app, copy mode, scrolling), the chrome. */
  handle(mouse: MouseEvent): void {
    if (this.host.overlayOpen()) {
      if (mouse.action === 'press') this.host.closeOverlay();
      return;
    }
    if (this.dragBorderMouse(mouse)) return;
    const core = this.host.core;
    const frame = visibleFrames(core, this.host.geometry()).find((f) => contains(f.rect, mouse.x, mouse.y));
    if (frame) {
      const pane = core.model.pane(frame.paneId);
      if (mouse.action === 'press' && !core.model.isPaneFocused(pane)) core.focusPane(pane.id);
      const inner = frameInterior(frame.rect);
      if (this.host.copy.mouse(pane, mouse, inner)) return;
      const view = core.view(pane);
      if (view.mouseTrackingMode !== 'none' && contains(inner, mouse.x, mouse.y)) {
        // The app asked for the mouse: pass the report on in pane coordinates (SGR encoding).
        const x = mouse.x - inner.x + 1;
        const y = mouse.y - inner.y + 1;
        core.writeToPane(pane, `\x1b[<${mouse.raw.code};${x};${y}${mouse.raw.final}`);
        return;
      }
      if ((mouse.action === 'wheel-up' || mouse.action === 'wheel-down') && view.isAlternateScreen) {
        // Full-screen apps without mouse support scroll with arrow keys, as in tmux.
        const arrow = encodeKey(mouse.action === 'wheel-up' ? 'up' : 'down', { applicationCursor: view.applicationCursorKeys });
        core.writeToPane(pane, arrow.repeat(WHEEL_LINES));
      }
      return;
    }
    if (mouse.action !== 'press') return;
    const hit = this.host.chromeHit(mouse.x, mouse.y);
    if (hit?.kind === 'tab') core.focusTab(hit.id);
    else if (hit?.kind === 'workspace') core.focusWorkspace(hit.id);
    else if (hit?.kind === 'agent' && core.model.findPane(hit.key)) core.focusPane(hit.key);
  }

  /** Pressing on a border between panes grabs it; dragging moves it; releasing lets go. */
  private dragBorderMouse(mouse: MouseEvent): boolean {
    const core = this.host.core;
    const main = this.host.geometry().main;
    const x = mouse.x - main.x;
    const y = mouse.y - main.y;
    if (this.drag) {
      if (mouse.action === 'release') this.drag = null;
      else if (mouse.action === 'drag' && core.model.tabs.has(this.drag.tabId)) {
        const tab = core.model.tab(this.drag.tabId);
        const next = dragBorder(tab.layout, this.drag.grab, x, y);
        if (next !== tab.layout) core.setTabLayout(tab.id, next);
      }
      return true;
    }
    if (mouse.action !== 'press' || mouse.button !== 0) return false;
    const pane = core.model.focusedPane();
    if (!pane) return false;
    const tab = core.model.tab(pane.tabId);
    if (tab.zoomedPane) return false;
    const area = { x: 0, y: 0, cols: main.cols, rows: main.rows };
    const grab = borderAt(tab.layout, area, x, y);
    if (!grab) return false;
    this.drag = { tabId: tab.id, grab };
    return true;
  }
}
