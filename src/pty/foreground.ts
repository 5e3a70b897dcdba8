/**
 * Linux /proc helpers: which process owns a pane's terminal, its argv and cwd.
 * Each call reads a handful of small files; callers throttle (see PaneHost's cache) and
 * every helper tolerates the process vanishing mid-read by returning null.
 *
 * Every read goes through a ProcessTable (the live one reads /proc), so the logic above the
 * reads — foreground group, agent detection — runs in unit tests against a table of made-up
 * processes.
 */
import { readdirSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';

/** The fields of /proc/<pid>/stat that corral uses. */
export interface ProcStat {
  pid: number;
  /** Executable name, at most 15 chars; may contain spaces and parentheses. */
  comm: string;
  /** R, S, D, Z (zombie), T, … */
  state: string;
  ppid: number;
  pgrp: number;
  session: number;
  /** The controlling terminal's device number (as `st_rdev` encodes it); 0 without one. */
  ttyNr: number;
  /** Foreground process group of the controlling terminal; -1 without one. */
  tpgid: number;
}

export interface ForegroundProcess {
  pid: number;
  pgid: number;
  argv: string[];
  cwd: string | null;
  /** The shell itself is in the foreground: it sits at its prompt. */
  isShell: boolean;
  /**
   * The leader is inside execve: the kernel has given it its new name (comm, which is what
   * `argv` holds) but not yet its new command line. A moment later argv is complete, so a
   * reading with this flag must not be cached.
   */
  execing?: true;
}

/** The raw per-process reads corral makes; every method returns null when the process is gone. */
export interface ProcessTable {
  /** /proc/<pid>/stat. */
  stat(pid: number): ProcStat | null;
  /** /proc/<pid>/cmdline split at NULs (possibly empty: kernel threads, zombies). */
  cmdline(pid: number): string[] | null;
  /** /proc/<pid>/cwd's target. */
  cwd(pid: number): string | null;
  /** /proc/<pid>/exe's target. */
  exe(pid: number): string | null;
  /** Direct children of every thread of `pid`; [] when gone, null where the kernel keeps no children files. */
  children(pid: number): number[] | null;
  /** Every pid there is. */
  pids(): number[];
  /** `file` as process `pid` would open it (relative to its cwd), through symlinks. */
  realpath(pid: number, file: string): string | null;
}

/**
 * Field positions in /proc/<pid>/stat counted from the field after comm (which is field 2),
 * per proc(5): state is field 3, ppid 4, pgrp 5, session 6, tty_nr 7, tpgid 8.
 */
const STAT_FIELD = {
  state: 0,
  ppid: 1,
  pgrp: 2,
  session: 3,
  ttyNr: 4,
  tpgid: 5,
} as const;

/** Parse the text of /proc/<pid>/stat; null if it is not in the expected shape. */
export function parseStat(text: string): ProcStat | null {
  const open = text.indexOf('(');
  // comm may itself contain ") ", so the fields start after the LAST ')'.
  const close = text.lastIndexOf(')');
  if (open < 0 || close < open) return null;
  const pid = Number.parseInt(text.slice(0, open).trim(), 10);
  const fields = text.slice(close + 1).trim().split(/\s+/);
  const num = (i: number): number => Number.parseInt(fields[i] ?? '', 10);
  const stat: ProcStat = {
    pid,
    comm: text.slice(open + 1, close),
    state: fields[STAT_FIELD.state] ?? '',
    ppid: num(STAT_FIELD.ppid),
    pgrp: num(STAT_FIELD.pgrp),
    session: num(STAT_FIELD.session),
    ttyNr: num(STAT_FIELD.ttyNr),
    tpgid: num(STAT_FIELD.tpgid),
  };
  const numbers = [stat.pid, stat.ppid, stat.pgrp, stat.session, stat.ttyNr, stat.tpgid];
  return numbers.every(Number.isFinite) ? stat : null;
}

function readOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function linkOrNull(file: string): string | null {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
}

/** The real /proc. */
export const PROC: ProcessTable = {
  stat(pid) {
    const text = readOrNull(`/proc/${pid}/stat`);
    return text === null ? null : parseStat(text);
  },
  cmdline(pid) {
    const raw = readOrNull(`/proc/${pid}/cmdline`);
    if (raw === null) return null;
    const argv = raw.split('\0');
    if (argv[argv.length - 1] === '') argv.pop();
    return argv;
  },
  cwd: (pid) => linkOrNull(`/proc/${pid}/cwd`),
  exe: (pid) => linkOrNull(`/proc/${pid}/exe`)?.replace(/ \(deleted\)$/, '') ?? null,
  children(pid) {
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      return [];
    }
    const children: number[] = [];
    for (const tid of tids) {
      let text: string;
      try {
        text = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8');
      } catch (error) {
        // Kernels without CONFIG_PROC_CHILDREN have no such file at all.
        if ((error as NodeJS.ErrnoException).code === 'ENOENT' && tid === String(pid)) return null;
        continue;
      }
      for (const word of text.split(' ')) if (word !== '') children.push(Number(word));
    }
    return children;
  },
  pids() {
    let entries: string[];
    try {
      entries = readdirSync('/proc');
    } catch {
      return [];
    }
    return entries.filter((name) => /^\d+$/.test(name)).map(Number);
  },
  realpath(pid, file) {
    try {
      const cwd = path.isAbsolute(file) ? null : readlinkSync(`/proc/${pid}/cwd`);
      return realpathSync(cwd === null ? file : path.resolve(cwd, file));
    } catch {
      return null;
    }
  },
};

/** /proc/<pid>/stat, or null if the process is gone. */
export function readStat(pid: number, table: ProcessTable = PROC): ProcStat | null {
  return table.stat(pid);
}

/** The process's argv (falls back to [comm] for processes with an empty cmdline). */
export function processArgv(pid: number, table: ProcessTable = PROC): string[] | null {
  const argv = table.cmdline(pid);
  if (argv === null) return null;
  if (argv.length > 0) return argv;
  const stat = table.stat(pid);
  return stat ? [stat.comm] : null;
}

/** The process's working directory, or null if it is gone or not ours to read. */
export function processCwd(pid: number, table: ProcessTable = PROC): string | null {
  return table.cwd(pid);
}

/** Every process whose session id is `sid` (a pane's shell pid): a scan of /proc, not cheap. */
export function sessionProcesses(sid: number, table: ProcessTable = PROC): ProcStat[] {
  const found: ProcStat[] = [];
  for (const pid of table.pids()) {
    const stat = table.stat(pid);
    if (stat && stat.session === sid) found.push(stat);
  }
  return found;
}

/** The process leading the terminal's foreground process group, or null if none can be read. */
export function foregroundProcess(shellPid: number, table: ProcessTable = PROC): ForegroundProcess | null {
  const shell = table.stat(shellPid);
  if (!shell || shell.tpgid <= 0) return null;
  let leader = shell.tpgid === shellPid ? shell : table.stat(shell.tpgid);
  if (!leader || leader.pgrp !== shell.tpgid) {
    // The group leader may have exited while the rest of its pipeline runs on.
    const members = sessionProcesses(shell.session, table).filter((p) => p.pgrp === shell.tpgid && p.state !== 'Z');
    members.sort((a, b) => a.pid - b.pid);
    leader = members[0] ?? null;
  }
  if (!leader) return null;
  const cmdline = table.cmdline(leader.pid);
  if (!cmdline) return null;
  const found: ForegroundProcess = {
    pid: leader.pid,
    pgid: leader.pgrp,
    argv: cmdline.length > 0 ? cmdline : [leader.comm],
    cwd: table.cwd(leader.pid),
    isShell: leader.pgrp === shell.pgrp,
  };
  // A live process's command line is empty only between execve's new memory and its argv
  // being laid out (a zombie's is empty for good).
  if (cmdline.length === 0 && leader.state !== 'Z') found.execing = true;
  return found;
}

/** True when the shell's own process group owns the terminal (no foreground job). */
export function isShellAtPrompt(shellPid: number, table: ProcessTable = PROC): boolean | null {
  const shell = table.stat(shellPid);
  if (!shell || shell.tpgid <= 0) return null;
  return shell.tpgid === shell.pgrp;
}
