/**
 * corral's worktrees (SPEC §15) as one object the actions use: make one, find one by name,
 * read its state and diff, merge it back, remove it. It knows git and the registry, nothing
 * of panes or agents — the actions (src/actions/worktree-actions.ts) add those.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { CorralError, WORKTREE_NAME_PATTERN, WORKTREE_NAME_RULE, type WorktreeIncludeReport, type WorktreeSetupReport } from '../contract/protocol.js';
import type { WorktreeConfig } from '../config/schema.js';
import { resolveStateDir } from '../persist/state-files.js';
import { git, gitText, runGit, type GitContext } from './git.js';
import { copyIncluded } from './include.js';
import { KeyedQueue } from './keyed-queue.js';
import { isMerged, mergeWorktree, type MergeOptions } from './merge.js';
import { assertRealDirectory, prepareWorktreePath, worktreeRoot } from './paths.js';
import { WorktreeRegistry, type WorktreeRecord } from './registry.js';
import { anyChanges, branchExists, checkBranchName, findRepo, resolveCommit } from './repo.js';
import { worktreeDiff, type WorktreeDiff } from './diff.js';
import { runSetup, setupCommand } from './setup.js';

/** What git says about a worktree now. */
export interface WorktreeState {
  missing: boolean;
  dirty: boolean;
  merged: boolean;
  ahead: number;
  behind: number;
}

export interface CreateRequest {
  name: string;
  branch?: string;
  base?: string;
}

/** Throws `invalid_worktree_name` unless `name` follows SPEC §15's pattern. */
export function checkWorktreeName(name: string): void {
  if (!WORKTREE_NAME_PATTERN.test(name)) {
    throw new CorralError('invalid_worktree_name', `invalid worktree name "${name}": use ${WORKTREE_NAME_RULE} (lower-case letters, digits, . _ -)`, { name });
  }
}

export class Worktrees {
  readonly registry: WorktreeRegistry;
  private readonly ctx: GitContext;
  /** Merges and removals one at a time per repository: two of them in one checkout would trip over each other. */
  private readonly perRepo = new KeyedQueue();

  constructor(
    readonly config: WorktreeConfig,
    readonly env: NodeJS.ProcessEnv,
    registryDir: string = path.join(resolveStateDir(env), 'worktrees'),
  ) {
    this.registry = new WorktreeRegistry(registryDir);
    this.ctx = { env };
  }

  /** The repository's main checkout holding `dir` (`not_a_git_repo` when none). */
  async repoOf(dir: string): Promise<string> {
    return realpathSync((await findRepo(this.ctx, dir)).main);
  }

  /**
   * Makes worktree `name` in the repository holding `dir`: checks everything first (name,
   * branch, base, nothing in the way), so a refusal creates nothing; then `git worktree add`
   * and the `.worktreeinclude` copies.
   */
  async create(dir: string, request: CreateRequest): Promise<{ record: WorktreeRecord; include: WorktreeIncludeReport }> {
    const { name } = request;
    checkWorktreeName(name);
    const repo = await findRepo(this.ctx, dir);
    const main = realpathSync(repo.main);
    const branch = request.branch ?? `corral/${name}`;
    await checkBranchName(this.ctx, main, branch);
    const base = request.base === undefined ? repo.head : await resolveCommit(this.ctx, main, request.base);
    // One `git worktree add` per repository at a time: git reads every worktree's admin files
    // while it adds one, and fails on another's half-written one ("failed to read
    // .git/worktrees/p2/commondir"), as two agents started at once with --worktree did.
    const record = await this.perRepo.run(main, async () => {
      if (await this.registry.get(name)) throw new CorralError('worktree_exists', `a worktree named "${name}" exists already (corral worktree list)`, { name });
      if (await branchExists(this.ctx, main, branch)) {
        throw new CorralError('worktree_exists', `branch ${branch} exists already in ${main}: pick another name or --branch`, { name, branch });
      }
      const target = prepareWorktreePath(worktreeRoot(this.config.root, main, this.env), name);
      const reserved = await this.registry.reserve(main, (index) => ({ name, path: target, repo: main, branch, base, index, created_at: new Date().toISOString() }));
      try {
        await git(this.ctx, main, ['worktree', 'add', '--quiet', '-b', branch, target, base], { hooks: true });
      } catch (error) {
        await this.registry.remove(name);
        throw error;
      }
      return reserved;
    });
    return { record, include: await copyIncluded(this.ctx, main, record.path) };
  }

  /** Whether the worktree has a setup to run (`[worktree] setup`, or the repository's script). */
  hasSetup(record: WorktreeRecord): boolean {
    return setupCommand(this.config.setup, record.path) !== null;
  }

  /** Runs the worktree's setup (SPEC §15), output to `onOutput` as it comes. */
  setup(record: WorktreeRecord, onOutput: (text: string) => void, signal?: AbortSignal): Promise<WorktreeSetupReport> {
    return runSetup(record, { configured: this.config.setup, timeoutMs: this.config.setup_timeout_secs * 1000, env: this.env, onOutput, signal });
  }

  /** The record of `name`; `worktree_not_found` when corral made no such worktree. */
  async get(name: string): Promise<WorktreeRecord> {
    checkWorktreeName(name);
    const record = await this.registry.get(name);
    if (!record) throw new CorralError('worktree_not_found', `no worktree named "${name}" (corral worktree list)`, { name });
    return record;
  }

  /** Every worktree corral made, or those of the repository holding `dir`. */
  async records(dir?: string): Promise<WorktreeRecord[]> {
    const all = await this.registry.all();
    if (dir === undefined) return all;
    const repo = await this.repoOf(dir);
    return all.filter((r) => r.repo === repo);
  }

  /** Dirty, merged, ahead and behind, against what the main checkout has checked out now. */
  async state(record: WorktreeRecord): Promise<WorktreeState> {
    const missing = !existsSync(record.path);
    const branchRef = `refs/heads/${record.branch}`;
    const hasBranch = await branchExists(this.ctx, record.repo, record.branch);
    const dirty = !missing && (await anyChanges(this.ctx, record.path)).length > 0;
    if (!hasBranch) return { missing, dirty, merged: true, ahead: 0, behind: 0 };
    const counts = await gitText(this.ctx, record.repo, ['rev-list', '--left-right', '--count', `HEAD...${branchRef}`], { readOnly: true });
    const [behind, ahead] = counts.split(/\s+/).map(Number);
    return { missing, dirty, merged: await isMerged(this.ctx, record.repo, 'HEAD', branchRef), ahead: ahead ?? 0, behind: behind ?? 0 };
  }

  /** What the worktree changed against its base. */
  diff(record: WorktreeRecord, opts: { patch: boolean }): Promise<WorktreeDiff> {
    if (!existsSync(record.path)) throw new CorralError('worktree_not_found', `the worktree ${record.name} is gone from ${record.path} (corral worktree prune drops it)`, { name: record.name });
    return worktreeDiff(this.ctx, record.path, record.base, opts);
  }

  /** Merges it into the main checkout's branch (one merge per repository at a time). */
  merge(record: WorktreeRecord, opts: MergeOptions) {
    if (!existsSync(record.path)) throw new CorralError('worktree_not_found', `the worktree ${record.name} is gone from ${record.path}`, { name: record.name });
    return this.perRepo.run(record.repo, () => mergeWorktree(this.ctx, record, opts));
  }

  /**
   * Removes the worktree's directory (uncommitted work included), its branch and its record.
   * The caller has checked nobody runs inside it. A directory that is a symbolic link now is
   * left alone: it is not what corral made.
   */
  remove(record: WorktreeRecord): Promise<{ branchKept: string | null }> {
    return this.perRepo.run(record.repo, async () => {
      assertRealDirectory(record.path);
      if (existsSync(record.path)) await git(this.ctx, record.repo, ['worktree', 'remove', '--force', '--force', record.path]);
      else await git(this.ctx, record.repo, ['worktree', 'prune']);
      let branchKept: string | null = null;
      if (await branchExists(this.ctx, record.repo, record.branch)) {
        const deleted = await runGit(this.ctx, record.repo, ['branch', '--quiet', '-D', record.branch]);
        // Checked out somewhere else by hand: the branch stays, and the caller says why.
        if (deleted.code !== 0) branchKept = deleted.stderr.trim();
      }
      await this.registry.remove(record.name);
      return { branchKept };
    });
  }
}

export type { WorktreeDiff, WorktreeRecord };
