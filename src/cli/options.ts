/** Option definitions several verbs share, so their wording and units stay the same everywhere. */
import path from 'node:path';

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
