/**
 * Which screen rows a parsed write changed, so the screen compositor re-reads only those
 * instead of the whole pane (a keystroke's echo touches one row of dozens).
 *
 * xterm tracks this for its renderer but keeps it private (`_inputHandler.onRequestRefreshRows`,
 * fired at the end of every parse). Anything that moves or replaces rows wholesale — a scroll,
 * a buffer switch, a reset — counts as "all rows". If xterm's internals ever change shape, every
 * write simply reports "all rows", which is always correct, only slower.
 */
import type { Terminal as XTerminal } from '@xterm/headless';
import type { Disposable } from '../contract/disposable.js';

/** Rows `start…end` (inclusive, 0 = the top of the live screen), or every row. */
export type Damage = { start: number; end: number } | 'all';

interface RefreshRange {
  start: number;
  end: number;
}

interface XtermEvent<T> {
  (listener: (value: T) => void): Disposable;
}

interface InputHandlerInternals {
  onRequestRefreshRows?: XtermEvent<RefreshRange | undefined>;
  onRequestReset?: XtermEvent<void>;
}

function inputHandlerOf(xterm: XTerminal): InputHandlerInternals | undefined {
  return (xterm as unknown as { _core?: { _inputHandler?: InputHandlerInternals } })._core?._inputHandler;
}

/** Collects the damage of the writes parsed since the last `take()`. */
export class DamageTracker implements Disposable {
  private damage: Damage | null = null;
  private readonly subscriptions: Disposable[] = [];
  /** False when xterm's internals are not there: every write is then "all". */
  readonly exact: boolean;
  /** The (stable) buffer namespace: xterm's `buffer` getter is slow. */
  private readonly buffers: XTerminal['buffer'];

  private scrollsAtTake: number;

  /**
   * `scrolls` counts xterm's scroll events (TrimmedLineCounter.scrolls): one listener per
   * scrolled row is enough for a pane, and a flood scrolls a million rows.
   */
  constructor(xterm: XTerminal, private readonly scrolls: () => number) {
    this.buffers = xterm.buffer;
    this.scrollsAtTake = scrolls();
    const handler = inputHandlerOf(xterm);
    const onRows = handler?.onRequestRefreshRows;
    const onReset = handler?.onRequestReset;
    this.exact = typeof onRows === 'function' && typeof onReset === 'function';
    if (!this.exact) return;
    this.subscriptions.push(
      onRows!.call(handler, (range) => this.addRange(range)),
      onReset!.call(handler, () => (this.damage = 'all')),
      this.buffers.onBufferChange(() => (this.damage = 'all')),
      xterm.onResize(() => (this.damage = 'all')),
    );
  }

  /** The damage since the last call ('all' when untracked), and start afresh. */
  take(): Damage {
    const scrolls = this.scrolls();
    const scrolled = scrolls !== this.scrollsAtTake;
    this.scrollsAtTake = scrolls;
    const damage = !this.exact || scrolled ? 'all' : (this.damage ?? { start: 0, end: -1 });
    this.damage = null;
    return damage;
  }

  /** Something changed rows without xterm saying which. */
  markAll(): void {
    this.damage = 'all';
  }

  dispose(): void {
    for (const s of this.subscriptions) s.dispose();
  }

  private addRange(range: RefreshRange | undefined): void {
    if (this.damage === 'all') return;
    if (!range) {
      this.damage = 'all';
      return;
    }
    // xterm reports rows of its viewport; corral reads the live screen (baseY), and the two
    // only differ if something scrolled xterm's own viewport.
    const active = this.buffers.active;
    const shift = active.viewportY - active.baseY;
    const start = range.start + shift;
    const end = range.end + shift;
    this.damage = this.damage ? { start: Math.min(this.damage.start, start), end: Math.max(this.damage.end, end) } : { start, end };
  }
}

/** The damaged rows as a list, or undefined for "every row" (the compositor's convention). */
export function damagedRows(damage: Damage): number[] | undefined {
  if (damage === 'all') return undefined;
  const rows: number[] = [];
  for (let r = damage.start; r <= damage.end; r++) rows.push(r);
  return rows;
}
