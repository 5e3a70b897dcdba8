/**
 * Pane isolation (SPEC §8): a pane's process must hold no file descriptor but its own
 * terminal's. node-pty 1.1 on Linux forks with forkpty(3) and execs the program directly;
 * every pty master it created before (and any fd the server inherited without close-on-exec)
 * is still open in the child, so one pane could type into another (`printf 'x\r' >&21`) and
 * would keep the other panes' terminals alive after the server died.
 *
 * Node has no fcntl(2) to mark the masters close-on-exec, so the child does what tmux's
 * child does (closefrom(3)): it execs a tiny bash step that closes every fd above 2 and then
 * execs the real program in the same process (same pid, session and pty). Closing in the
 * child also covers fds no code of ours knows about. See docs/decisions.md.
 *
 * The step runs with an empty environment and hands the pane's environment to `env -i` as
 * arguments: bash rewrites what it imports (drops PS1/PS2 when not interactive, resets IFS,
 * OPTIND, PS4, re-exports BASHOPTS, would source $BASH_ENV), and the program must get exactly
 * the environment corral built for it.
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

/** Where a system keeps a tool, before the server's PATH is searched. */
function systemTool(name: string): string | null {
  return findExecutable(`/usr/bin/${name}`, undefined) ?? findExecutable(`/bin/${name}`, undefined) ?? findExecutable(name, process.env.PATH);
}

let tools: { bash: string; env: string } | null | undefined;

/** bash and env, found once per process; null when either is missing or this is not Linux. */
function closingTools(): { bash: string; env: string } | null {
  if (tools === undefined) {
    // Elsewhere node-pty spawns through posix_spawn with POSIX_SPAWN_CLOEXEC_DEFAULT (macOS).
    const bash = process.platform === 'linux' ? systemTool('bash') : null;
    const env = bash === null ? null : systemTool('env');
    tools = bash !== null && env !== null ? { bash, env } : null;
  }
  return tools;
}

export interface Command {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** False when the fd-closing step is unavailable and `file` runs directly. */
  isolated: boolean;
}

/** What to spawn so that `file args` runs in `env` with every inherited fd above 2 closed. */
export function isolatedCommand(file: string, args: readonly string[], env: Record<string, string>): Command {
  const found = closingTools();
  if (found === null) return { file, args: [...args], env, isolated: false };
  // `--` ends env's options, so no variable name can read as one; the program follows the
  // assignments, and env looks it up on the new PATH as execvp in node-pty would have.
  const assignments = Object.entries(env).map(([key, value]) => `${key}=${value}`);
  return {
    file: found.bash,
    // --posix: no $BASH_ENV or other start-up file, even if one were set.
    args: ['--posix', '-c', CLOSE_FDS_SCRIPT, STEP_NAME, found.env, '-i', '--', ...assignments, file, ...args],
    env: {},
    isolated: true,
  };
}
