/**
 * Notices at once when the shell says an agent's executable does not exist, so `agent start`
 * (and `up` / `flow run`, which start agents the same way) fail in well under a second with
 * the shell's own words instead of waiting out their whole start timeout (issue 14).
 */
import type { PaneHost } from '../pty/pane-host.js';
import type { Disposable } from '../contract/disposable.js';

/** How each common shell reports a command it cannot find (exit status 127). */
const NOT_FOUND_PHRASES = ['command not found', ': not found', 'Unknown command'] as const;

const WATCH = {
  /** Output while an agent starts can stream; the screen is re-read at most this often. */
  checkEveryMs: 100,
  /** Rows read back from the end of the pane's output each time. */
  lines: 40,
} as const;

/**
 * The shell's "not found" line for `executable` among `lines`, or null. A line counts when it
 * names the executable as a word and carries one of the shells' phrases: bash
 * `bash: claude: command not found`, zsh `zsh: command not found: claude`, dash
 * `sh: 1: claude: not found`, fish `fish: Unknown command: claude`.
 */
export function notFoundLine(lines: readonly string[], executable: string): string | null {
  for (const line of lines) {
    if (!NOT_FOUND_PHRASES.some((phrase) => line.includes(phrase))) continue;
    const at = line.indexOf(executable);
    if (at === -1) continue;
    const before = line[at - 1];
    const after = line[at + executable.length];
    const boundary = (c: string | undefined) => c === undefined || !/[A-Za-z0-9_.-]/.test(c);
    if (boundary(before) && boundary(after)) return line.trim();
  }
  return null;
}

/**
 * Watches the pane's output written after this call for the shell's "not found" line about
 * `executable`; calls `onMissing` once with that line.
 */
export function watchMissingCommand(host: PaneHost, executable: string, onMissing: (line: string) => void): Disposable {
  // The prompt line the command is typed on is the last one with content now (or the next).
  const from = Math.max(0, host.terminal.endLine - 1);
  let timer: NodeJS.Timeout | null = null;
  let done = false;
  const check = () => {
    timer = null;
    if (done) return;
    const read = host.terminal.read({ source: 'recent', lines: WATCH.lines });
    const rows = read.text.split('\n');
    const firstRow = read.endLine - rows.length;
    const fresh = rows.slice(Math.max(0, from - firstRow));
    const line = notFoundLine(fresh, executable);
    if (line === null) return;
    done = true;
    output.dispose();
    onMissing(line);
  };
  const output = host.onOutput(() => {
    if (!timer && !done) timer = setTimeout(check, WATCH.checkEveryMs);
  });
  return {
    dispose: () => {
      done = true;
      output.dispose();
      if (timer) clearTimeout(timer);
    },
  };
}
