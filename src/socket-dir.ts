/**
 * The socket directory is trusted only when it is private (SPEC §8): a real directory (not
 * a symlink) owned by the user, with no group or other permission bits. Anyone else who can
 * write there could swap the socket for their own (and read every request, prompts included)
 * or the pane launcher (and run code as this user: as root, as root). Like tmux, the server
 * and the CLI refuse such a directory with a message naming it and the fix; corral never
 * chmods or chowns a directory to make it pass.
 * On the CLI path: node builtins and the dependency-free protocol module only.
 */
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import { CorralError } from './contract/protocol.js';

function currentUid(): number {
  return process.getuid?.() ?? 0;
}

/** `path` as one shell word, for the fix a message suggests. */
function shellWord(path: string): string {
  return /^[A-Za-z0-9_./+-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** What is wrong with `stats` as a private directory of `uid`: [what it is, how to fix it], or null. */
function problemOf(dir: string, stats: Stats, uid: number): [string, string] | null {
  const word = shellWord(dir);
  if (stats.isSymbolicLink()) {
    return ['is a symbolic link', `remove the link (rm ${word}) and let corral create the directory, or use another --socket`];
  }
  if (!stats.isDirectory()) return ['is not a directory', `remove it (rm ${word}) or use another --socket`];
  if (stats.uid !== uid) {
    return [`is owned by uid ${stats.uid}, not by you (uid ${uid})`, `have its owner or root remove it, or use another --socket`];
  }
  if ((stats.mode & 0o077) !== 0) {
    const mode = (stats.mode & 0o7777).toString(8).padStart(4, '0');
    return [`can be used by group or others (mode ${mode})`, `make it yours alone (chmod 700 ${word}) or use another --socket`];
  }
  return null;
}

function unsafeDirError(dir: string, [what, fix]: [string, string]): CorralError {
  return new CorralError(
    'unsafe_socket_dir',
    `refusing the socket directory ${dir}: it ${what}, so another user could replace the socket; ${fix}`,
    { path: dir },
  );
}

function lstatOrNull(dir: string): Stats | null {
  try {
    return lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Throws `unsafe_socket_dir` unless `dir` is private to `uid`; a missing directory passes (nothing to trust yet). */
export function assertPrivateDir(dir: string, uid: number = currentUid()): void {
  const stats = lstatOrNull(dir);
  const problem = stats && problemOf(dir, stats, uid);
  if (problem) throw unsafeDirError(dir, problem);
}

/**
 * Makes sure `dir` exists and is private to `uid`: creates it (and missing parents) 0700 when
 * absent, then checks what is there — also what another user may have created in between.
 */
export function ensurePrivateDir(dir: string, uid: number = currentUid()): void {
  if (lstatOrNull(dir) === null) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatOrNull(dir);
  if (stats === null) throw new CorralError('internal_error', `could not create the socket directory ${dir}`, { path: dir });
  const problem = problemOf(dir, stats, uid);
  if (problem) throw unsafeDirError(dir, problem);
}
