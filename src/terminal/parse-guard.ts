/**
 * Keeps one pane's odd output from breaking its terminal. xterm.js has input it throws on —
 * e.g. `CSI 1 J` with the cursor in the last column of the last row of a pane that has not
 * scrolled yet, where 6.0's eraseInDisplay reads a row past the buffer.
 * An exception escaping xterm's parser leaves its write queue stuck, so every later byte of
 * the pane would wait forever. The guard catches it inside the parse: the rest of that one
 * read is dropped, the parser is reset to its ground state, and the pane goes on.
 *
 * Uses xterm's private `_core._inputHandler`; without it, nothing is guarded (as before).
 */
import type { Terminal as XTerminal } from '@xterm/headless';

interface InputHandlerInternals {
  parse?: (data: string | Uint8Array, promiseResult?: boolean) => void | Promise<boolean>;
  _parser?: { reset?: () => void };
}

/** Wraps the terminal's parse so a throw ends that write, not the terminal; true if installed. */
export function guardParser(xterm: XTerminal, onError: (error: unknown) => void): boolean {
  const handler = (xterm as unknown as { _core?: { _inputHandler?: InputHandlerInternals } })._core?._inputHandler;
  const parse = handler?.parse;
  if (!handler || typeof parse !== 'function') return false;
  handler.parse = (data, promiseResult) => {
    try {
      return parse.call(handler, data, promiseResult);
    } catch (error) {
      handler._parser?.reset?.();
      onError(error);
      return undefined;
    }
  };
  return true;
}
