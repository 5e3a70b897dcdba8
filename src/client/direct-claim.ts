/**
 * The client's half of "direct tty" (docs/clients.md): whether to offer its terminal to the
 * server, and the claim describing it. When the server takes it, keys and frames go between
 * the server and the terminal without this process in the middle (tmux's four-process echo
 * path instead of six); the client only holds the terminal mode, forwards size changes and
 * signals, and restores the terminal when the server hands it back.
 *
 * Offered only when it can work: Linux (the server checks through /proc), stdin and stdout the
 * same terminal, that terminal a /dev/pts device, and `CORRAL_CLIENT_RELAY` not set to 1. The
 * server checks everything again itself (src/tui/direct-tty.ts); nothing here is trusted.
 * Node builtins only: the client bundle stays lean.
 */
import { fstatSync, readlinkSync, statSync } from 'node:fs';
import { bootId } from '../boot-id.js';
import type { DirectClaim } from '../contract/frame-protocol.js';

/** The claim to send, or null: relay (and why, for the tests and `CORRAL_DEBUG`-style reading). */
export function directClaim(socketPath: string, env: NodeJS.ProcessEnv = process.env): DirectClaim | null {
  if (env.CORRAL_CLIENT_RELAY === '1' || process.platform !== 'linux') return null;
  if (!process.stdin.isTTY || !process.stdout.isTTY) return null;
  try {
    const path = readlinkSync('/proc/self/fd/0');
    if (!/^\/dev\/pts\/\d+$/.test(path)) return null;
    const input = fstatSync(0);
    const output = fstatSync(1);
    // The server writes frames where stdout would have: they must be the same terminal.
    if (input.rdev !== output.rdev || input.ino !== output.ino || input.dev !== output.dev) return null;
    const boot = bootId();
    if (!boot) return null;
    return { path, dev: input.dev, ino: input.ino, rdev: input.rdev, bootId: boot, socketIno: statSync(socketPath).ino };
  } catch {
    return null;
  }
}
