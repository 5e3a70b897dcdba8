/**
 * The worktrees corral made, one small file each in `$XDG_STATE_HOME/corral/worktrees/`
 * (a private directory, files 0600): what git does not keep — the name, the base it started
 * from, its index among the repository's worktrees. Git keeps the rest (the checkout, the
 * branch). A record is written once, when the worktree is made, and deleted when it goes.
 *
 * The record's file is made with link(2) from a temporary file, which fails when the name
 * exists: two creations of one name, in one server or two, cannot both win.
 */
import { constants } from 'node:fs';
import { link, open, readdir, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { CorralError, WORKTREE_NAME_PATTERN, type WorktreeFacts } from '../contract/protocol.js';
import { ensurePrivateStateDir, readPrivateFile } from '../persist/state-files.js';
import { KeyedQueue } from './keyed-queue.js';

/** One worktree corral made: its facts and when it was made. */
export interface WorktreeRecord extends WorktreeFacts {
  created_at: string;
}

/** Far above any record (a few hundred bytes): a bigger file is not one. */
const MAX_RECORD_BYTES = 64 * 1024;

/** Whether a parsed value has every field of a record, each of the right type. */
function isRecord(value: unknown): value is WorktreeRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.name === 'string' &&
    WORKTREE_NAME_PATTERN.test(r.name) &&
    typeof r.path === 'string' &&
    path.isAbsolute(r.path) &&
    typeof r.repo === 'string' &&
    path.isAbsolute(r.repo) &&
    typeof r.branch === 'string' &&
    typeof r.base === 'string' &&
    /^[0-9a-f]{40,64}$/.test(r.base) &&
    typeof r.index === 'number' &&
    Number.isInteger(r.index) &&
    r.index > 0 &&
    typeof r.created_at === 'string'
  );
}

export class WorktreeRegistry {
  /** Index choices one at a time per repository, so parallel creations in this server get 1 and 2. */
  private readonly choosing = new KeyedQueue();

  constructor(readonly dir: string) {}

  private fileOf(name: string): string {
    if (!WORKTREE_NAME_PATTERN.test(name)) throw new CorralError('invalid_worktree_name', `invalid worktree name "${name}"`);
    return path.join(this.dir, `${name}.json`);
  }

  /** The record of `name`, or null. */
  async get(name: string): Promise<WorktreeRecord | null> {
    const data = await readPrivateFile(this.fileOf(name), MAX_RECORD_BYTES).catch(() => null);
    if (data === null) return null;
    try {
      const parsed: unknown = JSON.parse(data.toString('utf8'));
      return isRecord(parsed) && parsed.name === name ? parsed : null;
    } catch {
      return null;
    }
  }

  /** Every readable record, by name. A file that is not a record is left alone (and not listed). */
  async all(): Promise<WorktreeRecord[]> {
    const names = await readdir(this.dir).catch(() => [] as string[]);
    const records = await Promise.all(
      names.filter((n) => n.endsWith('.json') && WORKTREE_NAME_PATTERN.test(n.slice(0, -5))).map((n) => this.get(n.slice(0, -5))),
    );
    return records.filter((r): r is WorktreeRecord => r !== null).sort((a, b) => a.name.localeCompare(b.name));
  }

  /**
   * Takes `name` for a new worktree of `repo`, with the smallest index its repository's
   * records leave free; `worktree_exists` when the name is taken. `make` builds the record
   * from the index. The caller deletes the record if making the worktree then fails.
   */
  async reserve(repo: string, make: (index: number) => WorktreeRecord): Promise<WorktreeRecord> {
    return this.choosing.run(repo, async () => {
      ensurePrivateStateDir(this.dir);
      const used = new Set((await this.all()).filter((r) => r.repo === repo).map((r) => r.index));
      let index = 1;
      while (used.has(index)) index++;
      const record = make(index);
      await this.writeNew(record);
      return record;
    });
  }

  /** Deletes a record (the worktree is gone). */
  async remove(name: string): Promise<void> {
    await unlink(this.fileOf(name)).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
  }

  /** Writes a record under a name nobody holds: a temporary file linked into place, which fails if the name exists. */
  private async writeNew(record: WorktreeRecord): Promise<void> {
    const file = this.fileOf(record.name);
    const temp = path.join(this.dir, `.${record.name}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
    const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.write(`${JSON.stringify(record, null, 2)}\n`);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      await link(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new CorralError('worktree_exists', `a worktree named "${record.name}" exists already (corral worktree list)`, { name: record.name });
      }
      throw error;
    } finally {
      await unlink(temp).catch(() => {});
    }
  }
}
