/**
 * When may output be shown before xterm.js has parsed it? Only when the result is certain:
 * printable ASCII that xterm would print cell by cell in the default pen — insert mode off,
 * the ASCII character set, no SGR attributes or colours set. The compositor adds the checks
 * on its side (see Compositor.predictEcho). Reads xterm.js private state
 * (`_core._inputHandler._curAttrData`, `_core._charsetService.charset`/`glevel`, verified against
 * @xterm/headless 6.0); if it is not there, nothing is predicted.
 */
import type { Terminal } from '@xterm/headless';

/** Longest output predicted: a keystroke's echo, or a short burst of typing. */
export const MAX_PREDICTED = 32;

interface XtermInternals {
  _core?: {
    _inputHandler?: { _curAttrData?: { fg?: number; bg?: number } };
    _charsetService?: { charset?: unknown; glevel?: number };
  };
}

/** `data` as text when it is 1…MAX_PREDICTED printable ASCII characters (0x20–0x7e), else null. */
export function printableAscii(data: string | Uint8Array): string | null {
  const n = data.length;
  if (n === 0 || n > MAX_PREDICTED) return null;
  let text = '';
  for (let i = 0; i < n; i++) {
    const code = typeof data === 'string' ? data.charCodeAt(i) : (data[i] as number);
    if (code < 0x20 || code > 0x7e) return null;
    text += String.fromCharCode(code);
  }
  return text;
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
