/**
 * Servers of this user still running in a socket directory whose socket file was deleted
 * under them (a tmp cleaner, an `rm -rf` of the runtime directory): they keep their panes but
 * nobody can reach them. `kill -USR1 PID` makes such a server bind its socket again (as tmux
 * does); this finds them, so a verb that finds no socket can say so.
 *
 * The kernel still lists a listening socket under the name it was bound to, and corral binds
 * `<dir>/.c<pid>` before linking it into place (src/server/socket-guard.ts): a listening
 * socket of that name whose pid is alive, ours, a corral, and holds that socket is one.
 * Node builtins only: the CLI's error path loads it.
 */
import { readFileSync, readlinkSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The kernel's "listening" flag in /proc/net/unix (`__SO_ACCEPTCON`). */
const ACCEPTCON = 0x10000;

export interface OrphanServer {
  pid: number;
}

/** Listening Unix sockets in /proc/net/unix text: bound path → socket inode. */
export function listeningSockets(procNetUnix: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const line of procNetUnix.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 8) continue;
    const flags = Number.parseInt(fields[3]!, 16);
    if (!(flags & ACCEPTCON)) continue;
    // A path may hold spaces: everything from the eighth field on.
    found.set(fields.slice(7).join(' '), Number(fields[6]));
  }
  return found;
}

function holdsSocket(pid: number, inode: number): boolean {
  const fdDir = `/proc/${pid}/fd`;
  try {
    return readdirSync(fdDir).some((fd) => {
      try {
        return readlinkSync(join(fdDir, fd)) === `socket:[${inode}]`;
      } catch {
        return false;
      }
    });
  } catch {
    return false;
  }
}

function isOurCorral(pid: number): boolean {
  try {
    if (statSync(`/proc/${pid}`).uid !== (process.getuid?.() ?? 0)) return false;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('corral');
  } catch {
    return false;
  }
}

/** Corral servers of this user listening in `dir` with no socket file left there. */
export function orphanServersIn(dir: string): OrphanServer[] {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const orphans: OrphanServer[] = [];
  const prefix = join(dir, '.c');
  for (const [path, inode] of listeningSockets(table)) {
    if (!path.startsWith(prefix)) continue;
    const pid = Number(path.slice(prefix.length));
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    if (isOurCorral(pid) && holdsSocket(pid, inode)) orphans.push({ pid });
  }
  return orphans;
}

/** What a user reads when no socket answers but an orphaned server of theirs runs in `dir`; '' when none does. */
export function orphanHint(dir: string): string {
  const orphans = orphanServersIn(dir);
  if (orphans.length === 0) return '';
  const commands = orphans.map((o) => `\`kill -USR1 ${o.pid}\``).join(' or ');
  const which = orphans.length === 1 ? 'a corral server of yours is' : `${orphans.length} corral servers of yours are`;
  return ` — but ${which} still running in ${dir} with its socket deleted: ${commands} makes it bind its socket again`;
}
