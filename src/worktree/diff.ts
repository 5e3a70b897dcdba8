/**
 * What a worktree changed against its base (SPEC §15): commits, staged, unstaged and
 * untracked files, as one `git diff <base>`. Untracked files take part through a copy of the
 * worktree's index in which they are marked intent-to-add (`git add -N`), so git diffs them
 * as new files — the worktree's own index, which an agent may be using, is never touched.
 */
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { WorktreeDiffFile } from '../contract/protocol.js';
import { git, gitText, nulFields, type GitContext } from './git.js';

export const DIFF_LIMITS = {
  /** A patch longer than this is cut (at a line) and said to be: a reply and a review view stay bounded. */
  maxPatchBytes: 4 * 1024 * 1024,
} as const;

/** Options every diff shares: renames found, no colour, no external diff or text conversion (repository config). */
const DIFF_OPTIONS = ['-M', '--no-color', '--no-ext-diff', '--no-textconv'] as const;

const STATUS: Readonly<Record<string, WorktreeDiffFile['status']>> = {
  A: 'added',
  M: 'modified',
  D: 'deleted',
  R: 'renamed',
  C: 'copied',
  T: 'type_changed',
  U: 'modified',
};

export interface WorktreeDiff {
  files: WorktreeDiffFile[];
  added: number;
  removed: number;
  patch?: string;
  truncated?: boolean;
}

/**
 * Parses `git diff --raw --numstat -z` output into files: the raw records (status, paths)
 * come first, then one numstat record per file (counts, `-` for binary). `untracked` marks the
 * files that were intent-to-add.
 */
export function parseRawNumstat(out: Buffer | string, untracked: ReadonlySet<string>): WorktreeDiffFile[] {
  const fields = nulFields(out);
  const files: WorktreeDiffFile[] = [];
  const byPath = new Map<string, WorktreeDiffFile>();
  let i = 0;
  while (i < fields.length && fields[i]!.startsWith(':')) {
    const letter = fields[i]!.split(' ')[4]?.[0] ?? 'M';
    const paired = letter === 'R' || letter === 'C';
    const file: WorktreeDiffFile = paired
      ? { path: fields[i + 2]!, old_path: fields[i + 1]!, status: STATUS[letter]!, added: 0, removed: 0 }
      : { path: fields[i + 1]!, status: untracked.has(fields[i + 1]!) ? 'untracked' : (STATUS[letter] ?? 'modified'), added: 0, removed: 0 };
    files.push(file);
    byPath.set(file.path, file);
    i += paired ? 3 : 2;
  }
  while (i < fields.length) {
    const [added, removed, name] = fields[i]!.split('\t');
    let filePath = name ?? '';
    i += 1;
    // A rename's numstat names no path in its own field: the old and new paths follow.
    if (filePath === '') {
      filePath = fields[i + 1] ?? '';
      i += 2;
    }
    const file = byPath.get(filePath);
    if (!file) continue;
    file.added = added === '-' ? null : Number(added);
    file.removed = removed === '-' ? null : Number(removed);
  }
  return files;
}

/** The files git does not track and does not ignore, repository-relative. */
async function untrackedFiles(ctx: GitContext, worktree: string): Promise<string[]> {
  return nulFields((await git(ctx, worktree, ['ls-files', '-z', '--others', '--exclude-standard'], { readOnly: true })).stdout);
}

/** Runs `body` with an index that is the worktree's plus its untracked files as intent-to-add. */
async function withUntrackedIndex<T>(ctx: GitContext, worktree: string, untracked: readonly string[], body: (env: Record<string, string>) => Promise<T>): Promise<T> {
  if (untracked.length === 0) return body({});
  const dir = await mkdtemp(path.join(os.tmpdir(), 'corral-diff-'));
  try {
    const index = path.join(dir, 'index');
    const own = path.resolve(worktree, await gitText(ctx, worktree, ['rev-parse', '--git-path', 'index'], { readOnly: true }));
    await copyFile(own, index).catch(() => {}); // a worktree with no index yet: git starts one
    const env = { GIT_INDEX_FILE: index };
    await git(ctx, worktree, ['add', '--intent-to-add', '--pathspec-from-file=-', '--pathspec-file-nul'], { env, input: untracked.join('\0') });
    return await body(env);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Cuts a patch at the size limit, at a line end. */
function boundedPatch(out: Buffer, gitCut: boolean): { patch: string; truncated: boolean } {
  if (!gitCut && out.length <= DIFF_LIMITS.maxPatchBytes) return { patch: out.toString('utf8'), truncated: false };
  const cut = out.subarray(0, DIFF_LIMITS.maxPatchBytes);
  const end = cut.lastIndexOf(0x0a);
  return { patch: cut.subarray(0, end < 0 ? cut.length : end + 1).toString('utf8'), truncated: true };
}

/** Everything changed in `worktree` against `base`: files with counts, and the unified diff when `patch`. */
export async function worktreeDiff(ctx: GitContext, worktree: string, base: string, opts: { patch: boolean }): Promise<WorktreeDiff> {
  const untracked = await untrackedFiles(ctx, worktree);
  return withUntrackedIndex(ctx, worktree, untracked, (env) => gitDiff(ctx, worktree, [base], { env, untracked: new Set(untracked), patch: opts.patch }));
}

/** What changed from one tree (or commit) to another: files with counts, and the unified diff when `patch`. */
export function treeDiff(ctx: GitContext, repo: string, from: string, to: string, opts: { patch: boolean }): Promise<WorktreeDiff> {
  return gitDiff(ctx, repo, [from, to], { env: {}, untracked: new Set(), patch: opts.patch });
}

/** `git diff <revs>`: the raw and numstat records, then (with `patch`) the unified diff, bounded. */
async function gitDiff(ctx: GitContext, cwd: string, revs: readonly string[], opts: { env: Record<string, string>; untracked: ReadonlySet<string>; patch: boolean }): Promise<WorktreeDiff> {
  const run = { env: opts.env, readOnly: true };
  const raw = await git(ctx, cwd, ['diff', ...DIFF_OPTIONS, '--raw', '--numstat', '-z', ...revs, '--'], run);
  const files = parseRawNumstat(raw.stdout, opts.untracked);
  const diff: WorktreeDiff = {
    files,
    added: files.reduce((sum, f) => sum + (f.added ?? 0), 0),
    removed: files.reduce((sum, f) => sum + (f.removed ?? 0), 0),
  };
  if (opts.patch) {
    const patch = await git(ctx, cwd, ['diff', ...DIFF_OPTIONS, '--src-prefix=a/', '--dst-prefix=b/', ...revs, '--'], run);
    Object.assign(diff, boundedPatch(patch.stdout, patch.truncated));
  }
  return diff;
}
