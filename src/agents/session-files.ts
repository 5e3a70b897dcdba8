/**
 * The agent's own session id from its session files, for agents without hooks (SPEC §13):
 * where to look is data, each kind's `[resume] session_files` (tried in order):
 * - `path`: `~` is the agent's HOME, `$NAME` / `${NAME:-default}` its environment, `*` any one
 *   path component, `{pid}` the agent's pid or one of its descendants' (a file per running
 *   process: exact), `{id}` the id inside a file name;
 * - `id_key`: the JSON key of the id in the file's first record, when the name holds none;
 * - `cwd_in`: how a file is tied to the agent's directory — "content" (default: its first
 *   64 KiB name the cwd as a JSON string), "none" (`{pid}` files, or only the start time
 *   ties it), or a file name in the session file's directory or a parent that holds the cwd
 *   (Gemini's `.project_root`);
 * - `line`: the path is a log the agent appends to (OpenCode's, whose sessions live in SQLite):
 *   its last lines are read, and a line matching the regex names a session by its `id`, the
 *   `time` it was written and, if the regex has that group, the `cwd`.
 * Files from before the agent started are skipped unless written since (a resumed session);
 * of the rest, the earliest created after the start that no other agent claimed wins.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { SessionFileSpec } from './rules-schema.js';
import { isValidSessionId } from './resume.js';
import { processCwd, readStat } from '../pty/foreground.js';
import { groupDescendants } from './process-detect.js';

/** What the finder knows of the running agent. */
export interface AgentProcessFacts {
  /** The agent's pid and its descendants', nearest first (for `{pid}` files). */
  pids: readonly number[];
  cwd: string;
  /** When corral first saw the agent (ms since the epoch). */
  startedAt: number;
  /** The agent's environment (HOME, CODEX_HOME, XDG_DATA_HOME…). */
  env: Readonly<Record<string, string>>;
  /** Ids other live agents already hold: never given to a second one. */
  claimed: ReadonlySet<string>;
}

export const SESSION_FILE_LIMITS = {
  /** Session files are written a little before corral notices the agent (its first frame). */
  startSlackMs: 5000,
  /** Bytes of a file read to find the cwd or the first record. */
  headBytes: 64 * 1024,
  /** Entries read per directory level, and candidates examined, at most. */
  maxEntries: 5000,
  maxCandidates: 200,
  /** Bytes read from the end of a log (`line`): hundreds of turns of a chatty agent. */
  tailBytes: 256 * 1024,
} as const;

/** `~`, `$NAME` and `${NAME:-default}` in a path template, from the agent's environment. */
export function expandPath(template: string, env: Readonly<Record<string, string>>): string {
  const home = env.HOME || homedir();
  const withVars = template.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (_, braced: string | undefined, fallback: string | undefined, bare: string | undefined) => {
    const value = env[(braced ?? bare)!];
    return value !== undefined && value !== '' ? value : (fallback ?? '');
  });
  return withVars.replace(/(^|\/)~(?=\/|$)/g, (_, lead: string) => `${lead}${home}`);
}

/** A path component with `*` / `{id}` as a regex; `{id}` is captured. */
function componentRegex(component: string): RegExp {
  const parts = component.split(/(\*|\{id\})/).map((part) => (part === '*' ? '[^/]*' : part === '{id}' ? '([^/]+?)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
  return new RegExp(`^${parts.join('')}$`);
}

/** The files a template without `{pid}` names now (`*` and `{id}` expanded), bounded. */
export async function expandGlob(path: string): Promise<string[]> {
  const components = path.split('/');
  let current = [components[0] === '' ? '/' : components[0]!];
  for (const component of components.slice(1)) {
    if (component === '') continue;
    if (!/\*|\{id\}/.test(component)) {
      current = current.map((dir) => join(dir, component));
      continue;
    }
    const re = componentRegex(component);
    const next: string[] = [];
    for (const dir of current) {
      let entries: string[];
      try {
        entries = (await readdir(dir)).slice(0, SESSION_FILE_LIMITS.maxEntries);
      } catch {
        continue;
      }
      for (const entry of entries) if (re.test(entry)) next.push(join(dir, entry));
    }
    current = next;
  }
  return current;
}

export function readHead(file: string): string | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const buf = Buffer.alloc(SESSION_FILE_LIMITS.headBytes);
      const n = readSync(fd, buf, 0, buf.length, 0);
      return buf.subarray(0, n).toString('utf8');
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** The last `bytes` of a file, from the start of a line (null when unreadable). */
function readTail(file: string, bytes: number): string | null {
  try {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      const start = Math.max(0, size - bytes);
      const buf = Buffer.alloc(size - start);
      const n = readSync(fd, buf, 0, buf.length, start);
      const text = buf.subarray(0, n).toString('utf8');
      // A read that starts mid-line drops that partial line.
      return start === 0 ? text : text.slice(text.indexOf('\n') + 1);
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** A log value as written: bare, or double-quoted with JSON escapes. */
function logValue(value: string): string {
  if (value.length < 2 || !value.startsWith('"') || !value.endsWith('"')) return value;
  try {
    return JSON.parse(value) as string;
  } catch {
    return value.slice(1, -1);
  }
}

/**
 * The id a `line` spec finds in the agent's log: of the lines written since the agent started
 * (their own time), in its cwd, the earliest id no other agent holds.
 */
async function findInLog(spec: SessionFileSpec & { line: RegExp }, path: string, facts: AgentProcessFacts, usable: (id: string | null) => id is string): Promise<string | null> {
  const since = facts.startedAt - SESSION_FILE_LIMITS.startSlackMs;
  const found: { id: string; time: number }[] = [];
  for (const file of await expandGlob(path)) {
    try {
      const st = await stat(file);
      if (!st.isFile() || st.mtimeMs < since) continue;
    } catch {
      continue;
    }
    const text = readTail(file, SESSION_FILE_LIMITS.tailBytes);
    if (text === null) continue;
    for (const line of text.split('\n')) {
      const groups = spec.line.exec(line)?.groups;
      if (!groups?.id || !groups.time) continue;
      const time = Date.parse(groups.time);
      if (!(time >= since)) continue;
      if (groups.cwd !== undefined && logValue(groups.cwd) !== facts.cwd) continue;
      if (usable(groups.id)) found.push({ id: groups.id, time });
    }
  }
  found.sort((a, b) => a.time - b.time);
  return found[0]?.id ?? null;
}

/**
 * `key` (dotted: `payload.id`) of the file's first JSON record (a .json file, or a .jsonl's
 * first line). A first line longer than the head read (Codex's carries its instructions) is
 * cut: then the first `"<last key part>":"…"` in the head is taken.
 */
export function idFromRecord(head: string, key: string): string | null {
  const path = key.split('.');
  for (const text of [head.split('\n')[0] ?? '', head]) {
    try {
      let value: unknown = JSON.parse(text);
      for (const part of path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[part] : undefined;
      return typeof value === 'string' ? value : null;
    } catch {
      // A pretty-printed .json spans lines (try the whole head next), or the line was cut.
    }
  }
  const leaf = path[path.length - 1]!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`"${leaf}"\\s*:\\s*"([^"\\\\]+)"`).exec(head)?.[1] ?? null;
}

/** Whether the session file belongs to `cwd`, as the spec says it can be told. */
async function belongsTo(file: string, head: string, spec: SessionFileSpec, cwd: string, root: string): Promise<boolean> {
  if (spec.cwdIn === 'none') return true;
  if (spec.cwdIn === 'content') return head.includes(JSON.stringify(cwd));
  for (let dir = dirname(file); dir.startsWith(root) && dir !== dirname(dir); dir = dirname(dir)) {
    try {
      return (await readFile(join(dir, spec.cwdIn), 'utf8')).trim() === cwd;
    } catch {
      // Not in this directory: look one up.
    }
  }
  return false;
}

/** The id one spec finds for the agent, or null. */
async function findWith(spec: SessionFileSpec, facts: AgentProcessFacts): Promise<string | null> {
  const path = expandPath(spec.path, facts.env);
  const usable = (id: string | null): id is string => id !== null && isValidSessionId(id) && !facts.claimed.has(id);
  if (spec.line) return findInLog({ ...spec, line: spec.line }, path, facts, usable);
  if (path.includes('{pid}')) {
    for (const pid of facts.pids) {
      const head = readHead(path.replaceAll('{pid}', String(pid)));
      const id = head === null || spec.idKey === null ? null : idFromRecord(head, spec.idKey);
      if (usable(id)) return id;
    }
    return null;
  }
  // The fixed part of the template: cwd_in files are looked for below it only.
  const root = path.split('/').filter((c, i, all) => all.slice(0, i + 1).every((p) => !/\*|\{id\}/.test(p))).join('/') || '/';
  const since = facts.startedAt - SESSION_FILE_LIMITS.startSlackMs;
  const files: { file: string; born: number; mtime: number }[] = [];
  for (const file of await expandGlob(path)) {
    try {
      const st = await stat(file);
      if (!st.isFile() || st.mtimeMs < since) continue;
      files.push({ file, born: st.birthtimeMs > 0 ? st.birthtimeMs : st.mtimeMs, mtime: st.mtimeMs });
    } catch {
      // Gone since the listing.
    }
  }
  // Created since the start, earliest first; then older sessions written since (resumed), newest first.
  files.sort((a, b) => Number(a.born < since) - Number(b.born < since) || (a.born >= since ? a.born - b.born : b.mtime - a.mtime));
  const nameRe = componentRegex(basename(spec.path));
  for (const { file } of files.slice(0, SESSION_FILE_LIMITS.maxCandidates)) {
    const head = readHead(file);
    if (head === null) continue;
    const id = spec.idKey !== null ? idFromRecord(head, spec.idKey) : (nameRe.exec(basename(file))?.[1] ?? null);
    if (usable(id) && (await belongsTo(file, head, spec, facts.cwd, root))) return id;
  }
  return null;
}

/** The agent's own session id from its session files, or null when none is found (yet). */
export async function findSessionId(specs: readonly SessionFileSpec[], facts: AgentProcessFacts): Promise<string | null> {
  for (const spec of specs) {
    const id = await findWith(spec, facts);
    if (id !== null) return id;
  }
  return null;
}

/** The facts a lookup needs about a live agent process, read from /proc (null when it is gone). */
export function agentProcessFacts(pid: number, fallbackCwd: string, startedAt: number, claimed: ReadonlySet<string>): AgentProcessFacts | null {
  const st = readStat(pid);
  if (!st) return null;
  return {
    pids: [pid, ...groupDescendants(pid, st.pgrp, st.session)],
    cwd: processCwd(pid) ?? fallbackCwd,
    startedAt,
    env: processEnv(pid),
    claimed,
  };
}

/** /proc/<pid>/environ as a record (empty when unreadable). */
export function processEnv(pid: number): Record<string, string> {
  const env: Record<string, string> = {};
  try {
    for (const entry of readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')) {
      const eq = entry.indexOf('=');
      if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
    }
  } catch {
    // Gone, or not ours: HOME falls back to the server's.
  }
  return env;
}
