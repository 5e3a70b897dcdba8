/**
 * How a pane's terminal takes its input: whether the program in it reads keys itself (a TUI
 * or line editor turned the line discipline's ICANON and ECHO off) or the kernel still
 * collects and echoes lines for it (a shell command that has not set its terminal up yet, or a
 * plain line-mode program). An agent that has not taken its keys over is not ready for a
 * prompt: text typed then is echoed by the kernel, where it looks landed, and is flushed or
 * misread when the program switches modes (docs/agents-live.md, "leave-one-out").
 *
 * Read with tcgetattr on the pty master through corral's native addon (src/native-addon.ts);
 * null when the addon is missing or the fd is gone.
 */
import { loadAddon } from '../native-addon.js';

/** The Linux values of the two c_lflag bits that matter here (asm-generic/termbits.h). */
const ICANON = 0o2;
const ECHO = 0o10;

export interface LineMode {
  /** The kernel assembles lines (the program gets input only at Enter). */
  canonical: boolean;
  /** The kernel echoes what is typed. */
  echo: boolean;
}

/** The line modes of the terminal behind pty master `fd`, or null when they cannot be read. */
export function lineModeOf(fd: number): LineMode | null {
  const flags = loadAddon()?.ttyLocalFlags(fd) ?? -1;
  if (flags < 0) return null;
  return { canonical: (flags & ICANON) !== 0, echo: (flags & ECHO) !== 0 };
}

/** True when the program reads its keys itself: neither line assembly nor kernel echo. */
export function readsKeysItself(mode: LineMode): boolean {
  return !mode.canonical && !mode.echo;
}
