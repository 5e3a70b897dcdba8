/**
 * A worktree's diff as a person reads it (SPEC §15): the unified diff's lines by kind, with
 * colours as git's own (green added, red removed, cyan hunk headers, bold file headers), and
 * the `--stat` summary. The text came from a repository — file names and contents an agent
 * wrote — so every line has its control characters made visible first; only the colours
 * added here are escape sequences. Shared by the CLI (`worktree diff`) and the TUI's review
 * view (prefix D). Pure and dependency-free.
 */
import { visibleControls } from './control-chars.js';

export type DiffLineKind = 'file' | 'meta' | 'hunk' | 'added' | 'removed' | 'context' | 'note';

/** The SGR each kind is drawn with ('' for plain). */
export const DIFF_STYLE: Readonly<Record<DiffLineKind, string>> = {
  file: '\x1b[1m',
  meta: '\x1b[1m',
  hunk: '\x1b[36m',
  added: '\x1b[32m',
  removed: '\x1b[31m',
  context: '',
  note: '\x1b[2m',
};

const RESET = '\x1b[0m';

/** One line of a unified diff, by what it is. */
export function diffLineKind(line: string): DiffLineKind {
  if (line.startsWith('diff --git ')) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+++ ') || line.startsWith('--- ')) return 'meta';
  if (/^(index |new file mode|deleted file mode|old mode|new mode|similarity index|dissimilarity index|rename from|rename to|copy from|copy to|Binary files)/.test(line)) return 'meta';
  if (line.startsWith('+')) return 'added';
  if (line.startsWith('-')) return 'removed';
  if (line.startsWith('\\')) return 'note';
  return 'context';
}

/** A diff's lines with controls made visible, coloured when `colour`. */
export function diffLines(patch: string, colour: boolean): string[] {
  const lines = patch.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => {
    const text = visibleControls(line);
    const style = colour ? DIFF_STYLE[diffLineKind(line)] : '';
    return style === '' ? text : `${style}${text}${RESET}`;
  });
}

/** What `--stat` and the review view's file list read of one file. */
export interface DiffStatFile {
  path: string;
  old_path?: string;
  status: string;
  added: number | null;
  removed: number | null;
}

/** `+12 −3` (binary files: `binary`). */
export function changeCounts(added: number | null, removed: number | null): string {
  return added === null || removed === null ? 'binary' : `+${added} \u2212${removed}`;
}

/** One letter per status, as `git status --short` shows them (`?` untracked). */
const STATUS_LETTER: Readonly<Record<string, string>> = { added: 'A', modified: 'M', deleted: 'D', renamed: 'R', copied: 'C', type_changed: 'T', untracked: '?' };

/**
 * The files with their counts, one line each (`M src/a.ts  +12 −3`), then a total line: the
 * `--stat` output and the head of the review view. Paths made visible; green and red counts when `colour`.
 */
export function statLines(files: readonly DiffStatFile[], colour: boolean): string[] {
  if (files.length === 0) return ['no changes'];
  const names = files.map((f) => visibleControls(f.old_path ? `${f.old_path} \u2192 ${f.path}` : f.path));
  const width = Math.max(...names.map((n) => [...n].length));
  const paint = (style: string, text: string) => (colour ? `${style}${text}${RESET}` : text);
  const lines = files.map((f, i) => {
    const counts = f.added === null || f.removed === null ? paint(DIFF_STYLE.note, 'binary') : `${paint(DIFF_STYLE.added, `+${f.added}`)} ${paint(DIFF_STYLE.removed, `\u2212${f.removed}`)}`;
    return `${STATUS_LETTER[f.status] ?? '?'} ${names[i]!.padEnd(width)}  ${counts}`;
  });
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  lines.push(`${files.length} file${files.length === 1 ? '' : 's'} changed, ${paint(DIFF_STYLE.added, `+${added}`)} ${paint(DIFF_STYLE.removed, `\u2212${removed}`)}`);
  return lines;
}
