/**
 * Worktrees on the wire (SPEC §15): the name rule, the objects `worktree.*` returns and what an
 * agent object says about the worktree it works in. Types and one pattern only, so the CLI
 * can check a name before it connects.
 */

/** A worktree's name (SPEC §15): it becomes a directory name and, by default, part of a branch name. */
export const WORKTREE_NAME_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** The pattern as people read it, for messages and `--help`. */
export const WORKTREE_NAME_RULE = '[a-z0-9][a-z0-9._-]{0,63}';

/** What to create: `worktree` on `agent.start`, `workspace.create` and an `up` pane. */
export interface WorktreeRequest {
  /** The worktree's name. */
  worktree: string;
  /** The new branch; default `corral/<name>`. */
  branch?: string;
  /** The commit it starts from; default the current HEAD of the directory's checkout. */
  base?: string;
  /** Start the agent even when the setup failed or timed out. */
  keep_going?: boolean;
}

/** How a worktree's setup went (`[worktree] setup` or `.corral/worktree-setup`). */
export interface WorktreeSetupReport {
  /** The command that ran, or null when there was none to run. */
  command: string | null;
  status: 'none' | 'ok' | 'failed' | 'timed_out';
  exit_code: number | null;
  duration_ms: number;
  /** The last lines it printed (control characters left as they came; the CLI shows them made visible). */
  output_tail: string;
}

/** What `.worktreeinclude` brought over from the main checkout. */
export interface WorktreeIncludeReport {
  copied: string[];
  /** Matched but not copied (a symbolic link, not a regular file, a path through a link), with why. */
  skipped: { path: string; why: string }[];
}

/** What corral knows of a worktree it made (and keeps in its registry, src/worktree/registry.ts). */
export interface WorktreeFacts {
  name: string;
  path: string;
  /** The main checkout of the repository it belongs to. */
  repo: string;
  branch: string;
  /** The commit it started from. */
  base: string;
  /** 1, 2, … unique among the live worktrees of its repository (`CORRAL_WORKTREE_INDEX`). */
  index: number;
}

/** A worktree just made, as `agent.start`, `workspace.create` and `workspace.up` report it. */
export interface WorktreeCreated extends WorktreeFacts {
  include: WorktreeIncludeReport;
  setup: WorktreeSetupReport;
}

/** One worktree corral made (`worktree.list`, SPEC §15). */
export interface WorktreeInfo extends WorktreeFacts {
  created_at: string;
  /** The live agent working in it (its name, else its kind), or null. */
  agent: string | null;
  /** Panes of this server whose working directory is in it. */
  panes: string[];
  /** It holds uncommitted changes (staged, unstaged or untracked). */
  dirty: boolean;
  /** Merging its branch into the main checkout's branch would change nothing. */
  merged: boolean;
  /** Commits on its branch not on the main checkout's branch, and the other way round. */
  ahead: number;
  behind: number;
  /** Its directory is gone (removed by hand); prune drops the record and the branch if merged. */
  missing: boolean;
}

/** One changed file of a worktree against its base (`worktree.diff`). */
export interface WorktreeDiffFile {
  path: string;
  /** The old path of a rename or copy. */
  old_path?: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed' | 'copied' | 'type_changed' | 'untracked';
  /** Lines added and removed; null for a binary file. */
  added: number | null;
  removed: number | null;
}

/** `worktree.diff` / `agent.diff`. */
export interface WorktreeDiffResult {
  worktree: string;
  branch: string;
  base: string;
  files: WorktreeDiffFile[];
  added: number;
  removed: number;
  /** The unified diff (`git diff <base>` plus the untracked files), unless `patch: false`. */
  patch?: string;
  /** The patch was cut at the size limit. */
  truncated?: boolean;
}

/** `worktree.merge` / `agent.merge`. */
export interface WorktreeMergeResult {
  worktree: string;
  branch: string;
  /** The main checkout's branch it went into. */
  into: string;
  mode: 'merge' | 'squash' | 'rebase';
  /** The commit made of the worktree's uncommitted changes first, or null when it had none. */
  committed: string | null;
  /** The main checkout's HEAD after the merge. */
  head: string;
  /** Nothing to merge: the branch was already in. */
  up_to_date: boolean;
}

/** `worktree.prune`: what went, what stayed and why. */
export interface WorktreePruneResult {
  dry_run: boolean;
  removed: string[];
  kept: { name: string; reasons: string[] }[];
}

/** What an agent object says about the worktree its pane works in. */
export interface AgentWorktree {
  name: string;
  branch: string;
  /** Lines added and removed against the base, as of the last refresh; null before the first. */
  added: number | null;
  removed: number | null;
}
