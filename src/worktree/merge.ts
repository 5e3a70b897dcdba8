/**
 * Merging a worktree back (SPEC §15): its uncommitted work is committed on its branch, then
 * the branch goes into the branch the main checkout has checked out — as a merge (git's
 * default, fast-forward when it can), a squash commit, or rebased and fast-forwarded.
 *
 * The main checkout is never left half-merged: a dirty one is refused before anything
 * happens, and a conflict is found first with `git merge-tree --write-tree`, which merges in
 * git's object store without touching any checkout, so a refused merge leaves the main
 * checkout's HEAD, index and files exactly as they were. Where git has no `merge-tree
 * --write-tree` (before 2.38) the merge itself finds the conflict and `git merge --abort`
 * takes it back.
 */
import { CorralError, type WorktreeMergeResult } from '../contract/protocol.js';
import { git, gitMessage, gitText, nulFields, runGit, type GitContext } from './git.js';
import type { WorktreeRecord } from './registry.js';
import { anyChanges, checkedOutBranch, operationInProgress, revParse, trackedChanges } from './repo.js';

export type MergeMode = WorktreeMergeResult['mode'];

export interface MergeOptions {
  mode: MergeMode;
  /** The message of the commit of uncommitted work (and of a squash); default `corral: <name>`. */
  message?: string;
}

/** What merging `branch` into `into` would do, found without touching a checkout. */
export type MergePreview = { kind: 'clean'; tree: string } | { kind: 'conflict'; files: string[] } | { kind: 'unknown' };

/** `git merge-tree --write-tree`: the merged tree, or the conflicting files; `unknown` on a git without it. */
export async function previewMerge(ctx: GitContext, repo: string, into: string, branch: string): Promise<MergePreview> {
  const result = await runGit(ctx, repo, ['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', into, branch], { readOnly: true });
  const fields = nulFields(result.stdout);
  if (result.code === 0) return { kind: 'clean', tree: fields[0] ?? '' };
  if (result.code === 1 && fields.length > 0) return { kind: 'conflict', files: [...new Set(fields.slice(1).filter((f) => f !== ''))] };
  return { kind: 'unknown' };
}

/** Whether merging `branch` into `into` would change nothing (a merge, squash or rebase already brought it in). */
export async function isMerged(ctx: GitContext, repo: string, into: string, branch: string): Promise<boolean> {
  if ((await runGit(ctx, repo, ['merge-base', '--is-ancestor', branch, into], { readOnly: true })).code === 0) return true;
  const preview = await previewMerge(ctx, repo, into, branch);
  return preview.kind === 'clean' && preview.tree === (await revParse(ctx, repo, `${into}^{tree}`));
}

/** The files git left in conflict in a checkout. */
async function conflictedFiles(ctx: GitContext, checkout: string): Promise<string[]> {
  return nulFields((await git(ctx, checkout, ['diff', '--name-only', '--diff-filter=U', '-z'], { readOnly: true })).stdout);
}

function conflict(record: WorktreeRecord, into: string, files: readonly string[]): CorralError {
  return new CorralError(
    'merge_conflict',
    `merging ${record.branch} into ${into} conflicts in ${files.length} file${files.length === 1 ? '' : 's'} (${files.join(', ')}); ` +
      'nothing was merged and the main checkout is unchanged: resolve it in the worktree (merge or rebase onto ' + into + ' there), then merge again',
    { worktree: record.name, files: [...files] },
  );
}

/** The untracked files of the main checkout a merge would overwrite, from git's refusal, or null. */
function overwrittenUntracked(stderr: string): string[] | null {
  const match = /untracked working tree files would be overwritten by merge:\n([\s\S]*?)\n(?:Please|Aborting)/.exec(stderr);
  return match ? match[1]!.split('\n').map((l) => l.trim()).filter(Boolean) : null;
}

/** Refuses a main checkout with tracked changes or an operation in progress: a merge there could not be taken back cleanly. */
async function requireCleanMain(ctx: GitContext, main: string): Promise<void> {
  const busy = await operationInProgress(ctx, main);
  if (busy) throw new CorralError('main_checkout_dirty', `the main checkout ${main} has ${busy} in progress: finish or abort it first`, { repo: main, files: [] });
  const files = await trackedChanges(ctx, main);
  if (files.length > 0) {
    throw new CorralError('main_checkout_dirty', `the main checkout ${main} has uncommitted changes (${files.slice(0, 10).join(', ')}${files.length > 10 ? ', …' : ''}): commit or stash them first`, {
      repo: main,
      files,
    });
  }
}

/** Commits everything uncommitted in the worktree (staged, unstaged, untracked); the new commit, or null when there was nothing. */
export async function commitWorktree(ctx: GitContext, record: WorktreeRecord, message: string): Promise<string | null> {
  if ((await anyChanges(ctx, record.path)).length === 0) return null;
  await git(ctx, record.path, ['add', '--all']);
  // The repository's hooks run, as for any commit: a hook that refuses leaves the work staged, nothing lost.
  await git(ctx, record.path, ['commit', '--quiet', '-m', message], { hooks: true });
  return revParse(ctx, record.path, 'HEAD');
}

/** A merge into the main checkout that failed: why, after taking back whatever it did. */
async function failedMerge(ctx: GitContext, record: WorktreeRecord, into: string, stderr: string, undo: string[]): Promise<CorralError> {
  const main = record.repo;
  const untracked = overwrittenUntracked(stderr);
  if (untracked) {
    return new CorralError('main_checkout_dirty', `untracked files in the main checkout would be overwritten by the merge (${untracked.join(', ')}): move them away first`, {
      repo: main,
      files: untracked,
    });
  }
  const files = await conflictedFiles(ctx, main);
  await git(ctx, main, undo, { hooks: true });
  if (files.length > 0) return conflict(record, into, files);
  return new CorralError('git_failed', `merging ${record.branch} into ${into} failed: ${gitMessage({ stderr, stdout: Buffer.alloc(0) })}; the main checkout was restored`);
}

/** Merges a worktree's branch (after committing its uncommitted work) into the main checkout's branch. */
export async function mergeWorktree(ctx: GitContext, record: WorktreeRecord, opts: MergeOptions): Promise<WorktreeMergeResult> {
  const main = record.repo;
  const into = await checkedOutBranch(ctx, main);
  await requireCleanMain(ctx, main);
  const inProgress = await operationInProgress(ctx, record.path);
  if (inProgress) throw new CorralError('git_failed', `the worktree ${record.name} has ${inProgress} in progress: finish or abort it there first`, { worktree: record.name });
  const message = opts.message ?? `corral: ${record.name}`;
  const committed = await commitWorktree(ctx, record, message);
  const branchRef = `refs/heads/${record.branch}`;
  const intoRef = `refs/heads/${into}`;
  const result = (upToDate: boolean, head: string): WorktreeMergeResult => ({ worktree: record.name, branch: record.branch, into, mode: opts.mode, committed, head, up_to_date: upToDate });

  if ((await runGit(ctx, main, ['merge-base', '--is-ancestor', branchRef, intoRef], { readOnly: true })).code === 0) {
    return result(true, await revParse(ctx, main, 'HEAD'));
  }
  const preview = await previewMerge(ctx, main, intoRef, branchRef);
  if (preview.kind === 'conflict') throw conflict(record, into, preview.files);

  switch (opts.mode) {
    case 'merge': {
      const merged = await runGit(ctx, main, ['merge', '--no-edit', branchRef], { hooks: true });
      if (merged.code !== 0) throw await failedMerge(ctx, record, into, merged.stderr, ['merge', '--abort']);
      break;
    }
    case 'squash': {
      const squashed = await runGit(ctx, main, ['merge', '--squash', branchRef], { hooks: true });
      // A squash leaves no MERGE_HEAD to abort: the checkout was clean, so back to HEAD is back to how it was.
      if (squashed.code !== 0) throw await failedMerge(ctx, record, into, squashed.stderr, ['reset', '--quiet', '--hard', 'HEAD']);
      const commit = await runGit(ctx, main, ['commit', '--quiet', '-m', message], { hooks: true });
      if (commit.code !== 0) {
        await git(ctx, main, ['reset', '--quiet', '--hard', 'HEAD'], { hooks: true });
        throw new CorralError('git_failed', `the squash commit in ${main} failed: ${gitMessage(commit)}; the main checkout was restored`);
      }
      break;
    }
    case 'rebase': {
      // Rebased in the worktree, where a conflict touches only the agent's branch, then fast-forwarded.
      const rebased = await runGit(ctx, record.path, ['rebase', intoRef], { hooks: true });
      if (rebased.code !== 0) {
        const files = await conflictedFiles(ctx, record.path);
        await runGit(ctx, record.path, ['rebase', '--abort'], { hooks: true });
        if (files.length > 0) throw conflict(record, into, files);
        throw new CorralError('git_failed', `rebasing ${record.branch} onto ${into} failed: ${gitMessage(rebased)}; the rebase was aborted`);
      }
      const forward = await runGit(ctx, main, ['merge', '--ff-only', branchRef], { hooks: true });
      if (forward.code !== 0) throw await failedMerge(ctx, record, into, forward.stderr, ['reset', '--quiet', '--merge']);
      break;
    }
  }
  return result(false, await gitText(ctx, main, ['rev-parse', 'HEAD'], { readOnly: true }));
}
