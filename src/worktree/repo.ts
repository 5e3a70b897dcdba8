/**
 * Facts about a repository, each from one git command's porcelain: which repository a
 * directory is in and its main checkout, what a ref names, whether a branch exists, what the
 * main checkout has checked out and whether it is clean.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { git, gitText, nulFields, runGit, type GitContext } from './git.js';

/** The repository a directory belongs to. */
export interface RepoInfo {
  /** The main checkout (the first entry of `git worktree list`), even from inside a linked worktree. */
  main: string;
  /** The commit the directory's own checkout has checked out (the default base). */
  head: string;
}

/** The repository holding `dir`; `not_a_git_repo` when there is none (or it has no commit yet). */
export async function findRepo(ctx: GitContext, dir: string): Promise<RepoInfo> {
  // One run: "true" and HEAD's commit; "true" alone (exit 1) in a repository with no commit yet.
  const probe = await runGit(ctx, dir, ['rev-parse', '--is-inside-work-tree', '--verify', '--quiet', 'HEAD^{commit}'], { readOnly: true });
  const [inside, head] = probe.stdout.toString('utf8').trim().split('\n');
  if (inside !== 'true') throw new CorralError('not_a_git_repo', `${dir} is not in a git repository's working tree, so it cannot have a worktree`, { dir });
  if (probe.code !== 0 || !head) throw new CorralError('not_a_git_repo', `the repository of ${dir} has no commit yet: commit something first, then a worktree can start from it`, { dir });
  const list = await git(ctx, dir, ['worktree', 'list', '--porcelain', '-z'], { readOnly: true });
  const first = nulFields(list.stdout).find((field) => field.startsWith('worktree '));
  if (!first) throw new CorralError('not_a_git_repo', `git lists no main checkout for ${dir}`, { dir });
  return { main: first.slice('worktree '.length), head };
}

/** The commit `ref` names in `repo` (a branch, tag, sha, `HEAD~2`); `ref_not_found` otherwise. */
export async function resolveCommit(ctx: GitContext, repo: string, ref: string): Promise<string> {
  // --end-of-options: a ref starting with "-" is a ref, never an option.
  const result = await runGit(ctx, repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], { readOnly: true });
  if (result.code !== 0) throw new CorralError('ref_not_found', `"${ref}" names no commit in ${repo}`, { ref });
  return result.stdout.toString('utf8').trim();
}

/** Throws `invalid_params` unless git accepts `branch` as a new branch's name. */
export async function checkBranchName(ctx: GitContext, repo: string, branch: string): Promise<void> {
  // git check-ref-format takes a leading "-" as an option: such a name is refused here first.
  const ok = !branch.startsWith('-') && (await runGit(ctx, repo, ['check-ref-format', '--branch', branch])).code === 0;
  if (!ok) throw new CorralError('invalid_params', `"${branch}" is not a valid branch name (git check-ref-format)`, { branch });
}

/** Whether `refs/heads/<branch>` exists. */
export async function branchExists(ctx: GitContext, repo: string, branch: string): Promise<boolean> {
  return (await runGit(ctx, repo, ['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { readOnly: true })).code === 0;
}

/** The branch a checkout has checked out; `main_checkout_detached` for a detached HEAD. */
export async function checkedOutBranch(ctx: GitContext, checkout: string): Promise<string> {
  const result = await runGit(ctx, checkout, ['symbolic-ref', '--quiet', '--short', 'HEAD'], { readOnly: true });
  if (result.code !== 0) {
    throw new CorralError('main_checkout_detached', `the main checkout ${checkout} has no branch checked out (detached HEAD): check one out to merge into`, { repo: checkout });
  }
  return result.stdout.toString('utf8').trim();
}

/** Tracked paths with changes (staged or not) in a checkout, untracked files left out. */
export async function trackedChanges(ctx: GitContext, checkout: string): Promise<string[]> {
  const status = await git(ctx, checkout, ['status', '--porcelain=v1', '-z', '--untracked-files=no'], { readOnly: true });
  return porcelainPaths(status.stdout);
}

/** Every path with a change in a checkout, untracked files included (what "dirty" means for a worktree). */
export async function anyChanges(ctx: GitContext, checkout: string): Promise<string[]> {
  const status = await git(ctx, checkout, ['status', '--porcelain=v1', '-z', '--untracked-files=all'], { readOnly: true });
  return porcelainPaths(status.stdout);
}

/** The paths of `git status --porcelain=v1 -z` (a rename's old path skipped). */
export function porcelainPaths(out: Buffer | string): string[] {
  const fields = nulFields(out);
  const paths: string[] = [];
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i]!;
    paths.push(entry.slice(3));
    // A rename or copy is followed by its old path in its own field.
    if (entry[0] === 'R' || entry[0] === 'C') i++;
  }
  return paths;
}

/** What git leaves in a checkout's git directory while an operation is half done. */
const IN_PROGRESS = [
  ['MERGE_HEAD', 'a merge'],
  ['rebase-merge', 'a rebase'],
  ['rebase-apply', 'a rebase or am'],
  ['CHERRY_PICK_HEAD', 'a cherry-pick'],
  ['REVERT_HEAD', 'a revert'],
] as const;

/** The operation in progress in a checkout (a merge, a rebase, …), or null: ours would mix with it. */
export async function operationInProgress(ctx: GitContext, checkout: string): Promise<string | null> {
  const args = IN_PROGRESS.flatMap(([marker]) => ['--git-path', marker]);
  const paths = (await gitText(ctx, checkout, ['rev-parse', ...args], { readOnly: true })).split('\n');
  const found = IN_PROGRESS.find((_, i) => paths[i] !== undefined && existsSync(path.resolve(checkout, paths[i]!)));
  return found ? found[1] : null;
}

/** `git rev-parse <rev>` as a sha. */
export function revParse(ctx: GitContext, repo: string, rev: string): Promise<string> {
  return gitText(ctx, repo, ['rev-parse', '--verify', '--end-of-options', rev], { readOnly: true });
}
