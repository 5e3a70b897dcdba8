/**
 * The files of a saved session, on disk: where they live, the private directory, atomic
 * writes and reads that never follow a symlink. Node builtins only, so the CLI (`kill-server
 * --forget`) can import it without loading the server.
 *
 * Layout (SPEC §13), in `$XDG_STATE_HOME/corral/` (default `~/.local/state/corral/`, 0700):
 *   <session>.json                  the structure (0600), rewritten atomically
 *   <session>.scrollback/<surface>.z each pane's last lines with SGR colours, zlib (0600)
 *   <session>.json.corrupt-<time>   a file that could not be restored, moved aside
 */
import { constants, lstatSync, mkdirSync, type Stats } from 'node:fs';
import { open, readdir, rename, rm, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { resolveSessionName, resolveSocketPath } from '../paths.js';

type Env = Record<string, string | undefined>;

/** Far above any real session (20 panes ≈ 20 KB): a bigger file is not ours. */
export const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024;

/** `$XDG_STATE_HOME/corral` (an absolute XDG_STATE_HOME only, as the XDG spec says), else `~/.local/state/corral`. */
export function resolveStateDir(env: Env = process.env): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg !== undefined && xdg !== '' && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.local', 'state');
  return path.join(base, 'corral');
}

export interface SessionFiles {
  dir: string;
  state: string;
  scrollbackDir: string;
}

export function sessionFiles(dir: string, session: string): SessionFiles {
  return { dir, state: path.join(dir, `${session}.json`), scrollbackDir: path.join(dir, `${session}.scrollback`) };
}

/** The scrollback file of one pane, by surface id (stable across moves). */
export function scrollbackFile(files: SessionFiles, surfaceId: number): string {
  return path.join(files.scrollbackDir, `${surfaceId}.z`);
}

/** `lstat` of a path, or null when nothing is there (other errors are thrown). */
export function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** What is wrong with `dir` as a private directory, or null (as src/socket-dir.ts checks the socket's). */
function dirProblem(dir: string, stats: Stats): string | null {
  const uid = process.getuid?.() ?? 0;
  if (stats.isSymbolicLink()) return `${dir} is a symbolic link`;
  if (!stats.isDirectory()) return `${dir} is not a directory`;
  if (stats.uid !== uid) return `${dir} is owned by uid ${stats.uid}, not by you (uid ${uid})`;
  if ((stats.mode & 0o077) !== 0) return `${dir} can be used by group or others (mode ${(stats.mode & 0o777).toString(8)}; chmod 700 it)`;
  return null;
}

/** Creates `dir` 0700 when missing and checks it is a private directory; throws with the reason otherwise. */
export function ensurePrivateStateDir(dir: string): void {
  if (lstatOrNull(dir) === null) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const stats = lstatOrNull(dir);
  if (stats === null) throw new Error(`could not create ${dir}`);
  const problem = dirProblem(dir, stats);
  if (problem) throw new Error(`refusing the state directory: ${problem}`);
}

/** Writes `data` to `file` atomically: a temp file in the same directory, fsync, rename, fsync of the directory. */
export async function writeFileAtomic(file: string, data: Uint8Array | string): Promise<number> {
  const dir = path.dirname(file);
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // O_EXCL + O_NOFOLLOW: never write through a link someone planted under the temp name.
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  let bytes = 0;
  try {
    const { bytesWritten } = await handle.write(typeof data === 'string' ? Buffer.from(data) : data);
    bytes = bytesWritten;
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => {});
    await unlink(temp).catch(() => {});
    throw error;
  }
  await handle.close();
  try {
    // rename replaces a link at `file` itself; it never writes through it.
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDir(dir);
  return bytes;
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Reads a regular file without following a symlink; null when it does not exist. */
export async function readPrivateFile(file: string, maxBytes = MAX_STATE_FILE_BYTES): Promise<Buffer | null> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return null;
    if (code === 'ELOOP') throw new Error(`${file} is a symbolic link`);
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw new Error(`${file} is not a regular file`);
    if (stats.size > maxBytes) throw new Error(`${file} is ${stats.size} bytes, more than a saved session can be`);
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

/** A session saved on disk (SPEC §13), as `corral sessions` lists it. */
export interface SavedSessionSummary {
  name: string;
  path: string;
  saved_at: string | null;
  panes: number;
  agents: number;
}

/**
 * The sessions saved in the state directory: each `<session>.json` that is a regular file of
 * ours (never through a symlink). A file that cannot be read or parsed is still listed — it is
 * there, and the server will move it aside when it starts — with nothing counted.
 */
export async function listSavedSessions(env: Env = process.env): Promise<SavedSessionSummary[]> {
  const dir = resolveStateDir(env);
  const names = await readdir(dir).catch(() => [] as string[]);
  const saved = names.filter((name) => name.endsWith('.json') && !name.startsWith('.')).sort();
  return Promise.all(
    saved.map(async (file): Promise<SavedSessionSummary> => {
      const summary: SavedSessionSummary = { name: file.slice(0, -'.json'.length), path: path.join(dir, file), saved_at: null, panes: 0, agents: 0 };
      try {
        const data = await readPrivateFile(summary.path);
        const state = data === null ? null : (JSON.parse(data.toString('utf8')) as { saved_at?: unknown; panes?: unknown });
        if (state && typeof state.saved_at === 'string') summary.saved_at = state.saved_at;
        if (state && Array.isArray(state.panes)) {
          summary.panes = state.panes.length;
          summary.agents = state.panes.filter((pane) => pane !== null && typeof pane === 'object' && (pane as { agent?: unknown }).agent).length;
        }
      } catch {
        // Unreadable or not JSON: listed with nothing counted.
      }
      return summary;
    }),
  );
}

/** Moves a file that cannot be restored aside as `<name>.corrupt-<timestamp>`; returns the new path. */
export async function moveAside(file: string, now: Date = new Date()): Promise<string> {
  const stamp = now.toISOString().replace(/[:.]/g, '-');
  const target = `${file}.corrupt-${stamp}`;
  await rename(file, target);
  return target;
}

/** Surface ids with a saved scrollback file. */
export async function savedScrollbacks(files: SessionFiles): Promise<number[]> {
  const names = await readdir(files.scrollbackDir).catch(() => [] as string[]);
  return names.flatMap((name) => (/^[1-9][0-9]*\.z$/.test(name) ? [Number(name.slice(0, -2))] : []));
}

/** Deletes a session's saved state and scrollback (`kill-server --forget`); true when there was any. */
export async function forgetSession(files: SessionFiles): Promise<boolean> {
  const had = lstatOrNull(files.state) !== null || lstatOrNull(files.scrollbackDir) !== null;
  await rm(files.state, { force: true });
  await rm(files.scrollbackDir, { recursive: true, force: true });
  return had;
}

/**
 * The name a session is saved under: `--session`/CORRAL_SESSION, or for a server on an
 * explicit `--socket` path (or CORRAL_SOCKET) the socket's file name (`/tmp/x/work.sock` →
 * `work`), so two servers on different sockets never share a saved session. The server and
 * `kill-server --forget` both use this.
 */
export function stateSessionName(opts: { socket?: string; session?: string }, env: Env = process.env): string {
  if (opts.session || (!opts.socket && !env.CORRAL_SOCKET)) return resolveSessionName({ session: opts.session }, env);
  const name = path.basename(resolveSocketPath(opts, env)).replace(/\.sock$/, '').replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64);
  return name === '' || name.startsWith('.') ? 'default' : name;
}

/**
 * `corral kill-server --forget` with no server answering: deletes the saved session's files
 * (a running server is asked with `session.forget` instead, so it does not save them again
 * while it stops). Returns the state file's path and whether anything was there.
 */
export async function forgetSavedSession(opts: { socket?: string; session?: string }, env: Env = process.env): Promise<{ path: string; forgotten: boolean }> {
  const files = sessionFiles(resolveStateDir(env), stateSessionName(opts, env));
  return { path: files.state, forgotten: await forgetSession(files) };
}
