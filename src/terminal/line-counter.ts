/**
 * Counts rows that scrolled out of the top of a terminal's normal buffer (trimmed from the
 * scrollback), so rows get absolute numbers that survive trimming: absolute = trimmed + index.
 * `wait --pattern` uses these to tell new output from old. xterm has no public trim counter,
 * so this follows a marker: a marker's `line` drops by one per trimmed row.
 */
import type { IMarker, Terminal as XTerminal } from '@xterm/headless';
import type { Disposable } from '../contract/disposable.js';

/** Re-anchor once the marker has drifted into the top half of the buffer, long before it is trimmed. */
const REANCHOR_FRACTION = 0.5;

/** Tracks how many rows the normal buffer has trimmed since the terminal was created. */
export class TrimmedLineCounter implements Disposable {
  private marker: IMarker | undefined;
  private markerStartLine = 0;
  private trimmedAtAnchor = 0;
  private lastKnown = 0;
  private _scrolls = 0;
  private readonly subscriptions: Disposable[];
  /**
   * xterm's `buffer` getter re-checks options through a slow proxy on every access, and
   * `check` runs once per scrolled row: keep the (stable) namespace object instead.
   */
  private readonly buffers: XTerminal['buffer'];

  constructor(private readonly xterm: XTerminal) {
    this.buffers = xterm.buffer;
    this.anchor();
    this.subscriptions = [
      // One event per scrolled row; re-anchoring here keeps the count exact.
      xterm.onScroll(() => {
        this._scrolls++;
        this.check();
      }),
      this.buffers.onBufferChange(() => this.check()),
    ];
  }

  /**
   * Scroll events seen so far (either buffer). Shared so that nothing else needs a listener
   * of its own on xterm's onScroll, which fires once per scrolled row (see damage.ts).
   */
  get scrolls(): number {
    return this._scrolls;
  }

  /** Rows trimmed from the top of the normal buffer so far. */
  get trimmed(): number {
    if (this.marker && !this.marker.isDisposed) {
      this.lastKnown = this.trimmedAtAnchor + (this.markerStartLine - this.marker.line);
    }
    return this.lastKnown;
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
    this.marker?.dispose();
  }

  private check(): void {
    if (this.buffers.active.type !== 'normal') return;
    const m = this.marker;
    if (!m || m.isDisposed || m.line < this.buffers.normal.length * REANCHOR_FRACTION) this.anchor();
  }

  /** Place a fresh marker at the cursor (markers always land in the active buffer). */
  private anchor(): void {
    if (this.buffers.active.type !== 'normal') return;
    const trimmed = this.trimmed;
    const next = this.xterm.registerMarker(0);
    if (!next) return;
    this.marker?.dispose();
    this.marker = next;
    this.markerStartLine = next.line;
    this.trimmedAtAnchor = trimmed;
  }
}
