/**
 * What the client's own terminal can do (SPEC §1: the outer terminal belongs to the client).
 * Read from the environment the client runs in — over ssh that is the remote login's TERM and
 * COLORTERM, which ssh forwards — never from the server's environment. Pure.
 */
import type { ClientCapabilities } from '../contract/frame-protocol.js';

type Env = Record<string, string | undefined>;

/** Terminals known to lack the xterm reports (mouse, focus, paste) and OSC extensions. */
const PLAIN_TERMS = new Set(['dumb', 'linux', 'vt100', 'vt102', 'vt220', 'cons25']);

/**
 * Terminals that draw 24-bit colour and say so only by their TERM (ssh does not forward
 * COLORTERM by default, their TERM does travel): each one's own terminfo entry declares RGB.
 */
const TRUECOLOR_TERMS = new Set(['xterm-kitty', 'xterm-ghostty', 'alacritty', 'foot', 'foot-extra', 'wezterm']);

/**
 * How many colours the terminal shows, as ncurses and tmux read it: COLORTERM=truecolor|24bit
 * or a `-direct` TERM → 24-bit; a `256color` TERM → the 256 palette; any other TERM (`xterm`,
 * `screen`, `linux`, `vt100`) advertises 8 or 16 → 16.
 */
export function detectColors(term: string, colorterm: string): ClientCapabilities['colors'] {
  if (colorterm === 'truecolor' || colorterm === '24bit' || term.endsWith('-direct') || TRUECOLOR_TERMS.has(term)) return 16777216;
  return term.includes('256color') ? 256 : 16;
}

export function detectCapabilities(env: Env): ClientCapabilities {
  const term = (env.TERM ?? '').toLowerCase();
  const colorterm = (env.COLORTERM ?? '').toLowerCase();
  const plain = PLAIN_TERMS.has(term) || term === '';
  const xtermLike = !plain;
  const colors = detectColors(term, colorterm);
  return {
    truecolor: colors === 16777216,
    colors,
    mouse: xtermLike,
    bracketedPaste: xtermLike,
    focusEvents: xtermLike,
    // Unknown OSCs are ignored by xterm-likes; the Linux console would print them.
    osc52: xtermLike,
    // Mode 2026 is a DEC private mode: a terminal without it ignores the set/reset.
    synchronizedOutput: xtermLike,
    notifications: xtermLike,
  };
}
