/**
 * A guard around one bug in @xterm/headless 6 (still in xterm.js's main branch): when a
 * narrower width makes wrapped lines longer than the scrollback limit allows, `_reflowSmaller`
 * places the new rows bottom-up and keeps writing the ones that no longer fit at negative
 * indexes of its row ring (`lines.set(i--, …)` with no `i >= 0` check). The ring turns a
 * negative index into a real slot whenever it has wrapped around once, so rows meant to be
 * trimmed overwrite rows at the bottom of the screen: after a resize of a full scrollback to
 * 2 columns, the cursor's row `界` read ` a`, marked as wrapped.
 *
 * A write at a negative index never means anything to the ring, so the guard drops it: the
 * rows it carried are exactly the ones the reflow meant to trim (it fires its trim event for
 * them too). Installed once per process on the ring's class; a no-op if xterm's shape differs.
 */
import type { Terminal as XTerminal } from '@xterm/headless';
import { buffersOf, type CoreLines } from './xterm-internals.js';

type RowRing = Pick<CoreLines, 'set'>;

const GUARDED = Symbol.for('corral.xtermNegativeSetGuard');

/** Makes every xterm row ring in this process ignore writes at negative indexes. */
export function guardReflowTrim(xterm: XTerminal): void {
  const lines: Partial<RowRing> | undefined = buffersOf(xterm)?.normal?.lines;
  if (typeof lines?.set !== 'function') return;
  const ring = Object.getPrototypeOf(lines) as RowRing & { [GUARDED]?: true };
  if (ring[GUARDED] || !Object.prototype.hasOwnProperty.call(ring, 'set')) return;
  const set = ring.set;
  ring.set = function guardedSet(this: RowRing, index, value): void {
    if (index < 0) return;
    set.call(this, index, value);
  };
  ring[GUARDED] = true;
}
