/**
 * Puts the outer terminal into the TUI's mode — alternate screen, raw input, SGR mouse,
 * focus reports, bracketed paste, modified keys reported (kitty protocol / modifyOtherKeys) — and restores it exactly once however the process ends:
 * quit, an uncaught exception, SIGTERM or SIGHUP. Nothing is left behind (no raw mode,
 * mouse mode or hidden cursor). Run by the thin client (src/client/) on its own terminal:
 * node builtins only, so the CLI bundle may load it.
 */

/** The reports a terminal is asked for; a client leaves out what its terminal lacks. */
export interface TerminalModeFeatures {
  mouse: boolean;
  focusEvents: boolean;
  bracketedPaste: boolean;
}

const ALL_FEATURES: TerminalModeFeatures = { mouse: true, focusEvents: true, bracketedPaste: true };

export function enterSequence(features: TerminalModeFeatures = ALL_FEATURES): string {
  return [
    '\x1b[?1049h', // alternate screen
    // Modified keys told apart (Shift+Enter ≠ Enter): kitty's disambiguate level, pushed on the
    // alternate screen's own stack, and xterm's modifyOtherKeys 1 for terminals without kitty's.
    '\x1b[>1u',
    '\x1b[>4;1m',
    // A terminal that misread either as SGR would now draw in odd attributes: reset.
    '\x1b[0m',
    features.mouse ? '\x1b[?1000h' : '', // mouse press/release
    features.mouse ? '\x1b[?1002h' : '', // mouse drag
    features.mouse ? '\x1b[?1006h' : '', // SGR mouse encoding
    features.focusEvents ? '\x1b[?1004h' : '', // focus in/out reports
    features.bracketedPaste ? '\x1b[?2004h' : '', // bracketed paste
    '\x1b[?25l', // cursor hidden until the first frame places it
  ].join('');
}

/** Everything is turned off on the way out, asked for or not: harmless, and leaves nothing on. */
const LEAVE = [
  '\x1b[<u', // pop the kitty flags pushed above
  '\x1b[>4m', // modifyOtherKeys back to the terminal's default
  '\x1b[?2004l',
  '\x1b[?1004l',
  '\x1b[?1006l',
  '\x1b[?1002l',
  '\x1b[?1000l',
  '\x1b[0m',
  '\x1b[0 q', // default cursor shape
  '\x1b[?25h',
  '\x1b[?1049l',
].join('');

export interface TerminalMode {
  restore(): void;
}

/** Enters the TUI mode on the given streams; `restore` is idempotent. */
export function enterTerminalMode(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream, features: TerminalModeFeatures = ALL_FEATURES): TerminalMode {
  let restored = false;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdout.write(enterSequence(features));
  const restore = () => {
    if (restored) return;
    restored = true;
    try {
      stdout.write(LEAVE);
    } catch {
      // The terminal is gone (SIGHUP): nothing to restore.
    }
    if (stdin.isTTY) {
      try {
        stdin.setRawMode(false);
      } catch {
        // Same as above.
      }
    }
  };
  process.once('exit', restore);
  return { restore };
}
