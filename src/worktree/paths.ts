/**
 * Where worktrees go and the path checks around them: `<root>/<name>`, the root being
 * `[worktree] root` or `$XDG_DATA_HOME/corral/worktrees/<repo name>-<short hash of its path>`
 * (SPEC §15). A worktree's own directory is never reached through a symbolic link: one
 * planted at `<root>/<name>` would send a creation, a copy or a removal somewhere else.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, realpathSync } from 'node:fs';
import { lstatOrNull } from '../persist/state-files.js';
import os from 'node:os';
import path from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { firstControl } from '../terminal/control-chars.js';

type Env = Record<string, string | undefined>;

export const WORKTREE_PATHS = {
  /** Hex digits of the repository path's hash in the default root: enough to tell a user's repositories apart. */
  hashChars: 8,
} as const;

/** `$XDG_DATA_HOME/corral/worktrees` (an absolute XDG_DATA_HOME only), else `~/.local/share/corral/worktrees`. */
export function defaultWorktreesDir(env: Env): string {
  const xdg = env.XDG_DATA_HOME;
  const base = xdg !== undefined && xdg !== '' && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.local', 'share');
  return path.join(base, 'corral', 'worktrees');
}

/** The directory a repository's worktrees go in. */
export function worktreeRoot(configured: string, repo: string, env: Env): string {
  if (configured === '') {
    const hash = createHash('sha256').update(repo).digest('hex').slice(0, WORKTREE_PATHS.hashChars);
    return path.join(defaultWorktreesDir(env), `${path.basename(repo) || 'repo'}-${hash}`);
  }
  const home = env.HOME || os.homedir();
  const expanded = configured === '~' ? home : configured.startsWith('~/') ? path.join(home, configured.slice(2)) : configured;
  return path.resolve(repo, expanded);
}

/**
 * Makes the root (0700 where corral creates it) and checks a new worktree's directory is free:
 * anything at `<root>/<name>` — a file, a directory, a symbolic link — is `worktree_exists`.
 * A root holding a control character is refused: the path is typed into a shell (`cd`) and shown.
 * Returns the worktree's path under the root's real path.
 */
export function prepareWorktreePath(root: string, name: string): string {
  if (firstControl(root, { allowTab: false })) throw new CorralError('invalid_params', `the worktree root ${JSON.stringify(root)} holds a control character; set [worktree] root to a plain path`);
  mkdirSync(root, { recursive: true, mode: 0o700 });
  // The real path: a pane's cwd (read from /proc) is compared with it.
  const real = realpathSync(root);
  if (!lstatSync(real).isDirectory()) throw new CorralError('invalid_params', `the worktree root ${root} is not a directory`);
  const target = path.join(real, name);
  if (lstatOrNull(target) !== null) {
    throw new CorralError('worktree_exists', `${target} is in the way: something exists there already`, { path: target });
  }
  return target;
}

/** Throws unless `dir` is a real directory (not a symbolic link): what may be removed or copied into as a worktree. */
export function assertRealDirectory(dir: string): void {
  const stats = lstatOrNull(dir);
  if (stats?.isSymbolicLink()) throw new CorralError('git_failed', `${dir} is a symbolic link, not the worktree corral made: left alone`, { path: dir });
}

/** Whether `p` is `dir` or inside it (both absolute, normalised). */
export function isInside(p: string, dir: string): boolean {
  const rel = path.relative(dir, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
