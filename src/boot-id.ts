/**
 * The kernel's boot id: equal in two processes only on the same machine, in the same boot. A
 * direct-tty claim carries the client's, and the server compares it with its own
 * (src/client/direct-claim.ts, src/tui/direct-tty.ts). Linux only: '' where it cannot be read.
 */
import { readFileSync } from 'node:fs';

export function bootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return '';
  }
}
