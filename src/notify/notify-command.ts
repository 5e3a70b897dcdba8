/**
 * Runs `[notify] command` for one notification: `/bin/sh -c <command>` with the event as one
 * line of JSON on stdin, detached from the TUI's terminal (stdout/stderr discarded) and
 * killed if it runs too long, so a stuck notifier never piles up processes.
 */
import { spawn } from 'node:child_process';

const COMMAND_LIMITS = {
  /** A desktop notifier or a relay to a phone answers in well under this. */
  timeoutMs: 10_000,
} as const;

/** Starts the command; `onError` hears of a failure to start, a non-zero exit or a timeout. */
export function runNotifyCommand(command: string, event: object, onError: (message: string) => void): void {
  let child;
  try {
    child = spawn('/bin/sh', ['-c', command], { stdio: ['pipe', 'ignore', 'ignore'], detached: false });
  } catch (error) {
    onError(`[notify] command could not start: ${(error as Error).message}`);
    return;
  }
  const timer = setTimeout(() => {
    child.kill('SIGKILL');
    onError(`[notify] command ran longer than ${COMMAND_LIMITS.timeoutMs / 1000} s and was stopped`);
  }, COMMAND_LIMITS.timeoutMs);
  timer.unref();
  child.on('error', (error) => {
    clearTimeout(timer);
    onError(`[notify] command could not start: ${error.message}`);
  });
  child.on('exit', (code, signal) => {
    clearTimeout(timer);
    if (code !== 0 && signal !== 'SIGKILL') onError(`[notify] command exited with ${code ?? signal}`);
  });
  // A command that does not read its stdin closes the pipe: that is its choice, not an error.
  child.stdin.on('error', () => {});
  child.stdin.end(`${JSON.stringify(event)}\n`);
}
