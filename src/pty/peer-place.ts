/**
 * Where a process stands relative to the server's panes (SPEC §8, "Clients are a door too"):
 * inside a pane (its process tree, its session, its terminal, or a terminal whose other end
 * a pane's process holds), outside every pane with or without a terminal, or not known.
 *
 * The gate uses it for every caller whose input could come from a program: an attaching
 * client is view-only unless it is outside every pane with a real terminal of its own; a hook
 * counts only for the pane it runs in; a detach from inside a pane reaches only its own
 * clients. Everything is read from /proc, starting from the pid the kernel gave for the
 * socket's peer — never from what the peer says — and anything that cannot be read places
 * the process nowhere known, which every caller treats as "a program" (fail closed).
 *
 * Pure over a `PeerProcfs`, so the rules run in unit tests against made-up /proc trees.
 */
import { readdirSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import { PROC, type ProcStat } from './foreground.js';

/** What one fd of a process is, as far as the rules care. */
export type FdKind =
  /** A terminal device; `pts` is N for /dev/pts/N, null for a console or serial line. */
  | { kind: 'tty'; rdev: number; pts: number | null }
  /** Anything else: a pipe, a file, /dev/null, a socket. */
  | { kind: 'other' };

/** The /proc reads the rules make; each returns null when the process is gone or not readable. */
export interface PeerProcfs {
  stat(pid: number): ProcStat | null;
  /** The uid that owns the process. */
  uid(pid: number): number | null;
  /** What fd `fd` of the process is. */
  fd(pid: number, fd: number): FdKind | null;
  /** The pts numbers of the pty masters (/dev/ptmx) the process holds open. */
  ptyMasters(pid: number): number[] | null;
  /** Every pid there is (the fallback search for a terminal's master). */
  pids(): number[];
}

/** What the rules know of one live pane: its shell leads the pane's session on the pane's pty. */
export interface PaneProcess {
  surfaceId: number;
  /** The pane's first process (its shell): the session leader, so also the session id. */
  pid: number;
  /** The pane's pty as a device number (the shell's controlling terminal); null if unknown. */
  ttyRdev: number | null;
}

/** How a process was found to belong to a pane. */
export type PaneLink =
  /** The pane's shell is the process or one of its ancestors. */
  | 'process-tree'
  /** Its session is the pane's (the ancestry was cut, say by a reparented orphan). */
  | 'session'
  /** Its controlling terminal or fd 0 is the pane's pty. */
  | 'terminal'
  /** Its terminal is a pty whose master a process inside the pane holds (`script`, `pty.spawn`). */
  | 'terminal-master';

export type PeerPlace =
  | { kind: 'pane'; surfaceId: number; link: PaneLink }
  /** Outside every pane; `terminal`: fd 0 is a terminal. */
  | { kind: 'outside'; terminal: boolean }
  | { kind: 'unknown'; why: string };

/** Bounds on the walks, so no /proc shape can make them long. */
export const PLACE_LIMITS = {
  /** Ancestors followed; real trees are a few dozen deep. */
  maxAncestors: 4096,
  /** Terminals followed through the processes holding their masters (script in script in …). */
  maxTerminalHops: 4,
} as const;

export interface PlaceOptions {
  /** Follow fd 0's terminal to the process holding its master (for an attaching client). */
  followTerminal: boolean;
  /** The server's own pid: a terminal whose master it holds is one of its panes'. */
  serverPid: number;
  /** The server's uid: only this user's processes are searched for a terminal's master. */
  uid: number;
}

class Placer {
  private readonly byPid = new Map<number, PaneProcess>();
  private readonly byRdev = new Map<number, PaneProcess>();
  private readonly stats = new Map<number, ProcStat | null>();

  constructor(
    panes: readonly PaneProcess[],
    private readonly procfs: PeerProcfs,
    private readonly options: PlaceOptions,
  ) {
    for (const pane of panes) {
      this.byPid.set(pane.pid, pane);
      if (pane.ttyRdev) this.byRdev.set(pane.ttyRdev, pane);
    }
  }

  /** /proc/<pid>/stat, read once per placement: a holder's ancestry is the client's again. */
  private stat(pid: number): ProcStat | null {
    let stat = this.stats.get(pid);
    if (stat === undefined) {
      stat = this.procfs.stat(pid);
      this.stats.set(pid, stat);
    }
    return stat;
  }

  place(pid: number, hops: number): PeerPlace {
    const stat = this.stat(pid);
    if (!stat) return { kind: 'unknown', why: `process ${pid} is gone` };
    const ancestors = this.ancestors(stat);
    for (const ancestor of ancestors) {
      const pane = this.byPid.get(ancestor);
      if (pane) return inPane(pane, 'process-tree');
    }
    const sessionPane = this.byPid.get(stat.session);
    if (sessionPane) return inPane(sessionPane, 'session');
    const cttyPane = stat.ttyNr ? this.byRdev.get(stat.ttyNr) : undefined;
    if (cttyPane) return inPane(cttyPane, 'terminal');
    const input = this.procfs.fd(pid, 0);
    if (input === null) return { kind: 'unknown', why: `the input of process ${pid} cannot be read` };
    if (input.kind !== 'tty') return { kind: 'outside', terminal: false };
    const inputPane = this.byRdev.get(input.rdev);
    if (inputPane) return inPane(inputPane, 'terminal');
    if (!this.options.followTerminal || input.pts === null) return { kind: 'outside', terminal: true };
    return this.throughMaster(input.pts, ancestors, hops);
  }

  /** fd 0 is /dev/pts/`pts`: whoever holds its master decides (the terminal typing into it). */
  private throughMaster(pts: number, ancestors: readonly number[], hops: number): PeerPlace {
    if (hops >= PLACE_LIMITS.maxTerminalHops) return { kind: 'unknown', why: 'terminals nest too deep to follow' };
    const holders = this.masterHolders(pts, ancestors);
    for (const holder of holders) {
      if (holder === this.options.serverPid) return { kind: 'unknown', why: `/dev/pts/${pts} is a terminal of the server itself` };
      const place = this.place(holder, hops + 1);
      if (place.kind === 'pane') return { kind: 'pane', surfaceId: place.surfaceId, link: 'terminal-master' };
      if (place.kind === 'unknown') return place;
    }
    // No holder, or every holder outside the panes: a person's terminal (an emulator, sshd, an
    // outer tmux). A master held only by another user's process (a root sshd monitor) is no pane's.
    return { kind: 'outside', terminal: true };
  }

  /**
   * Processes holding /dev/pts/`pts`'s master: the nearest ancestor that holds it (the
   * emulator, sshd, tmux, `script` — whoever started the terminal's session), else every
   * process of this user that does (a scan, for a client whose ancestry was cut).
   */
  private masterHolders(pts: number, ancestors: readonly number[]): number[] {
    const holds = (pid: number) => this.procfs.ptyMasters(pid)?.includes(pts) ?? false;
    const near = ancestors.find(holds);
    if (near !== undefined) return [near];
    const found: number[] = [];
    for (const pid of this.procfs.pids()) {
      if (ancestors.includes(pid) || this.procfs.uid(pid) !== this.options.uid) continue;
      if (holds(pid)) found.push(pid);
    }
    return found;
  }

  /** The process itself and its ancestors, nearest first. */
  private ancestors(stat: ProcStat): number[] {
    const chain = [stat.pid];
    const seen = new Set(chain);
    let ppid = stat.ppid;
    while (ppid > 0 && !seen.has(ppid) && chain.length < PLACE_LIMITS.maxAncestors) {
      chain.push(ppid);
      seen.add(ppid);
      ppid = this.stat(ppid)?.ppid ?? 0;
    }
    return chain;
  }
}

function inPane(pane: PaneProcess, link: PaneLink): PeerPlace {
  return { kind: 'pane', surfaceId: pane.surfaceId, link };
}

/** Where process `pid` stands relative to `panes` (see the module comment). */
export function placeProcess(pid: number, panes: readonly PaneProcess[], procfs: PeerProcfs, options: PlaceOptions): PeerPlace {
  if (!Number.isInteger(pid) || pid <= 0) return { kind: 'unknown', why: 'no process' };
  const uid = procfs.uid(pid);
  if (uid === null) return { kind: 'unknown', why: `process ${pid} is gone` };
  if (uid !== options.uid) return { kind: 'unknown', why: `process ${pid} belongs to uid ${uid}` };
  return new Placer(panes, procfs, options).place(pid, 0);
}

/** A terminal device's path: /dev/pts/N, a virtual console, a serial line, the console. */
const TERMINAL_PATH = /^\/dev\/(?:pts\/(\d+)|tty[A-Za-z]*\d+|console)$/;

/** The pty master device every process opens to make a pty. */
const PTMX_PATHS = new Set(['/dev/ptmx', '/dev/pts/ptmx']);

/** `tty-index:` in a pty master's fdinfo: the N of its /dev/pts/N. */
const TTY_INDEX = /^tty-index:\s*(\d+)$/m;

/** The real /proc. */
export const PEER_PROC: PeerProcfs = {
  stat: (pid) => PROC.stat(pid),
  uid(pid) {
    try {
      return statSync(`/proc/${pid}`).uid;
    } catch {
      return null;
    }
  },
  fd(pid, fd) {
    let target: string;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch (error) {
      // A closed fd 0 is "no terminal"; anything else (gone, not ours) is unreadable.
      return (error as NodeJS.ErrnoException).code === 'ENOENT' && PROC.stat(pid) !== null ? { kind: 'other' } : null;
    }
    const match = TERMINAL_PATH.exec(target);
    if (!match) return { kind: 'other' };
    try {
      const st = statSync(`/proc/${pid}/fd/${fd}`);
      if (!st.isCharacterDevice()) return { kind: 'other' };
      return { kind: 'tty', rdev: st.rdev, pts: match[1] === undefined ? null : Number(match[1]) };
    } catch {
      return null;
    }
  },
  ptyMasters(pid) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      return null;
    }
    const masters: number[] = [];
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      if (!PTMX_PATHS.has(target)) continue;
      try {
        const index = TTY_INDEX.exec(readFileSync(`/proc/${pid}/fdinfo/${fd}`, 'utf8'));
        if (index) masters.push(Number(index[1]));
      } catch {
        // Closed meanwhile.
      }
    }
    return masters;
  },
  pids: () => PROC.pids(),
};
