/**
 * Real git repositories in temporary directories for the worktree tests: the identity comes
 * from the environment, so no global git config is needed (a clean CI machine has none).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Who commits in tests, and nothing from the machine's own git config. */
export const GIT_TEST_ENV: Record<string, string> = {
  GIT_AUTHOR_NAME: 'Corral Test',
  GIT_AUTHOR_EMAIL: 'test@corral.invalid',
  GIT_COMMITTER_NAME: 'Corral Test',
  GIT_COMMITTER_EMAIL: 'test@corral.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

/** Makes `repo` a repository holding one commit of `files` (branch main); returns a runner of git in it (its stdout). */
export function initRepo(repo: string, files: Record<string, string>): (...args: string[]) => string {
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  mkdirSync(repo, { recursive: true });
  git('init', '-q', '-b', 'main');
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(repo, name), text);
  git('add', '--all');
  git('commit', '-q', '-m', 'initial');
  return git;
}

/** A scratch directory with a `repo` holding one commit of `files`. */
export class ScratchRepo {
  readonly dir: string;
  readonly repo: string;
  readonly env: NodeJS.ProcessEnv;

  constructor(files: Record<string, string> = { 'README.md': 'hello\n' }) {
    this.dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'corral-git-')));
    this.repo = path.join(this.dir, 'repo');
    this.env = { PATH: process.env.PATH, HOME: path.join(this.dir, 'home'), XDG_STATE_HOME: path.join(this.dir, 'state'), XDG_DATA_HOME: path.join(this.dir, 'data'), ...GIT_TEST_ENV };
    mkdirSync(this.env.HOME!, { recursive: true });
    mkdirSync(this.repo);
    this.git(this.repo, 'init', '-q', '-b', 'main');
    this.write(this.repo, files);
    this.commitAll(this.repo, 'initial');
  }

  /** Runs git in `cwd`; its stdout. */
  git(cwd: string, ...args: string[]): string {
    return execFileSync('git', ['-C', cwd, ...args], { env: this.env, encoding: 'utf8' });
  }

  write(dir: string, files: Record<string, string>): void {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), text);
    }
  }

  commitAll(dir: string, message: string): void {
    this.git(dir, 'add', '--all');
    this.git(dir, 'commit', '-q', '--allow-empty', '-m', message);
  }

  /** HEAD, the index (as `ls-files -s`) and the status of a checkout: what "unchanged" compares. */
  snapshot(dir: string): { head: string; index: string; status: string } {
    return { head: this.git(dir, 'rev-parse', 'HEAD'), index: this.git(dir, 'ls-files', '-s'), status: this.git(dir, 'status', '--porcelain=v1', '--untracked-files=all') };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
