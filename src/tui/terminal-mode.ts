/**
 * Puts the outer terminal into the TUI's mode — alternate screen, raw input, SGR mouse,
 * focus reports, bracketed paste, modified keys reported (kitty protocol / modifyOtherKeys) — and restores it exactly once however the process ends:
 * quit, an uncaught exception, SIGTERM or SIGHUP. Nothing is left behind (no raw mode,
 * mouse mode or hidden cursor).
 */

const ENTER = [
  '\x1b[?1049h', // alternate screen
  // Modified keys told apart (Shift+Enter ≠ Enter): kitty's disambiguate level, pushed on the
  // alternate screen's own stack, and xterm's modifyOtherKeys 1 for terminals without kitty's.
  '\x1b[>1u',
  '\x1b[>4;1m',
  // A terminal that misread either as SGR would now draw in odd attributes: reset.
  '\x1b[0m',
  '\x1b[?1000h', // mouse press/release
  '\x1b[?1002h', // mouse drag
  '\x1b[?1006h', // SGR mouse encoding
  '\x1b[?1004h', // focus in/out reports
  '\x1b[?2004h', // bracketed paste
  '\x1b[?25l', // cursor hidden until the first frame places it
].join('');

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
export function enterTerminalMode(stdin: NodeJS.ReadStream, stdout: NodeJS.WriteStream): TerminalMode {
  let restored = false;
  if (stdin.isTTY) stdin.setRawMode(true);
  stdout.write(ENTER);
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
