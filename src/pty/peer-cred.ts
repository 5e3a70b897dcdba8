/**
 * Who connected to the server's socket, from the kernel (SPEC §8: "from the kernel's peer
 * credentials, never from what it claims"). Node has no SO_PEERCRED, so corral carries one
 * small N-API addon of its own (`native/peer_cred.c`, built by scripts/build.mjs with
 * node-gyp, like node-pty): the pid, uid and gid of the process that called connect(), and
 * on Linux ≥ 6.5 a pidfd naming that very process, so a pid reused after the peer exited is
 * never mistaken for it.
 *
 * When the addon cannot be loaded (not built, not Linux) every peer is unidentified, and
 * what depends on knowing the peer fails closed (docs/security.md, "Clients and hooks").
 */
import { closeSync } from 'node:fs';
import type { Socket } from 'node:net';
import { addonLoadError, loadAddon } from '../native-addon.js';

/** Why peers cannot be identified on this server ('' when they can). */
export function peerCredProblem(): string {
  if (process.platform !== 'linux') return 'peer credentials are read through /proc, which needs Linux';
  return loadAddon() ? '' : `the peer-credential addon did not load (${addonLoadError()}); \`corral doctor\` says how to build it`;
}

/** The process at the other end of a connection, as the kernel recorded it at connect(). */
export class PeerCred {
  private released = false;

  private constructor(
    readonly pid: number,
    readonly uid: number,
    readonly gid: number,
    /** A pidfd for exactly that process, or -1 (older kernel). */
    private pidfd: number,
  ) {}

  /** Reads the peer of an accepted unix socket; null when the kernel (or this build) cannot say. */
  static of(socket: Socket): PeerCred | null {
    const native = loadAddon();
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (!native || typeof fd !== 'number' || fd < 0) return null;
    const cred = native.peerCred(fd);
    if (!cred || cred.pid <= 0) return null;
    return new PeerCred(cred.pid, cred.uid, cred.gid, native.peerPidfd(fd));
  }

  /**
   * Whether the process is still the one that connected: after reading its /proc entries,
   * this says they were its own and not those of a process that got its pid later. Without
   * a pidfd it cannot tell, and says yes (docs/security.md names that limit).
   */
  stillThere(): boolean {
    if (this.released) return false;
    if (this.pidfd < 0) return true;
    return loadAddon()?.pidfdAlive(this.pidfd) ?? false;
  }

  /** Closes the pidfd (the connection is gone). */
  release(): void {
    this.released = true;
    if (this.pidfd < 0) return;
    try {
      closeSync(this.pidfd);
    } catch {
      // Already closed: nothing held.
    }
    this.pidfd = -1;
  }
}
