/** Option definitions several verbs share, so their wording and units stay the same everywhere. */
import path from 'node:path';
import { UsageError } from './output.js';

/** `--json` on Conductor verbs. */
export const jsonOption = { type: 'boolean', default: false, describe: 'print the result as JSON' } as const;

/** `<target>` on Conductor verbs (SPEC §2 selectors). */
export const targetPositional = {
  type: 'string',
  demandOption: true,
  describe: 'selector: surface id, pane id (w1:p2), agent or pane name, cmdline:<substr>, cwd:<path>',
} as const;

/** `--focus` / `--no-focus` on verbs that create something. */
export const focusOption = {
  type: 'boolean',
  default: true,
  describe: 'focus it (--no-focus to leave focus where it is)',
} as const;

/** A `--cwd` value made absolute against the caller's directory (the server has its own). */
export function absoluteCwd(cwd: string | undefined): string | undefined {
  return cwd === undefined ? undefined : path.resolve(cwd);
}

/** Key names the send-keys verbs understand (SPEC §6), for their `--help`. */
export const KEY_NAMES =
  'enter, esc (or escape), tab, backspace, space, up, down, left, right, home, end, pageup, pagedown, ' +
  'ctrl+<letter>, alt+<key>, f1…f12, or one literal character';

/** `--branch`, `--base`, `--keep-going`: how a new worktree is made (SPEC §15); with `--worktree`. */
export const WORKTREE_OPTIONS = {
  branch: { type: 'string', describe: 'with --worktree: the new branch (default corral/NAME)' },
  base: { type: 'string', describe: 'with --worktree: the commit it starts from (default: the current HEAD)' },
  'keep-going': { type: 'boolean', describe: 'with --worktree: go on when the worktree\u2019s setup fails or times out' },
} as const;

/** The `worktree`, `branch`, `base`, `keep_going` params, or a usage error for the flags without a worktree. */
export function worktreeParams(
  name: string | undefined,
  argv: { branch?: string; base?: string; keepGoing?: boolean },
): { worktree?: string; branch?: string; base?: string; keep_going?: boolean } {
  if (name === undefined) {
    const stray = argv.branch !== undefined ? '--branch' : argv.base !== undefined ? '--base' : argv.keepGoing !== undefined ? '--keep-going' : null;
    if (stray) throw new UsageError(`${stray} needs --worktree`);
    return {};
  }
  return { worktree: name, branch: argv.branch, base: argv.base, keep_going: argv.keepGoing };
}
