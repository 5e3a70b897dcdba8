/**
 * `.worktreeinclude` (SPEC §15, the convention Claude Code and other agent tools share): the
 * files it names (gitignore syntax) that git ignores — `.env`, local secrets, nothing
 * tracked — are copied from the main checkout into a new worktree where they are missing.
 * git does the matching (`ls-files --exclude-from`, then `check-ignore`); corral only copies,
 * and never through a symbolic link at either end.
 */
import { constants, lstatSync, mkdirSync, type Stats } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import type { WorktreeIncludeReport } from '../contract/protocol.js';
import { git, nulFields, type GitContext } from './git.js';

export const INCLUDE_FILE = '.worktreeinclude';

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** The ignored, untracked files of the main checkout that `.worktreeinclude` names, repository-relative. */
export async function includedFiles(ctx: GitContext, main: string): Promise<string[]> {
  const listFile = path.join(main, INCLUDE_FILE);
  if (!lstatOrNull(listFile)?.isFile()) return [];
  const named = await git(ctx, main, ['ls-files', '-z', '--others', '--ignored', `--exclude-from=${listFile}`], { readOnly: true });
  const candidates = nulFields(named.stdout);
  if (candidates.length === 0) return [];
  // Only what git itself ignores: a file the include list names but git tracks or would add is not a secret to copy.
  const ignored = await git(ctx, main, ['check-ignore', '-z', '--stdin'], { readOnly: true, input: candidates.join('\0') + '\0', ok: [1] });
  return nulFields(ignored.stdout);
}

/**
 * Why `rel` cannot be copied into `worktree`, or null after making its missing parent
 * directories: a parent that is a symbolic link (a tracked link would carry the copy out of
 * the worktree) or not a directory.
 */
function prepareParents(worktree: string, rel: string): string | null {
  const parts = rel.split('/').slice(0, -1);
  let at = worktree;
  for (const part of parts) {
    at = path.join(at, part);
    const stats = lstatOrNull(at);
    if (stats === null) mkdirSync(at, { mode: 0o700 });
    else if (stats.isSymbolicLink()) return `${path.relative(worktree, at)} is a symbolic link in the worktree`;
    else if (!stats.isDirectory()) return `${path.relative(worktree, at)} is not a directory in the worktree`;
  }
  return null;
}

/** Copies the `.worktreeinclude` files from `main` into `worktree` where they are missing. */
export async function copyIncluded(ctx: GitContext, main: string, worktree: string): Promise<WorktreeIncludeReport> {
  const report: WorktreeIncludeReport = { copied: [], skipped: [] };
  for (const rel of await includedFiles(ctx, main)) {
    const source = lstatOrNull(path.join(main, rel));
    if (!source?.isFile()) {
      report.skipped.push({ path: rel, why: source?.isSymbolicLink() ? 'a symbolic link in the main checkout' : 'not a regular file' });
      continue;
    }
    if (lstatOrNull(path.join(worktree, rel)) !== null) continue; // present: not missing, so not copied
    const why = prepareParents(worktree, rel);
    if (why !== null) {
      report.skipped.push({ path: rel, why });
      continue;
    }
    try {
      // COPYFILE_EXCL: the target is opened O_EXCL, so nothing that appeared there meanwhile (a link) is written through.
      await copyFile(path.join(main, rel), path.join(worktree, rel), constants.COPYFILE_EXCL);
      report.copied.push(rel);
    } catch (error) {
      report.skipped.push({ path: rel, why: (error as NodeJS.ErrnoException).code ?? (error as Error).message });
    }
  }
  return report;
}
