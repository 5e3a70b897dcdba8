/**
 * The keyboard reporting a pane's application asked for, and when to stop believing it: an
 * application that exits without undoing its request (a crash, `kill -9`) would leave its
 * shell — and the next program run from it — getting `CSI 99;5u` for ctrl+c; so once the
 * shell is seen at its prompt after the request, the request is dropped.
 */
import type { PaneHost } from '../pty/pane-host.js';
import { PROC_CACHE } from '../pty/pane-host.js';
import type { KeyboardModesView } from '../terminal/keyboard-modes.js';

/** No enhanced reporting: legacy key encoding. */
export const NO_ENHANCEMENT: KeyboardModesView = Object.freeze({ kittyFlags: 0, modifyOtherKeys: 0 });

/**
 * Called for every key and every input sent to the pane; /proc is read only while a request
 * is in force, at most every 250 ms, and never trusting a look taken before the request.
 */
export function keyboardInForce(host: PaneHost): KeyboardModesView {
  const modes = host.terminal.keyboard;
  if (modes.kittyFlags === 0 && modes.modifyOtherKeys === 0) return NO_ENHANCEMENT;
  if (host.isShellAtPrompt(Math.min(PROC_CACHE.maxAgeMs, Date.now() - modes.changedAt))) {
    modes.reset();
    return NO_ENHANCEMENT;
  }
  return modes;
}
