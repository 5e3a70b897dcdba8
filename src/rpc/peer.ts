/**
 * The caller at the other end of one connection, as the kernel knows it (SPEC §8). The
 * connection reads the peer's credentials once, when it is accepted; `place` reads /proc
 * when a method needs to know where the caller stands (an attaching client, a detach, a
 * hook), and checks afterwards that the process it read is still the one that connected.
 */
import type { CorralCore } from '../core/corral-core.js';
import { PeerCred, peerCredProblem } from '../pty/peer-cred.js';
import { PEER_PROC, PLACE_LIMITS, type PeerPlace } from '../pty/peer-place.js';
import type { Socket } from 'node:net';

/** sshd's process names: the daemon, and its per-session process since OpenSSH 9.8. */
const SSHD_NAMES = new Set(['sshd', 'sshd-session']);

/** The command names of `pid`'s ancestors, nearest first (bounded: real trees are shallow). */
function ancestry(pid: number): string[] {
  const names: string[] = [];
  let next = PEER_PROC.stat(pid)?.ppid ?? 0;
  for (let i = 0; next > 1 && i < PLACE_LIMITS.maxAncestors; i++) {
    const stat = PEER_PROC.stat(next);
    if (!stat) break;
    names.push(stat.comm);
    next = stat.ppid;
  }
  return names;
}

/** What a handler may ask of its caller. */
export interface PeerCaller {
  /** The peer's pid from the kernel, or null when it could not be read. */
  readonly pid: number | null;
  /**
   * Where the caller stands relative to the panes, read now; `followTerminal` also follows
   * its terminal to the process typing into it (for an attaching client).
   */
  place(followTerminal: boolean): PeerPlace;
  /** Whether sshd started the caller (one of its ancestors is sshd): a machine link's bridge. */
  startedBySsh(): boolean;
  /** `place`, read once for this connection and kept (for a caller that asks on every key). */
  placeOnce(followTerminal: boolean): PeerPlace;
}

/** The peer of an accepted connection; `release` when the connection closes. */
export function peerOf(socket: Socket, core: CorralCore): PeerCaller & { release(): void } {
  const cred = PeerCred.of(socket);
  /** A link's bridge asks on every key it carries: its answer is read once per connection. */
  let linkAnswer: boolean | null = null;
  let placed: PeerPlace | null = null;
  return {
    pid: cred?.pid ?? null,
    place(followTerminal) {
      if (!cred) return { kind: 'unknown', why: peerCredProblem() || 'the kernel gave no credentials for this connection' };
      const place = core.placeProcess(cred.pid, followTerminal);
      // Read after the fact: a pid reused since connect() would have answered for someone else.
      return cred.stillThere() ? place : { kind: 'unknown', why: `process ${cred.pid} exited before it could be placed` };
    },
    placeOnce(followTerminal) {
      placed ??= this.place(followTerminal);
      return placed;
    },
    startedBySsh() {
      if (!cred) return false;
      if (linkAnswer === null) {
        const chain = ancestry(cred.pid);
        linkAnswer = cred.stillThere() && chain.some((comm) => SSHD_NAMES.has(comm));
      }
      return linkAnswer;
    },
    release: () => cred?.release(),
  };
}
