/**
 * Whether xterm.js would print plain ASCII at its cursor exactly as a terminal in the default
 * pen does — insert mode off, the ASCII character set, no SGR attributes or colours set — the
 * pane-side condition of echo prediction (src/screen/echo-prediction.ts, Compositor.predictEcho).
 * Reads xterm.js private state (`_core._inputHandler._curAttrData`,
 * `_core._charsetService.charset`/`glevel`, verified against @xterm/headless 6.0); if it is
 * not there, nothing is predicted.
 */
import type { Terminal } from '@xterm/headless';

interface XtermInternals {
  _core?: {
    _inputHandler?: { _curAttrData?: { fg?: number; bg?: number } };
    _charsetService?: { charset?: unknown; glevel?: number };
  };
}

/** xterm would print plain ASCII at its cursor exactly as a terminal in the default pen does. */
export function printsPlainAscii(terminal: Terminal): boolean {
  if (terminal.modes.insertMode) return false;
  const core = (terminal as unknown as XtermInternals)._core;
  const attrs = core?._inputHandler?._curAttrData;
  const charsets = core?._charsetService;
  // `charset` is only assigned once an application designates one; unset or null is ASCII.
  if (!attrs || typeof charsets?.glevel !== 'number') return false;
  return attrs.fg === 0 && attrs.bg === 0 && charsets.charset == null;
}
