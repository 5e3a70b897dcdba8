/**
 * Checkpoints in git (SPEC §20), with git's plumbing only: a checkpoint is a commit object of
 * the working tree as it is — tracked and untracked files, ignored files left out — built in
 * an index of corral's own (`<git dir>/corral-checkpoint-index`, one per checkout) and kept
 * under `refs/corral/checkpoints/<agent>/<id>`. That index starts as a copy of the checkout's
 * own, so git's stat cache makes the first checkpoint cheap, and stays between checkpoints,
 * so each later one hashes only what changed. HEAD, the checkout's index, the stash, branches
 * and the files are never touched; nothing here runs a hook.
 *
 * What a checkpoint was (its turn, the prompt, when, what it cost) is a JSON line in its
 * commit message: the refs are the whole record, so the list survives a restart with nothing
 * else to save, and `git log`/`git show` read them like any commit.
 */
import { constants } from 'node:fs';
import { copyFile, lstat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { git, gitText, nulFields, runGit, type GitContext } from '../worktree/git.js';

/** The namespace of every checkpoint ref. */
export const CHECKPOINT_REFS = 'refs/corral/checkpoints';

/** Who makes checkpoint commits: git needs a name, and the user's may be unset. */
const CHECKPOINT_IDENT = {
  GIT_AUTHOR_NAME: 'corral',
  GIT_AUTHOR_EMAIL: 'corral@localhost',
  GIT_COMMITTER_NAME: 'corral',
  GIT_COMMITTER_EMAIL: 'corral@localhost',
} as const;

/**
 * Settings for runs on corral's own index: no split index (its shared files would land in the
 * git dir); the untracked cache on, kept in that index, so a directory unchanged since the last
 * checkpoint is not read again for untracked files.
 */
const OWN_INDEX_CONFIG = ['-c', 'core.splitIndex=false', '-c', 'core.untrackedCache=true', '-c', 'advice.addEmbeddedRepo=false'] as const;

/** A lock on corral's index older than this was left by a run that died: removed before the next. */
const STALE_LOCK_MS = 30_000;

/** The checkout a directory is in. */
export interface Checkout {
  /** Its top directory (the working tree's root). */
  top: string;
  /** Its own git directory (a linked worktree's is under the main one's `worktrees/`). */
  gitDir: string;
  /** HEAD's commit, or null in a repository with no commit yet. */
  head: string | null;
}

/** What a checkpoint says of itself (its commit message's JSON line). */
export interface CheckpointFacts {
  id: number;
  /** The turn it starts (`reason: turn`), or the turn that was current (`reason: rewind`). */
  turn: number;
  /** ISO time it was taken. */
  at: string;
  /** The prompt's first 80 characters ('' for a rewind). */
  prompt: string;
  reason: 'turn' | 'rewind';
  /** Milliseconds taking it cost. */
  ms: number;
  /** The checkout it was taken of: a name's refs may hold checkpoints of several worktrees. */
  checkout: string;
  /** The agent's kind. */
  kind: string;
  /** Finished only after the prompt was submitted (a slow disk): the agent may have begun by then. */
  late?: boolean;
  /** Untracked files too large to keep (the first `maxLeftOutNamed`). */
  left_out?: string[];
}

export interface CheckpointRecord extends CheckpointFacts {
  ref: string;
  commit: string;
}

/** The checkout holding `dir`, or null when it is in none (not a repository, a bare one, git missing). */
export async function findCheckout(ctx: GitContext, dir: string): Promise<Checkout | null> {
  let result;
  try {
    result = await runGit(ctx, dir, ['rev-parse', '--show-toplevel', '--absolute-git-dir', '--verify', '--quiet', 'HEAD^{commit}'], { readOnly: true });
  } catch {
    return null;
  }
  const [top, gitDir, head] = result.stdout.toString('utf8').split('\n');
  if (!top || !gitDir || !path.isAbsolute(top)) return null;
  return { top, gitDir, head: result.code === 0 && head ? head : null };
}

/** The ref of checkpoint `id` of agent `key`. */
export function checkpointRef(key: string, id: number): string {
  return `${CHECKPOINT_REFS}/${key}/${id}`;
}

/** Where corral's own index of a checkout lives. */
function ownIndex(checkout: Checkout): string {
  return path.join(checkout.gitDir, 'corral-checkpoint-index');
}

/** Starts corral's index from the checkout's own (its stat cache), and clears a lock a dead run left. */
async function prepareIndex(checkout: Checkout): Promise<string> {
  const index = ownIndex(checkout);
  const lock = await lstat(`${index}.lock`).catch(() => null);
  if (lock && Date.now() - lock.mtimeMs > STALE_LOCK_MS) await unlink(`${index}.lock`).catch(() => {});
  if (!(await lstat(index).catch(() => null))) {
    // No index yet (a new checkout has none either): git starts an empty one.
    await copyFile(path.join(checkout.gitDir, 'index'), index, constants.COPYFILE_EXCL).catch(() => {});
  }
  return index;
}

export const CHECKPOINT_LIMITS = {
  /**
   * An untracked file larger than this is left out of checkpoints (and named): a build output
   * or a download nobody ignored would otherwise be copied into the object store every turn.
   */
  maxUntrackedFileBytes: 16 * 1024 * 1024,
  /** Left-out paths a checkpoint names (the rest are counted in the message only). */
  maxLeftOutNamed: 20,
} as const;

/**
 * The files too large to checkpoint that are not in corral's index yet (untracked, not
 * ignored, new since the last checkpoint), repository-relative.
 */
async function oversizeUntracked(ctx: GitContext, checkout: Checkout, env: Record<string, string>): Promise<string[]> {
  const out = await git(ctx, checkout.top, [...OWN_INDEX_CONFIG, 'ls-files', '-z', '--others', '--exclude-standard'], { env });
  const big: string[] = [];
  for (const file of nulFields(out.stdout)) {
    const stat = await lstat(path.join(checkout.top, file)).catch(() => null);
    if (stat?.isFile() && stat.size > CHECKPOINT_LIMITS.maxUntrackedFileBytes) big.push(file);
  }
  return big;
}

/**
 * The working tree as a tree object: every file git would show (tracked, and untracked but
 * not ignored) as it is on disk now. Files it cannot read are left out (`--ignore-errors`),
 * never the whole checkpoint, and so are untracked files over `maxUntrackedFileBytes`
 * (`leftOut` names them).
 */
export async function snapshotTree(ctx: GitContext, checkout: Checkout): Promise<{ tree: string; leftOut: string[] }> {
  const env = { GIT_INDEX_FILE: await prepareIndex(checkout) };
  const leftOut = await oversizeUntracked(ctx, checkout, env);
  const add = [...OWN_INDEX_CONFIG, 'add', '--all', '--ignore-errors'];
  if (leftOut.length === 0) await git(ctx, checkout.top, [...add, '--', ':/'], { env, ok: [1] });
  else {
    // Pathspecs from stdin: a left-out file's name is never an option, and any number fits.
    const pathspecs = [':/', ...leftOut.map((file) => `:(top,exclude,literal)${file}`)];
    await git(ctx, checkout.top, [...add, '--pathspec-from-file=-', '--pathspec-file-nul'], { env, ok: [1], input: pathspecs.join('\0') });
  }
  return { tree: await gitText(ctx, checkout.top, [...OWN_INDEX_CONFIG, 'write-tree'], { env }), leftOut };
}

/** The commit message: a subject people read, then the facts as one JSON line. */
export function checkpointMessage(key: string, facts: CheckpointFacts): string {
  const what = facts.reason === 'turn' ? `before turn ${facts.turn}` : `before a rewind (turn ${facts.turn})`;
  return `corral checkpoint ${key}/${facts.id}: ${what}\n\n${JSON.stringify(facts)}\n`;
}

/** Reads the facts back from a message body; null for anything that is not a checkpoint's. */
export function parseFacts(body: string): CheckpointFacts | null {
  const line = body.split('\n').find((l) => l.startsWith('{'));
  if (!line) return null;
  try {
    const facts = JSON.parse(line) as Partial<CheckpointFacts>;
    if (!Number.isSafeInteger(facts.id) || !Number.isSafeInteger(facts.turn) || typeof facts.at !== 'string' || typeof facts.checkout !== 'string') return null;
    if (facts.reason !== 'turn' && facts.reason !== 'rewind') return null;
    return {
      id: facts.id!,
      turn: facts.turn!,
      at: facts.at,
      prompt: typeof facts.prompt === 'string' ? facts.prompt : '',
      reason: facts.reason,
      ms: typeof facts.ms === 'number' ? facts.ms : 0,
      checkout: facts.checkout,
      kind: typeof facts.kind === 'string' ? facts.kind : '',
      ...(facts.late === true ? { late: true } : {}),
      ...(Array.isArray(facts.left_out) ? { left_out: facts.left_out.filter((f): f is string => typeof f === 'string') } : {}),
    };
  } catch {
    return null;
  }
}

/** A commit of `tree` with the facts as its message; its parent is HEAD when there is one. */
export async function commitTree(ctx: GitContext, checkout: Checkout, tree: string, message: string): Promise<string> {
  // HEAD by name: it is read as the commit is made, so a checkout found a moment ago is not stale.
  const parent = checkout.head ? ['-p', 'HEAD'] : [];
  // commit.gpgSign would ask for a passphrase or a key: a checkpoint is never signed.
  return gitText(ctx, checkout.top, ['commit-tree', '--no-gpg-sign', ...parent, '-m', message, tree], { env: CHECKPOINT_IDENT });
}

/**
 * Creates `ref` at `commit` (it must not exist yet: two servers never overwrite each other's)
 * and deletes `drop`, in one transaction.
 */
export async function storeRef(ctx: GitContext, checkout: Checkout, ref: string, commit: string, drop: readonly string[]): Promise<void> {
  // An empty old value: the ref must not exist yet. Without refs to drop, no stdin is needed.
  if (drop.length === 0) {
    await git(ctx, checkout.top, ['update-ref', '--no-deref', ref, commit, '']);
    return;
  }
  const lines = [`create ${ref} ${commit}`, ...drop.map((old) => `delete ${old}`)];
  await git(ctx, checkout.top, ['update-ref', '--no-deref', '--stdin'], { input: `${lines.join('\n')}\n` });
}

/** Deletes refs, in one transaction. */
export async function deleteRefs(ctx: GitContext, repo: string, refs: readonly string[]): Promise<void> {
  if (refs.length === 0) return;
  await git(ctx, repo, ['update-ref', '--no-deref', '--stdin'], { input: `${refs.map((ref) => `delete ${ref}`).join('\n')}\n` });
}

/** Every checkpoint under `prefix` (one agent's, or all), oldest id first; refs that are not checkpoints are skipped. */
export async function readCheckpoints(ctx: GitContext, repo: string, prefix: string): Promise<CheckpointRecord[]> {
  const out = await git(ctx, repo, ['for-each-ref', '--format=%(refname)%00%(objectname)%00%(contents:body)%00', prefix], { readOnly: true });
  const fields = nulFields(out.stdout);
  const records: CheckpointRecord[] = [];
  for (let i = 0; i + 2 < fields.length; i += 3) {
    const ref = (fields[i] ?? '').replace(/^\n/, '');
    const commit = fields[i + 1] ?? '';
    const facts = parseFacts(fields[i + 2] ?? '');
    if (!ref || !commit || !facts) continue;
    records.push({ ...facts, ref, commit });
  }
  return records.sort((a, b) => a.id - b.id);
}

/**
 * Puts the working tree's files back as `target` has them, from `current` (a tree of the
 * files as they are now, just taken in corral's index): git's two-tree merge (`read-tree -m
 * -u`) updates exactly the paths that differ — changed files restored, files created since
 * removed (and directories they leave empty), deleted files back — in corral's index, never
 * through a symbolic link. Ignored files stay, unless the checkpoint holds a file at that path.
 */
export async function restoreTree(ctx: GitContext, checkout: Checkout, current: string, target: string): Promise<void> {
  const env = { GIT_INDEX_FILE: ownIndex(checkout) };
  await git(ctx, checkout.top, [...OWN_INDEX_CONFIG, 'read-tree', '-m', '-u', '--exclude-per-directory=.gitignore', current, `${target}^{tree}`], { env });
}

/** Checks that `commit` is a commit of this repository (a checkpoint pruned by gc, or from elsewhere, is not). */
export async function requireCommit(ctx: GitContext, checkout: Checkout, commit: string): Promise<void> {
  const result = await runGit(ctx, checkout.top, ['cat-file', '-e', `${commit}^{commit}`], { readOnly: true });
  if (result.code !== 0) throw new CorralError('checkpoint_not_found', `checkpoint commit ${commit.slice(0, 10)} is gone from ${checkout.top}`);
}
