/**
 * Bounds the repeat count of the CSI sequences xterm carries out one step per count. xterm 6
 * runs `CSI n L` (insert lines), `M` (delete lines), `S` / `T` (scroll) as a loop of n row
 * moves and `CSI n b` (repeat the last character) as n prints, and takes n up to 2^31 - 1: one
 * `ESC[999999L` printed in a pane held the whole server's event loop for 3 s, `ESC[2147483647L`
 * would for hours (found by the byte-stream fuzzer, issue 42). tmux bounds the same counts.
 *
 * A count past the screen's height does nothing more than the height itself (the rows
 * between the cursor and the margin are all replaced), so those run with the height; a repeat
 * runs at most a screenful of characters, so the screen shows what the full count would.
 * Uses xterm's private input handler; if its shape ever changes, nothing is clamped.
 */
import type { Terminal as XTerminal } from '@xterm/headless';
import type { Disposable } from '../contract/disposable.js';

/** The CSI finals whose count moves rows, and xterm's handler of each. */
const ROW_COUNTED = { L: 'insertLines', M: 'deleteLines', S: 'scrollUp', T: 'scrollDown' } as const;
const REPEAT = { final: 'b', method: 'repeatPrecedingCharacter' } as const;

type Handler = (params: { params: Int32Array; length: number }) => boolean;
type InputHandler = Partial<Record<(typeof ROW_COUNTED)[keyof typeof ROW_COUNTED] | typeof REPEAT.method, Handler>>;

/** Installs the bounds on `xterm`; the returned disposer removes them. */
export function clampCounts(xterm: XTerminal): Disposable {
  const input = (xterm as unknown as { _core?: { _inputHandler?: InputHandler } })._core?._inputHandler;
  if (!input) return { dispose() {} };
  const clamp = (final: string, method: keyof InputHandler, limit: () => number): Disposable => {
    const handler = input[method];
    if (typeof handler !== 'function') return { dispose() {} };
    return xterm.parser.registerCsiHandler({ final }, (params) => {
      const count = params[0];
      const max = limit();
      // Within bounds (or sub-parameters, or more than one): xterm's own handler, as always.
      if (params.length !== 1 || typeof count !== 'number' || count <= max) return false;
      return handler.call(input, { params: Int32Array.of(max), length: 1 });
    });
  };
  const bounds = [
    ...Object.entries(ROW_COUNTED).map(([final, method]) => clamp(final, method, () => xterm.rows)),
    clamp(REPEAT.final, REPEAT.method, () => xterm.rows * xterm.cols),
  ];
  return { dispose: () => bounds.forEach((b) => b.dispose()) };
}
