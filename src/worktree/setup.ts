/**
 * A new worktree's setup (SPEC §15): `[worktree] setup` (a shell command from the user's
 * config) or else the repository's own executable `.corral/worktree-setup`, run in the
 * worktree with the worktree's facts in its environment. Its output goes to the caller as it
 * comes (the pane shows it) and its tail is kept for the report; a run past the timeout has
 * its process group stopped, TERM then KILL. Started through the panes' fd-closing step, so
 * it holds no pane's terminal (SPEC §8).
 */
import { spawn } from 'node:child_process';
import { lstatSync, accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { WorktreeSetupReport } from '../contract/protocol.js';
import { isolatedCommand } from '../pty/isolated-exec.js';
import { definedOnly } from './git.js';
import type { WorktreeRecord } from './registry.js';

export const SETUP = {
  /** The repository's own setup, relative to the worktree. */
  script: '.corral/worktree-setup',
  /** After TERM at the timeout, a setup that is still there gets KILL this much later. */
  killGraceMs: 2000,
  /** The report keeps this much of the end of the output. */
  tailChars: 4000,
  /**
   * Once the setup exited, its output pipes may stay open in a process it left running in the
   * background (a dev server): what arrives within this long is still shown, then it is done.
   */
  drainMs: 250,
} as const;

/** The report of a worktree with no setup to run. */
export const NO_SETUP: WorktreeSetupReport = Object.freeze({ command: null, status: 'none', exit_code: null, duration_ms: 0, output_tail: '' });

/** What runs: the configured command through `/bin/sh -c`, else the repository's script; null for nothing. */
export function setupCommand(configured: string, worktree: string): { file: string; args: string[]; shown: string } | null {
  if (configured.trim() !== '') return { file: '/bin/sh', args: ['-c', configured], shown: configured };
  const script = path.join(worktree, SETUP.script);
  try {
    // A regular file of the checkout: a symbolic link could point anywhere on the machine.
    if (!lstatSync(script).isFile()) return null;
    accessSync(script, constants.X_OK);
  } catch {
    return null;
  }
  return { file: script, args: [], shown: SETUP.script };
}

/** The variables a setup gets (SPEC §15), over the server's environment. */
export function setupEnvironment(base: NodeJS.ProcessEnv, record: WorktreeRecord): Record<string, string> {
  return {
    ...definedOnly(base),
    CORRAL_WORKTREE_PATH: record.path,
    CORRAL_MAIN_REPO: record.repo,
    CORRAL_BRANCH: record.branch,
    CORRAL_BASE: record.base,
    CORRAL_WORKTREE_INDEX: String(record.index),
  };
}

export interface SetupRun {
  configured: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Each piece of output as it comes (stdout and stderr together). */
  onOutput: (text: string) => void;
  signal?: AbortSignal;
}

/** Runs the worktree's setup, if it has one, and reports how it went. Never throws for the setup's own failure. */
export function runSetup(record: WorktreeRecord, run: SetupRun): Promise<WorktreeSetupReport> {
  const command = setupCommand(run.configured, record.path);
  if (command === null) return Promise.resolve(NO_SETUP);
  const started = Date.now();
  return new Promise((resolve) => {
    const isolated = isolatedCommand(command.file, command.args, setupEnvironment(run.env, record));
    // Its own process group (detached), so a timeout stops everything it started.
    const child = spawn(isolated.file, isolated.args, { cwd: record.path, env: isolated.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let tail = '';
    let timedOut = false;
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      tail = (tail + text).slice(-SETUP.tailChars);
      run.onOutput(text);
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    const stopGroup = (signal: NodeJS.Signals) => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, signal);
      } catch {
        // Gone already.
      }
    };
    let killTimer: NodeJS.Timeout | null = null;
    const stop = () => {
      stopGroup('SIGTERM');
      killTimer = setTimeout(() => stopGroup('SIGKILL'), SETUP.killGraceMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, run.timeoutMs);
    const onAbort = () => stop();
    run.signal?.addEventListener('abort', onAbort, { once: true });
    let finished = false;
    let drainTimer: NodeJS.Timeout | null = null;
    const finish = (report: Omit<WorktreeSetupReport, 'command' | 'duration_ms' | 'output_tail'>) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      child.stdout!.destroy();
      child.stderr!.destroy();
      if (killTimer) clearTimeout(killTimer);
      run.signal?.removeEventListener('abort', onAbort);
      resolve({ command: command.shown, duration_ms: Date.now() - started, output_tail: tail, ...report });
    };
    child.on('error', (error) => {
      tail += `\n${error.message}`;
      finish({ status: 'failed', exit_code: null });
    });
    const outcome = (code: number | null) => (timedOut ? { status: 'timed_out' as const, exit_code: code } : { status: code === 0 ? ('ok' as const) : ('failed' as const), exit_code: code });
    child.on('exit', (code) => {
      drainTimer = setTimeout(() => finish(outcome(code)), SETUP.drainMs);
    });
    child.on('close', (code) => finish(outcome(code)));
  });
}
