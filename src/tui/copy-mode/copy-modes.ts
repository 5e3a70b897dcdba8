/**
 * The TUI's copy modes, one per pane that is in one: owns each pane's state, frozen source,
 * search job and view layer, turns keys and mouse events into state-machine steps, and
 * carries out the actions (leave, copy to the clipboard and the paste buffer, search,
 * messages). The controller only routes input here while the focused pane is in copy mode.
 */
import type { ClientCore } from '../client-view.js';
import type { PaneRecord } from '../../session/model.js';
import { CellGrid } from '../../screen/cell-grid.js';
import { LAYER_Z, type Compositor } from '../../screen/compositor.js';
import { contains, type Rect } from '../../contract/rect.js';
import { splitFirstKey, type MouseEvent } from '../input-parser.js';
import { osc52 } from './clipboard.js';
import {
  applySearch,
  copyKey,
  copyPaste,
  copyPointer,
  copyScroll,
  enterCopyMode,
  resizeCopyView,
  type CopyAction,
  type CopyResult,
  type CopyState,
} from './copy-mode.js';
import { SearchQueue, startSearch, type SearchJob } from './copy-search.js';
import { textSource, type CopySource } from './copy-source.js';
import { renderCopyView } from './copy-view.js';

export const COPY_TUNING = {
  /** Lines one wheel notch scrolls (as the live view did). */
  wheelLines: 3,
  /** Transcript lines gathered from an alternate-screen agent. */
  transcriptLines: 5000,
  /** Copy mode's layer sits just above its pane and below the help and prompt overlays. */
  z: LAYER_Z.pane + 1,
} as const;

interface CopySession {
  paneId: string;
  state: CopyState;
  source: CopySource;
  rect: Rect | null;
  /** A review view (prefix D) over its own lines, rather than the pane's own scrollback. */
  review: ReviewKeys | null;
  /**
   * Two grids drawn in turn: the compositor finds changed rows by comparing the new layer
   * grid with the one it holds, so the next frame is drawn into the other one.
   */
  grids: [CellGrid, CellGrid] | null;
  job: SearchJob | null;
}

export interface CopyModesOptions {
  core: ClientCore;
  compositor: Compositor;
  /** A status-line message. */
  flash: (text: string, error: boolean) => void;
  /** Copy mode started or ended in a pane (the frame's label changes). */
  onChange: () => void;
  /** Whether the outer terminal takes OSC 52 (default true); without it copies stay in corral's buffer. */
  clipboard?: boolean;
}

/** What a review view (prefix D, src/tui/review.ts) adds to copy mode: its frame label and its own keys. */
export interface ReviewKeys {
  /** The frame's label, e.g. `review alpha (m merge, q leave)`. */
  label: string;
  /** A key copy mode leaves unbound (`m`, `r`, `[`, `]`): true when the review took it. */
  key: (key: string) => boolean;
}

const layerId = (paneId: string): string => `copy:${paneId}`;

export class CopyModes {
  private readonly sessions = new Map<string, CopySession>();
  /** Every pane's searches share one time budget per event-loop turn. */
  private readonly searches = new SearchQueue();
  /** The last text copied: what `prefix ]` pastes. */
  buffer = '';
  /** A left press in a pane that does not take the mouse: a drag from it starts a selection. */
  private pressed: { paneId: string; row: number; col: number } | null = null;

  constructor(private readonly options: CopyModesOptions) {}

  isActive(paneId: string): boolean {
    return this.sessions.has(paneId);
  }

  /** Panes in copy mode, for the frame labels. */
  activePanes(): IterableIterator<string> {
    return this.sessions.keys();
  }

  /** What a pane's frame says while it is in one: `copy mode`, or `review <worktree>`. */
  labelOf(paneId: string): string | null {
    const session = this.sessions.get(paneId);
    if (!session) return null;
    return session.review ? session.review.label : 'copy mode';
  }

  /** The review view a pane shows, or null (not in one, or in plain copy mode). */
  reviewOf(paneId: string): ReviewKeys | null {
    return this.sessions.get(paneId)?.review ?? null;
  }

  /**
   * A review view (prefix D): copy mode over `source` (a worktree's or a turn's files and diff)
   * instead of the pane's scrollback, with the cursor on `line`; scroll, search, select and copy
   * work as in copy mode. Shown again over a review already open (another turn selected), the
   * view keeps its scroll position while `line` stays in sight.
   */
  enterReview(pane: PaneRecord, source: CopySource, review: ReviewKeys, line = 0): void {
    const before = this.sessions.get(pane.id);
    if (before?.review) {
      const { top, rows } = before.state;
      const state = enterCopyMode(source, before.state, { line, col: 0 }, { top: line >= top && line < top + rows ? top : undefined });
      before.job?.cancel();
      Object.assign(before, { state, source, review, job: null });
      this.options.onChange();
      this.draw(before);
      return;
    }
    this.exit(pane.id);
    const view = this.options.core.view(pane);
    const state = enterCopyMode(source, { rows: view.rows, cols: view.cols }, { line, col: 0 }, { top: 0 });
    this.sessions.set(pane.id, { paneId: pane.id, state, source, rect: null, grids: null, job: null, review });
    this.options.onChange();
  }

  /** Starts copy mode in a pane (no-op if it is in one). */
  enter(pane: PaneRecord, options: { byWheel?: boolean } = {}): void {
    if (this.sessions.has(pane.id)) return;
    const view = this.options.core.view(pane);
    const source = view.scrollbackReader();
    const state = enterCopyMode(source, { rows: view.rows, cols: view.cols }, source.cursor, { byWheel: options.byWheel, top: source.screenTop });
    this.sessions.set(pane.id, { paneId: pane.id, state, source, rect: null, grids: null, job: null, review: null });
    this.options.onChange();
    // Only an agent that takes the mouse can be scrolled through its history (agent read's rule).
    if (view.isAlternateScreen && view.mouseTrackingMode !== 'none' && this.options.core.agents.agentIn(pane)) void this.loadTranscript(pane);
  }

  /** Leaves copy mode in a pane. */
  exit(paneId: string): void {
    const session = this.sessions.get(paneId);
    if (!session) return;
    session.job?.cancel();
    this.sessions.delete(paneId);
    this.options.compositor.setOverlay(layerId(paneId), null);
    this.options.onChange();
  }

  /**
   * Feeds typed input to a pane's copy mode, key by key. Returns what is left once the mode
   * ended on a key (that goes to the pane), or '' when copy mode took everything.
   */
  keys(paneId: string, data: string): string {
    let rest = data;
    while (rest.length > 0) {
      const session = this.sessions.get(paneId);
      if (!session) return rest;
      const { key, rest: after } = splitFirstKey(rest);
      rest = after;
      if (session.review && !session.state.prompt && session.review.key(key)) continue;
      this.step(session, copyKey(session.state, key, session.source));
    }
    return '';
  }

  /** A bracketed paste while in copy mode: into the search prompt, or dropped. */
  paste(paneId: string, text: string): void {
    const session = this.sessions.get(paneId);
    if (session) this.step(session, { state: copyPaste(session.state, text), actions: [] });
  }

  /**
   * Mouse over a pane (`inner` is its screen rect). Returns true when copy mode took the
   * event: everything while in copy mode, the wheel on a normal-screen pane that does not
   * take the mouse (it enters copy mode), and a drag in such a pane (it selects).
   */
  mouse(pane: PaneRecord, mouse: MouseEvent, inner: Rect): boolean {
    const view = this.options.core.view(pane);
    const appMouse = view.mouseTrackingMode !== 'none';
    // Shift+drag is the outer terminal's own selection when corral holds the mouse: leave it alone.
    if (mouse.shift && !appMouse) return true;
    const at = { row: mouse.y - inner.y, col: mouse.x - inner.x };
    let session = this.sessions.get(pane.id);
    if (!session) {
      if (appMouse) return false;
      if (mouse.action === 'wheel-up' && !view.isAlternateScreen) {
        this.enter(pane, { byWheel: true });
        session = this.sessions.get(pane.id)!;
      } else if (mouse.action === 'press' && mouse.button === 0 && contains(inner, mouse.x, mouse.y)) {
        this.pressed = { paneId: pane.id, ...at };
        return false;
      } else if (mouse.action === 'drag' && mouse.button === 0 && this.pressed?.paneId === pane.id) {
        const start = this.pressed;
        this.pressed = null;
        this.enter(pane);
        session = this.sessions.get(pane.id)!;
        this.step(session, copyPointer(session.state, 'press', { row: start.row, col: start.col }, session.source));
      } else {
        return false;
      }
    }
    const s = session;
    switch (mouse.action) {
      case 'wheel-up':
      case 'wheel-down':
        this.step(s, copyScroll(s.state, mouse.action === 'wheel-up' ? -COPY_TUNING.wheelLines : COPY_TUNING.wheelLines, s.source));
        return true;
      case 'press':
        // A press on the frame is not a press in the text; a drag past the edges scrolls.
        if (mouse.button === 0 && contains(inner, mouse.x, mouse.y)) this.step(s, copyPointer(s.state, 'press', at, s.source));
        return true;
      case 'drag':
      case 'release':
        if (mouse.button === 0 || mouse.action === 'release') this.step(s, copyPointer(s.state, mouse.action, at, s.source));
        return true;
      default:
        return true;
    }
  }

  /**
   * Places each copy-mode layer over its pane's screen rect (the visible panes); panes out of
   * view keep their state without a layer, closed panes lose it.
   */
  layout(visible: ReadonlyMap<string, Rect>): void {
    for (const session of [...this.sessions.values()]) {
      const pane = this.options.core.model.findPane(session.paneId);
      if (!pane) {
        this.exit(session.paneId);
        continue;
      }
      const rect = visible.get(session.paneId) ?? null;
      if (!rect) {
        if (session.rect) this.options.compositor.setOverlay(layerId(session.paneId), null);
        session.rect = null;
        continue;
      }
      const resized = !session.rect || session.rect.cols !== rect.cols || session.rect.rows !== rect.rows;
      session.rect = rect;
      if (resized) {
        const clusters = this.options.compositor.clusters;
        session.grids = [new CellGrid(rect.cols, rect.rows, clusters), new CellGrid(rect.cols, rect.rows, clusters)];
        session.state = resizeCopyView(session.state, rect.rows, rect.cols);
      }
      this.draw(session);
    }
  }

  dispose(): void {
    for (const id of [...this.sessions.keys()]) this.exit(id);
  }

  /** Adopts a state-machine result: new state, then its actions, then a redraw. */
  private step(session: CopySession, result: CopyResult): void {
    session.state = result.state;
    for (const action of result.actions) this.act(session, action);
    if (this.sessions.get(session.paneId) === session) this.draw(session);
  }

  private act(session: CopySession, action: CopyAction): void {
    switch (action.kind) {
      case 'exit':
        this.exit(session.paneId);
        return;
      case 'copy':
        this.copy(action.text);
        return;
      case 'message':
        this.options.flash(action.text, action.error ?? false);
        return;
      case 'search': {
        session.job?.cancel();
        const { pattern } = action;
        session.job = startSearch(this.searches, { source: session.source, pattern, backward: action.backward, from: action.from }, (progress) => {
          if (this.sessions.get(session.paneId) !== session) return;
          if (progress.complete) session.job = null;
          this.step(session, applySearch(session.state, pattern, progress));
        });
        return;
      }
    }
  }

  /** Copied text goes to corral's paste buffer and, by OSC 52, to the outer terminal's clipboard. */
  private copy(text: string): void {
    if (text === '') return;
    this.buffer = text;
    const sequence = this.options.clipboard === false ? null : osc52(text);
    const count = [...text].length;
    if (sequence) {
      this.options.compositor.writeControl(sequence);
      this.options.flash(`copied ${count} characters`, false);
    } else if (this.options.clipboard === false) {
      this.options.flash(`copied ${count} characters to corral's buffer (no OSC 52 clipboard here)`, false);
    } else {
      this.options.flash(`copied ${count} characters to corral's buffer (too long for the terminal clipboard)`, false);
    }
  }

  private draw(session: CopySession): void {
    if (!session.rect || !session.grids) return;
    const [next, shown] = session.grids;
    renderCopyView(session.state, session.source, next);
    session.grids = [shown, next];
    this.options.compositor.setOverlay(layerId(session.paneId), next, { x: session.rect.x, y: session.rect.y, z: COPY_TUNING.z });
  }

  /**
   * An alternate-screen agent keeps its history to itself: gather its transcript (SPEC §5
   * read sources, by scrolling it while idle) and switch the view to it when it arrives.
   */
  private async loadTranscript(pane: PaneRecord): Promise<void> {
    const before = this.sessions.get(pane.id);
    if (!before) return;
    this.options.flash('reading the agent\u2019s transcript…', false);
    try {
      const read = await this.options.core.readAgent(pane, { source: 'recent', lines: COPY_TUNING.transcriptLines });
      const session = this.sessions.get(pane.id);
      if (session !== before) return;
      const lines = read.text.split('\n');
      const source = textSource(lines);
      session.source = source;
      session.job?.cancel();
      session.job = null;
      const last = Math.max(0, lines.length - 1);
      session.state = enterCopyMode(source, { rows: session.state.rows, cols: session.state.cols }, { line: last, col: 0 });
      this.options.flash(`transcript: ${lines.length} lines`, false);
      this.draw(session);
    } catch (error) {
      if (this.sessions.get(pane.id) === before) this.options.flash(`copy mode shows the screen only: ${(error as Error).message}`, false);
    }
  }
}
