/**
 * What the client's own terminal can do (SPEC §1: the outer terminal belongs to the client).
 * Read from the environment the client runs in — over ssh that is the remote login's TERM and
 * COLORTERM, which ssh forwards — never from the server's environment. Pure.
 */
import type { ClientCapabilities } from './frame-protocol.js';

type Env = Record<string, string | undefined>;

/** Terminals known to lack the xterm reports (mouse, focus, paste) and OSC extensions. */
const PLAIN_TERMS = new Set(['dumb', 'linux', 'vt100', 'vt102', 'vt220', 'cons25']);

export function detectCapabilities(env: Env): ClientCapabilities {
  const term = (env.TERM ?? '').toLowerCase();
  const colorterm = (env.COLORTERM ?? '').toLowerCase();
  const plain = PLAIN_TERMS.has(term) || term === '';
  const xtermLike = !plain;
  return {
    truecolor: colorterm === 'truecolor' || colorterm === '24bit' || /-direct$/.test(term),
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
