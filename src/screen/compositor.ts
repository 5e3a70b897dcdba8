import { ansiToGrid } from './ansi-source.js';
import { FLAGS, type PrintPen } from './cell.js';
import { CellGrid } from './cell-grid.js';
import { ClusterTable } from './cluster-table.js';
import { HIDDEN_CURSOR, type CursorState } from './cursor.js';
import { diffFrame } from './frame-writer.js';
import { TRUECOLOR, type ColorDepth } from './color-depth.js';
import { FRAME, realScheduler, type FrameScheduler } from './frame-scheduler.js';
import { sameRect, type Rect } from '../contract/rect.js';
import { topLineFor, type PaneScreen } from './pane-screen.js';
import { ECHO_TRACE, HOP } from './echo-trace.js';
import { MAX_PREDICTED, penAround, printableAscii } from './echo-prediction.js';

/** Default stacking: chrome at the bottom, panes over their rects, overlays above both. */
export const LAYER_Z = {
  ui: 0,
  pane: 10,
  overlay: 20,
} as const;

/** One visible pane: its screen shown inside `rect` (the inside of its frame). */
export interface PaneLayer {
  id: string;
  /** The pane's screen: `CorralCore.view(pane)`, or any `PaneScreen` (src/terminal/xterm-screen.ts). */
  screen: PaneScreen;
  /** Screen cells the pane's content occupies; the frame around it belongs to the UI layer. */
  rect: Rect;
  /** Lines scrolled back from the bottom of the scrollback; omitted: the terminal's viewport. */
  scrollOffset?: number;
  /** The focused pane gets the hardware cursor. */
  focused?: boolean;
  /** Stacking order (default LAYER_Z.pane). */
  z?: number;
}

/** Where an overlay goes on screen. */
export interface OverlayPlacement {
  x: number;
  y: number;
  /** Stacking order (default LAYER_Z.overlay). */
  z?: number;
}

export interface CompositorOptions {
  cols: number;
  rows: number;
  /**
   * Receives each frame's bytes, in one call per frame. Returning false (as
   * `stream.write` does when its buffer is full) holds further frames until
   * `outputDrained()`; the next frame then carries only the latest screen.
   */
  write: (bytes: string) => boolean | void;
  scheduler?: FrameScheduler;
  /** Wrap frames in synchronized output (default true). */
  synchronized?: boolean;
  /** Colours the terminal shows (default 24-bit); with fewer, frames carry the nearest it has. */
  colors?: ColorDepth;
}

export interface CompositorStats {
  frames: number;
  bytes: number;
  lastFrameBytes: number;
  /** Wall time of the last renderNow, in milliseconds (pane reads, compose and diff). */
  lastFrameMs: number;
  /** Outputs written ahead of parsing by `predictEcho`. */
  predicted: number;
}

interface GridLayerState {
  kind: 'grid';
  key: string;
  grid: CellGrid;
  x: number;
  y: number;
  z: number;
  order: number;
}

interface PaneLayerState {
  kind: 'pane';
  key: string;
  spec: PaneLayer;
  /** Cache of what the pane shows, rect-sized; refreshed from the pane's screen for dirty rows only. */
  grid: CellGrid;
  z: number;
  order: number;
  /** Buffer line shown in the first row at the last read (-1: never read). */
  top: number;
  bufferType: string;
  dirty: 'all' | Set<number> | null;
  /** Ends the onScroll subscription that marks the whole pane dirty when its lines shift. */
  unsubscribe: () => void;
}

type LayerState = GridLayerState | PaneLayerState;

const UI_KEY = 'ui';
const overlayKey = (id: string): string => `overlay:${id}`;

/** Where the focused pane's next echo would go: at (x, y), `lengths` bit n−1 set when n cells fit. */
interface EchoReady {
  id: string;
  x: number;
  y: number;
  lengths: number;
  /** The pen the pane prints with there, and the bytes that put the terminal in it and back. */
  pen: PrintPen;
  around: { set: string; reset: string };
}

/** Where an echo goes and in what pen. */
type EchoSpot = Pick<EchoReady, 'x' | 'y' | 'pen' | 'around'>;

function sameCursor(a: CursorState, b: CursorState): boolean {
  return a.x === b.x && a.y === b.y && a.visible === b.visible && a.shape === b.shape && a.blink === b.blink;
}

/**
 * Owns the real terminal: composes the UI layer, pane layers and overlays into one cell
 * grid and writes only what differs from what the terminal already shows. Work is
 * proportional to what changed: pane rows are read from xterm only when marked dirty,
 * screen rows are recomposed and diffed only when a layer touching them changed.
 */
export class Compositor {
  /** Shared by every grid here, so cells copy and compare as plain numbers. */
  readonly clusters = new ClusterTable();
  readonly stats: CompositorStats = { frames: 0, bytes: 0, lastFrameBytes: 0, lastFrameMs: 0, predicted: 0 };

  private shown: CellGrid;
  private next: CellGrid;
  private dirtyRows: Uint8Array;
  private fullRedraw = true;
  private shownCursor: CursorState | null = null;
  private cursorOverride: CursorState | null = null;
  /** An echo `armEcho` expects and where it would go; null when none is armed. */
  private armed: { id: string; text: string; spot: EchoSpot } | null = null;
  /** Where the focused pane's next echo would go (`echoReady`); undefined: not worked out since the last change. */
  private ready: EchoReady | null | undefined = undefined;
  private readonly layers = new Map<string, LayerState>();
  private sorted: LayerState[] = [];
  private order = 0;
  private lastUiAnsi: string | null = null;
  private lastFrameAt = Number.NEGATIVE_INFINITY;
  /** What the last frame that wrote something cost, on the scheduler's clock (see FRAME.costFactor). */
  private lastFrameCost = 0;
  private cancelFrame: (() => void) | null = null;
  /** Delay the scheduled frame was given (0: the next event-loop turn). */
  private scheduledDelay = 0;
  private readonly write: (bytes: string) => boolean | void;
  /** The output stream is full: frames wait for `outputDrained`. */
  private blocked = false;
  private wantedWhileBlocked = false;
  private readonly scheduler: FrameScheduler;
  private readonly synchronized: boolean;
  private readonly colors: ColorDepth;

  constructor(options: CompositorOptions) {
    this.write = options.write;
    this.scheduler = options.scheduler ?? realScheduler;
    this.synchronized = options.synchronized ?? true;
    this.colors = options.colors ?? TRUECOLOR;
    this.shown = new CellGrid(options.cols, options.rows, this.clusters);
    this.next = new CellGrid(options.cols, options.rows, this.clusters);
    this.dirtyRows = new Uint8Array(options.rows).fill(1);
  }

  get cols(): number {
    return this.next.cols;
  }

  get rows(): number {
    return this.next.rows;
  }

  /** What the terminal shows after the last frame (read-only; for tests and debugging). */
  get screen(): CellGrid {
    return this.shown;
  }

  /** Where the terminal's cursor is after the last write (null before the first frame). */
  get cursor(): CursorState | null {
    return this.shownCursor;
  }

  /** Replaces the chrome with Ink's rendered output; only rows that differ are redrawn. */
  setUiLayer(ansi: string): void {
    const current = this.layers.get(UI_KEY);
    if (ansi === this.lastUiAnsi && current?.grid.cols === this.cols && current.grid.rows === this.rows) return;
    this.lastUiAnsi = ansi;
    this.putGridLayer(UI_KEY, ansiToGrid(ansi, this.cols, this.rows, this.clusters), 0, 0, LAYER_Z.ui);
  }

  /** Replaces the chrome with a prepared grid (transparent cells show nothing beneath). */
  setUiGrid(grid: CellGrid): void {
    this.lastUiAnsi = null;
    this.putGridLayer(UI_KEY, grid, 0, 0, LAYER_Z.ui);
  }

  /**
   * Shows (or with null, removes) an overlay — help, switcher, prompt — above the panes.
   * A string is parsed as ANSI; cells it never prints stay transparent.
   */
  setOverlay(id: string, content: string | CellGrid | null, at: OverlayPlacement = { x: 0, y: 0 }): void {
    const key = overlayKey(id);
    if (content === null) {
      const old = this.layers.get(key);
      if (old) {
        this.layers.delete(key);
        this.markLayerRows(old);
        this.resort();
      }
      return;
    }
    const grid = typeof content === 'string'
      ? ansiToGrid(content, Math.max(0, this.cols - at.x), Math.max(0, this.rows - at.y), this.clusters)
      : content;
    this.putGridLayer(key, grid, at.x, at.y, at.z ?? LAYER_Z.overlay);
  }

  /** Sets the visible panes (later entries stack above earlier ones of equal z); unchanged panes keep their cached cells. */
  setPaneLayers(panes: readonly PaneLayer[]): void {
    const keep = new Set<string>();
    for (const [index, spec] of panes.entries()) {
      const key = `pane:${spec.id}`;
      keep.add(key);
      const z = spec.z ?? LAYER_Z.pane;
      const old = this.layers.get(key);
      if (old?.kind === 'pane' && old.spec.screen === spec.screen && sameRect(old.spec.rect, spec.rect)) {
        if (old.spec.scrollOffset !== spec.scrollOffset) old.dirty = 'all';
        if (old.z !== z || old.order !== index) {
          old.z = z;
          old.order = index;
          this.markLayerRows(old);
        }
        old.spec = spec;
        continue;
      }
      if (old) this.dropLayer(old);
      const state: PaneLayerState = {
        kind: 'pane',
        key,
        spec,
        grid: new CellGrid(spec.rect.cols, spec.rect.rows, this.clusters),
        z,
        // Panes of equal z stack in array order (later on top), whatever their history.
        order: index,
        top: -1,
        bufferType: '',
        dirty: 'all',
        unsubscribe: () => {},
      };
      // Every line moves on a scroll, even when a full scrollback keeps the top line number.
      const subscription = spec.screen.onScroll(() => {
        state.dirty = 'all';
      });
      state.unsubscribe = () => subscription.dispose();
      this.layers.set(key, state);
      this.markLayerRows(state);
    }
    for (const [key, layer] of this.layers) {
      if (layer.kind === 'pane' && !keep.has(key)) this.dropLayer(layer);
    }
    this.resort();
  }

  /**
   * Says a pane's terminal changed. `rows` are viewport rows (0 = the top of the live
   * screen); omit them when unknown and the whole pane is re-read, cells compared, and
   * only rows that really changed redrawn.
   */
  markPaneDirty(id: string, rows?: Iterable<number>, options: { urgent?: boolean } = {}): void {
    const layer = this.layers.get(`pane:${id}`);
    if (layer?.kind !== 'pane') return;
    if (rows === undefined) layer.dirty = 'all';
    else if (layer.dirty !== 'all') {
      layer.dirty ??= new Set<number>();
      for (const r of rows) layer.dirty.add(r);
    }
    this.requestFrame(options);
  }

  /**
   * Echo prediction. Output of the focused pane that is plain printable ASCII (a keystroke's
   * echo), arriving while the terminal shows that pane's cursor, is written to the terminal
   * at once — before xterm parses it and before any frame is composed — and recorded in what
   * the terminal shows. The frame that follows the parse then reconciles: nothing to send
   * when the guess was right, a correction straight away when it was not. Call it with the
   * pane's output just before the pane's terminal parses it; returns whether it was written.
   */
  predictEcho(id: string, text: string): boolean {
    const spot = this.echoSpot(id, text.length);
    // The pane is about to change: what was worked out for its next echo no longer holds.
    this.forgetEcho();
    if (spot === null) return false;
    this.emitEcho(text, spot);
    return true;
  }

  /**
   * Pane `id`'s output `data`, just before its terminal parses it (every piece, from every
   * visible pane): predicted when it is printable ASCII, and in any case what was worked out
   * for the next echo is forgotten, since that pane's cursor or pen is about to change.
   */
  beforePaneParse(id: string, data: string | Uint8Array): boolean {
    const text = printableAscii(data);
    if (text !== null) return this.predictEcho(id, text);
    this.forgetEcho();
    return false;
  }

  /**
   * The typing express's half in the compositor (TuiController.typeExpress). Called right
   * after `text` was typed into pane `id`, while the shell is still echoing: remembers where
   * an echo of exactly `text` would go, if `predictEcho` would write it. `expressEcho` then
   * writes the echo the moment it comes off the pty, with no check left to make. Anything
   * that writes or asks for a frame in between (another pane's output, the chrome, a layout
   * change) disarms it, since the terminal's cursor or the pane may move.
   */
  armEcho(id: string, text: string): void {
    const spot = this.echoSpot(id, text.length);
    this.armed = spot === null ? null : { id, text, spot };
  }

  /**
   * Writes pane `id`'s output `data` ahead of everything when it is the echo `armEcho` was
   * told to expect (the same bytes) and nothing disarmed it; returns whether it did. The
   * `predictEcho` that follows finds the terminal's cursor past the pane's and writes nothing.
   */
  expressEcho(id: string, data: string | Uint8Array): boolean {
    const armed = this.armed;
    this.armed = null;
    if (armed === null || armed.id !== id || !sameText(data, armed.text)) return false;
    this.emitEcho(armed.text, armed.spot);
    return true;
  }

  /** Where an echo of `length` printable cells from pane `id` would go now, or null if it cannot be predicted. */
  private echoSpot(id: string, length: number): EchoSpot | null {
    this.ready ??= this.echoReady();
    const ready = this.ready;
    if (ready === null || ready.id !== id || length < 1 || ((ready.lengths >>> (length - 1)) & 1) === 0) return null;
    return ready;
  }

  /**
   * Where the focused pane's next echo would go and which lengths fit there, or null when
   * none can be predicted. Worked out once per frame, after it (`renderNow`), so a keystroke
   * finds it made; anything that changes what the terminal shows forgets it (`forgetEcho`).
   */
  private echoReady(): EchoReady | null {
    const shownCursor = this.shownCursor;
    // A full output stream is no reason to wait: the bytes queue behind the frame already in
    // it, in order, which is exactly what `shown` assumes.
    if (this.fullRedraw || this.cursorOverride || !shownCursor?.visible) return null;
    const index = this.sorted.findIndex((l) => l.kind === 'pane' && l.spec.focused === true);
    const pane = this.sorted[index];
    if (pane?.kind !== 'pane' || pane.spec.scrollOffset) return null;
    const pen = pane.spec.screen.printPen();
    if (pen === null) return null;
    // The terminal's cursor must already be where the pane's is, and the text must fit in the
    // pane's row with room left for the cursor: no wrap, on either terminal.
    const cursor = this.currentCursor();
    const { x, y } = cursor;
    if (!cursor.visible || x !== shownCursor.x || y !== shownCursor.y) return null;
    const last = Math.min(MAX_PREDICTED, pane.spec.rect.x + pane.spec.rect.cols - 1 - x);
    const narrow = 1 << FLAGS.widthShift;
    let lengths = 0;
    for (let n = 1; n <= last; n++) {
      // Overwriting half of a wide character, or a cell an overlay covers, is not a plain print.
      const cx = x + n - 1;
      if (((this.shown.flags[this.shown.index(cx, y)] as number) & FLAGS.widthMask) !== narrow) break;
      if (this.coveredAbove(index, cx, y)) break;
      // A wide character's right half right after the text would lose its left half.
      if (((this.shown.flags[this.shown.index(x + n, y)] as number) & FLAGS.widthMask) !== 0) lengths |= 1 << (n - 1);
    }
    return lengths === 0 ? null : { id: pane.spec.id, x, y, lengths, pen, around: penAround(pen, this.colors) };
  }

  /** Forgets the armed echo and where the next one would go: what the terminal shows is changing. */
  private forgetEcho(): void {
    this.armed = null;
    this.ready = undefined;
  }

  /**
   * Writes a predicted echo at `spot` (the terminal's cursor) in the pane's pen, leaving the
   * terminal in the default pen as a frame does, and records it as shown.
   */
  private emitEcho(text: string, spot: EchoSpot): void {
    this.forgetEcho();
    ECHO_TRACE?.mark(HOP.predicted);
    const { set, reset } = spot.around;
    const bytes = set === '' ? text : set + text + reset;
    if (this.write(bytes) === false) this.blocked = true;
    ECHO_TRACE?.mark(HOP.sent);
    const { fg, bg, attrs } = spot.pen;
    for (let k = 0; k < text.length; k++) this.shown.set(spot.x + k, spot.y, { char: text[k] as string, fg, bg, attrs });
    this.shownCursor = { ...(this.shownCursor as CursorState), x: spot.x + text.length };
    this.stats.predicted++;
    this.stats.bytes += bytes.length;
  }

  /**
   * Writes a control string that changes nothing on screen (an OSC 52 clipboard copy, a
   * notification) straight to the terminal, between frames.
   */
  writeControl(bytes: string): void {
    this.forgetEcho();
    if (this.write(bytes) === false) this.blocked = true;
    this.stats.bytes += Buffer.byteLength(bytes);
  }

  /** Puts the hardware cursor somewhere other than the focused pane (e.g. a rename prompt); null restores it. */
  setCursorOverride(cursor: CursorState | null): void {
    this.cursorOverride = cursor;
    this.requestFrame();
  }

  /** Adopts a new terminal size; the next frame clears and redraws everything. */
  resize(cols: number, rows: number): void {
    this.shown.resize(cols, rows);
    this.next.resize(cols, rows);
    this.dirtyRows = new Uint8Array(rows);
    this.invalidate();
  }

  /** Forgets what the terminal shows (after a resize, suspend, or foreign output); the next frame is full. */
  invalidate(): void {
    this.fullRedraw = true;
    this.shownCursor = null;
    this.dirtyRows.fill(1);
    this.requestFrame();
  }

  /**
   * Schedules a frame: on the next event-loop turn if none went out in the last frame
   * interval, else at the interval boundary — a keystroke echo leaves at once, a flood
   * of output is coalesced to ≤ 60 frames a second (fewer while frames are slow to make:
   * FRAME.costFactor). `urgent` (the echo of a keystroke) is drawn at once, in the caller's
   * turn, so a pane flooding next to the one being typed in cannot hold the echo back.
   */
  requestFrame(options: { urgent?: boolean } = {}): void {
    this.forgetEcho();
    if (this.blocked) {
      this.wantedWhileBlocked = true;
      return;
    }
    if (options.urgent) {
      // The echo of a keystroke that was not predicted (an agent's input box, redrawn whole):
      // drawn now, right after the parse that made it, not on the next loop turn behind the
      // rest of the turn's work — that hop was ~0.13 of a ~1.6 ms echo (docs/bench.md, "The
      // user's path"). A redraw a program splits over two writes may show half-done for
      // the moment between them, as a predicted echo or tmux would show it.
      this.renderNow();
      return;
    }
    const since = this.scheduler.now() - this.lastFrameAt;
    const interval = Math.min(FRAME.maxIntervalMs, Math.max(FRAME.intervalMs, this.lastFrameCost * FRAME.costFactor));
    const delay = since >= interval ? 0 : interval - since;
    if (this.cancelFrame) {
      if (delay > 0 || this.scheduledDelay === 0) return;
      this.cancelFrame(); // a paced frame gives way to an immediate one
    }
    this.scheduledDelay = delay;
    this.cancelFrame = this.scheduler.schedule(() => {
      this.cancelFrame = null;
      this.renderNow();
    }, delay);
  }

  /** Composes and writes a frame immediately; returns the bytes written ('' if nothing changed). */
  renderNow(): string {
    ECHO_TRACE?.mark(HOP.frameStart);
    this.forgetEcho();
    const started = performance.now();
    const startedAt = this.scheduler.now();
    this.cancelFrame?.();
    this.cancelFrame = null;
    for (const layer of this.sorted) if (layer.kind === 'pane' && layer.dirty) this.refreshPane(layer);
    const full = this.fullRedraw;
    for (let y = 0; y < this.rows; y++) if (full || this.dirtyRows[y]) this.composeRow(y);
    const cursor = this.currentCursor();
    const unchanged = !full && this.shownCursor !== null && sameCursor(cursor, this.shownCursor) && !this.dirtyRows.includes(1);
    const out = unchanged
      ? ''
      : diffFrame(this.shown, this.next, cursor, {
        full,
        shownCursor: this.shownCursor,
        rows: this.dirtyRows,
        synchronized: this.synchronized,
        colors: this.colors,
      });
    for (let y = 0; y < this.rows; y++) if (full || this.dirtyRows[y]) this.shown.copyRowFrom(this.next, y);
    this.dirtyRows.fill(0);
    this.fullRedraw = false;
    this.shownCursor = cursor;
    this.stats.lastFrameMs = performance.now() - started;
    if (out.length > 0) {
      if (this.write(out) === false) this.blocked = true;
      const bytes = Buffer.byteLength(out);
      this.lastFrameAt = this.scheduler.now();
      this.lastFrameCost = this.lastFrameAt - startedAt;
      this.stats.frames++;
      this.stats.bytes += bytes;
      this.stats.lastFrameBytes = bytes;
    }
    ECHO_TRACE?.mark(HOP.frameEnd);
    // While the terminal is idle: where the next keystroke's echo goes (see echoReady).
    this.ready = this.echoReady();
    return out;
  }

  /** Tells the compositor the output stream drained ('drain' event); held frames resume. */
  outputDrained(): void {
    this.blocked = false;
    if (this.wantedWhileBlocked) {
      this.wantedWhileBlocked = false;
      this.requestFrame();
    }
  }

  /** Cancels any scheduled frame and lets go of the pane screens. */
  dispose(): void {
    this.forgetEcho();
    this.cancelFrame?.();
    this.cancelFrame = null;
    for (const layer of [...this.layers.values()]) if (layer.kind === 'pane') this.dropLayer(layer);
  }

  /** Removes a layer and marks the rows it covered for redrawing. */
  private dropLayer(layer: LayerState): void {
    if (layer.kind === 'pane') layer.unsubscribe();
    if (this.layers.get(layer.key) === layer) this.layers.delete(layer.key);
    this.markLayerRows(layer);
  }

  private putGridLayer(key: string, grid: CellGrid, x: number, y: number, z: number): void {
    const old = this.layers.get(key);
    const state: GridLayerState = { kind: 'grid', key, grid, x, y, z, order: old?.order ?? this.order++ };
    this.layers.set(key, state);
    if (old?.kind === 'grid' && old.x === x && old.y === y && old.z === z && old.grid.cols === grid.cols && old.grid.rows === grid.rows) {
      // Same placement: only rows whose cells differ need recomposing.
      for (let r = 0; r < grid.rows; r++) if (!grid.rowEquals(r, old.grid)) this.markRows(y + r, 1);
    } else {
      if (old) this.markLayerRows(old);
      this.markLayerRows(state);
    }
    this.resort();
  }

  private resort(): void {
    this.sorted = [...this.layers.values()].sort((a, b) => a.z - b.z || a.order - b.order);
    this.requestFrame();
  }

  private markRows(y: number, count: number): void {
    for (let r = Math.max(0, y); r < Math.min(this.rows, y + count); r++) this.dirtyRows[r] = 1;
  }

  private markLayerRows(layer: LayerState): void {
    if (layer.kind === 'grid') this.markRows(layer.y, layer.grid.rows);
    else this.markRows(layer.spec.rect.y, layer.spec.rect.rows);
  }

  /** Re-reads a pane's dirty rows from its screen and marks the screen rows that changed. */
  private refreshPane(pane: PaneLayerState): void {
    const { screen, rect, scrollOffset } = pane.spec;
    const top = topLineFor(screen, scrollOffset);
    const bufferType = screen.bufferType;
    const local = { x: 0, y: 0, cols: rect.cols, rows: rect.rows };
    const changed = new Uint8Array(rect.rows);
    let rows: number[] | undefined;
    if (pane.dirty !== 'all' && pane.dirty !== null && top === pane.top && bufferType === pane.bufferType) {
      // Viewport row r is buffer line baseY + r; map it to the row it is displayed in.
      const baseY = screen.baseY;
      rows = [...pane.dirty].map((r) => baseY + r - top).filter((r) => r >= 0 && r < rect.rows);
    }
    screen.copyRows(pane.grid, local, { top, rows, changed });
    pane.top = top;
    pane.bufferType = bufferType;
    pane.dirty = null;
    for (let r = 0; r < rect.rows; r++) if (changed[r]) this.markRows(rect.y + r, 1);
  }

  /** Paints screen row y from every layer, bottom to top. */
  private composeRow(y: number): void {
    const next = this.next;
    next.clearRow(y);
    for (const layer of this.sorted) {
      if (layer.kind === 'grid') {
        const r = y - layer.y;
        if (r >= 0 && r < layer.grid.rows) next.copyRegion(layer.grid, { x: 0, y: r, cols: layer.grid.cols, rows: 1 }, layer.x, y, true);
      } else {
        const { rect } = layer.spec;
        const r = y - rect.y;
        if (r >= 0 && r < rect.rows) next.copyRegion(layer.grid, { x: 0, y: r, cols: rect.cols, rows: 1 }, rect.x, y, false);
      }
    }
  }

  /** The focused pane's cursor in screen coordinates, hidden when scrolled out or covered. */
  private currentCursor(): CursorState {
    if (this.cursorOverride) return this.cursorOverride;
    const index = this.sorted.findIndex((l) => l.kind === 'pane' && l.spec.focused === true);
    if (index < 0) return this.shownCursor ? { ...this.shownCursor, visible: false } : HIDDEN_CURSOR;
    const pane = this.sorted[index] as PaneLayerState;
    const { screen, rect } = pane.spec;
    const c = screen.cursor();
    const row = screen.baseY + c.y - pane.top;
    const x = rect.x + c.x;
    const y = rect.y + row;
    const inside = row >= 0 && row < rect.rows && c.x < rect.cols;
    const visible = c.visible && inside && !this.coveredAbove(index, x, y);
    return { x: inside ? x : rect.x, y: inside ? y : rect.y, visible, shape: c.shape, blink: c.blink };
  }

  /** Whether a layer stacked above sorted[index] paints cell (x, y). */
  private coveredAbove(index: number, x: number, y: number): boolean {
    for (let k = index + 1; k < this.sorted.length; k++) {
      const layer = this.sorted[k];
      if (layer.kind === 'pane') {
        const r = layer.spec.rect;
        if (x >= r.x && x < r.x + r.cols && y >= r.y && y < r.y + r.rows) return true;
      } else {
        const lx = x - layer.x;
        const ly = y - layer.y;
        if (lx >= 0 && ly >= 0 && lx < layer.grid.cols && ly < layer.grid.rows
          && (layer.grid.flags[layer.grid.index(lx, ly)] & FLAGS.transparent) === 0) return true;
      }
    }
    return false;
  }
}

/** Whether `data` (a string, or bytes that are ASCII) holds exactly the characters of `text`. */
function sameText(data: string | Uint8Array, text: string): boolean {
  if (typeof data === 'string') return data === text;
  if (data.length !== text.length) return false;
  for (let i = 0; i < text.length; i++) if (data[i] !== text.charCodeAt(i)) return false;
  return true;
}
