/**
 * Which processes run inside a directory: any process of this user whose working directory
 * is in it — a pane's shell or agent of any corral server, or a dev server started from one.
 * A worktree such a process runs in is never removed (SPEC §15): deleting a directory under a
 * running program leaves it working on files that are gone.
 */
import { readdirSync, readlinkSync, statSync } from 'node:fs';
import { isInside } from './paths.js';

/** How /proc is read (a seam: tests give a made-up table). */
export interface CwdTable {
  /** Every pid there is. */
  pids(): number[];
  /** A process's working directory, or null when it is gone or not readable (another user's). */
  cwd(pid: number): string | null;
}

const PROC_CWD: CwdTable = {
  pids: () => {
    try {
      return readdirSync('/proc').flatMap((name) => (/^\d+$/.test(name) ? [Number(name)] : []));
    } catch {
      return [];
    }
  },
  cwd: (pid) => {
    try {
      // Only our own processes: another user's is not ours to keep a directory for, and unreadable anyway.
      if (statSync(`/proc/${pid}`).uid !== process.getuid?.()) return null;
      return readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      return null;
    }
  },
};

/** The pids of processes whose working directory is `dir` or below it (this process excepted). */
export function processesInside(dir: string, table: CwdTable = PROC_CWD): number[] {
  const found: number[] = [];
  for (const pid of table.pids()) {
    if (pid === process.pid) continue;
    const cwd = table.cwd(pid);
    if (cwd !== null && isInside(cwd, dir)) found.push(pid);
  }
  return found;
}
