/**
 * Runs git (SPEC §15: git does the work, corral never edits files itself): argv only, never a
 * shell, in an environment cleaned of the variables that would point git at another
 * repository, with output read as bytes (paths with `-z`, so nothing is quoted or mangled).
 * Every other module of src/worktree/ talks to git through `git()` here.
 *
 * A git run that may start the repository's hooks (`hooks: true`: post-checkout on `worktree
 * add`, pre-commit on a merge's commit, post-merge, pre-rebase) goes through the panes'
 * fd-closing step (src/pty/isolated-exec.ts): a hook can be the repository's own code
 * (`core.hooksPath` pointing into the checkout, as husky sets it), and must not inherit the
 * panes' pty masters any more than a pane's own programs do (SPEC §8). Other runs start git
 * directly — the step's bash start and `env` exec doubled each git call's cost — and run no
 * hook; the only programs they may start are the user's own configured filters (git-lfs), and
 * never an fsmonitor hook (`core.fsmonitor` is turned off for them).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { isolatedCommand } from '../pty/isolated-exec.js';

/** Variables that would make git act on another repository, index or object store than the one named. */
const REDIRECTING_GIT_VARS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_QUARANTINE_PATH',
] as const;

export const GIT_LIMITS = {
  /** Output kept from one git run: a diff past this is cut (the caller says so). */
  maxOutputBytes: 64 * 1024 * 1024,
  /** Error text kept for a message. */
  maxErrorChars: 2000,
} as const;

const NO_GIT = 'git is not installed (no "git" on the server\'s PATH)';

/** How git is run: the environment it starts from (the server's). */
export interface GitContext {
  env: NodeJS.ProcessEnv;
}

export interface GitRun {
  /** Exit codes that are answers, not failures (`git diff --no-index` exits 1 on a difference). */
  ok?: readonly number[];
  /** Extra variables (a temporary index for a diff). */
  env?: Record<string, string>;
  /** A read that must not take git's optional locks (an agent may be running git in the same checkout). */
  readOnly?: boolean;
  /** It may run the repository's hooks: started through the fd-closing step. */
  hooks?: boolean;
  /** Written to git's stdin. */
  input?: string;
}

export interface GitResult {
  code: number;
  stdout: Buffer;
  stderr: string;
  /** stdout was cut at `GIT_LIMITS.maxOutputBytes`. */
  truncated: boolean;
}

/** The environment git runs in: the base, minus redirecting variables, never prompting, messages in English. */
export function gitEnvironment(base: NodeJS.ProcessEnv, extra: Record<string, string> = {}, readOnly = false): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  for (const name of REDIRECTING_GIT_VARS) delete env[name];
  // A credential or ssh prompt would hang a server request: git fails instead.
  env.GIT_TERMINAL_PROMPT = '0';
  // Error text is matched (conflict lists, "would be overwritten"): one language.
  env.LC_ALL = 'C';
  if (readOnly) env.GIT_OPTIONAL_LOCKS = '0';
  return { ...env, ...extra };
}

/** The variables of an environment that have a value (what `env -i` takes as NAME=VALUE). */
export function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/**
 * `input` as git's stdin: a file, not a pipe. Node's pipes are socket pairs, and bash (the
 * closing step, for runs with hooks) takes a socket on stdin for a remote shell daemon and
 * reads ~/.bashrc.
 */
async function inputFile<T>(input: string | undefined, body: (fd: number | 'ignore') => Promise<T>): Promise<T> {
  if (input === undefined) return body('ignore');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'corral-git-'));
  const file = path.join(dir, 'stdin');
  await writeFile(file, input, { mode: 0o600 });
  const handle = await open(file, 'r');
  try {
    return await body(handle.fd);
  } finally {
    await handle.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `git -C cwd args…`; resolves with its output whatever the exit code (see `git`). */
export function runGit(ctx: GitContext, cwd: string, args: readonly string[], run: GitRun = {}): Promise<GitResult> {
  const env = gitEnvironment(ctx.env, run.env, run.readOnly);
  const argv = [...(run.hooks ? [] : ['-c', 'core.fsmonitor=false']), '-C', cwd, ...args];
  const command = run.hooks ? isolatedCommand('git', argv, definedOnly(env)) : { file: 'git', args: argv, env };
  return inputFile(
    run.input,
    (stdin) =>
      new Promise((resolve, reject) => {
        const child = spawn(command.file, command.args, { env: command.env, stdio: [stdin, 'pipe', 'pipe'] });
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        let stderr = '';
        child.stdout!.on('data', (chunk: Buffer) => {
          if (size >= GIT_LIMITS.maxOutputBytes) {
            truncated = true;
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        child.stderr!.on('data', (chunk: Buffer) => {
          if (stderr.length < GIT_LIMITS.maxErrorChars * 4) stderr += chunk.toString('utf8');
        });
        child.on('error', (error: NodeJS.ErrnoException) => {
          reject(error.code === 'ENOENT' ? new CorralError('git_failed', NO_GIT) : error);
        });
        child.on('close', (code, signal) => {
          // Through the closing step a missing git is env's 127, not spawn's ENOENT.
          if (code === 127 && /git.*No such file/.test(stderr)) return reject(new CorralError('git_failed', NO_GIT));
          const out = Buffer.concat(chunks);
          resolve({ code: code ?? (signal ? 128 : 1), stdout: truncated ? out.subarray(0, GIT_LIMITS.maxOutputBytes) : out, stderr, truncated });
        });
      }),
  );
}

/** git's complaint, trimmed for a message. */
export function gitMessage(result: Pick<GitResult, 'stderr' | 'stdout'>): string {
  const text = (result.stderr.trim() || result.stdout.toString('utf8').trim()).replace(/\s+/g, ' ');
  return text.length > GIT_LIMITS.maxErrorChars ? `${text.slice(0, GIT_LIMITS.maxErrorChars)}…` : text;
}

/** Runs git and throws `git_failed` (naming the command) unless it exits 0 or with an `ok` code. */
export async function git(ctx: GitContext, cwd: string, args: readonly string[], run: GitRun = {}): Promise<GitResult> {
  const result = await runGit(ctx, cwd, args, run);
  if (result.code !== 0 && !(run.ok ?? []).includes(result.code)) {
    throw new CorralError('git_failed', `git ${args.slice(0, 2).join(' ')} failed in ${cwd}: ${gitMessage(result)}`, {
      exit_code: result.code,
    });
  }
  return result;
}

/** git's stdout as text, without the trailing newline. */
export async function gitText(ctx: GitContext, cwd: string, args: readonly string[], run: GitRun = {}): Promise<string> {
  return (await git(ctx, cwd, args, run)).stdout.toString('utf8').replace(/\n$/, '');
}

/** The NUL-separated fields of `-z` output (the empty field after the last NUL dropped). */
export function nulFields(out: Buffer | string): string[] {
  const text = typeof out === 'string' ? out : out.toString('utf8');
  const fields = text.split('\0');
  if (fields.at(-1) === '') fields.pop();
  return fields;
}
