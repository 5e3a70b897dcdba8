/**
 * Pane isolation (SPEC §8): a pane's process must hold no file descriptor but its own
 * terminal's. node-pty 1.1 on Linux forks with forkpty(3) and execs the program directly;
 * every pty master it created before (and any fd the server inherited without close-on-exec)
 * is still open in the child, so one pane could type into another (`printf 'x\r' >&21`) and
 * would keep the other panes' terminals alive after the server died.
 *
 * Node has no fcntl(2) to mark the masters close-on-exec, so the child does what tmux's
 * child does (closefrom(3)): it execs a tiny bash step that closes every fd above 2 and then
 * execs the real program in the same process (same pid, same session, same pty). Closing in
 * the child also covers fds no code of ours knows about. See docs/decisions.md.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Closes fds > 2 (listed from /proc/self/fd; the directory's own fd is gone by the time the
 * loop runs, and closing a closed fd is a no-op in bash), then replaces itself with "$@".
 * bash rather than sh: dash cannot name an fd above 9 in a redirection.
 */
const CLOSE_FDS_SCRIPT =
  'shopt -s nullglob; for fd in /proc/self/fd/*; do fd=${fd##*/}; ' +
  'if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi; done; exec -- "$@"';

/** `$0` of the closing step, which is what /proc shows for the instant before the exec. */
const STEP_NAME = 'corral-pane';

/** Absolute path of an executable regular file, looking `file` up in `path` unless it has a slash. */
export function findExecutable(file: string, path: string | undefined): string | null {
  const candidates = file.includes('/') ? [file] : (path ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, file));
  for (const candidate of candidates) {
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Missing or not executable: try the next one.
    }
  }
  return null;
}

let bashPath: string | null | undefined;

/** bash, found once per process: /bin/bash, else on the server's PATH. */
function closingShell(): string | null {
  if (bashPath === undefined) bashPath = findExecutable('/bin/bash', undefined) ?? findExecutable('bash', process.env.PATH);
  return bashPath;
}

/** The program and arguments that run `file args` with every inherited fd above 2 closed. */
export function isolatedCommand(file: string, args: readonly string[]): { file: string; args: string[]; isolated: boolean } {
  const bash = closingShell();
  if (bash === null) return { file, args: [...args], isolated: false };
  // --posix: a non-interactive bash would otherwise source $BASH_ENV before the program runs.
  return { file: bash, args: ['--posix', '-c', CLOSE_FDS_SCRIPT, STEP_NAME, file, ...args], isolated: true };
}
