/**
 * The review view (prefix D, SPEC §15): the focused pane's worktree — the changed files with
 * their counts, then the coloured diff — shown as copy mode over those lines, so scrolling,
 * search (`/`, `?`, `n`, `N`), selection and copying work as in copy mode; `m` asks to merge
 * it back, `q` leaves. The diff comes from an action (git runs there, never in the TUI).
 */
import type { WorktreeDiffResult } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import { diffLines, statLines } from '../terminal/diff-lines.js';
import { visibleControls } from '../terminal/control-chars.js';
import type { ClientCore } from './client-view.js';
import type { CopyModes } from './copy-mode/copy-modes.js';
import { styledSource } from './copy-mode/copy-source.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/** The view's lines: a heading, the files list, then the diff (controls made visible, colours added). */
export function reviewLines(diff: WorktreeDiffResult): string[] {
  const heading =
    `${BOLD}worktree ${visibleControls(diff.worktree)}${RESET} · ${visibleControls(diff.branch)} · base ${diff.base.slice(0, 10)}` +
    `  ${DIM}/ search · n N next · m merge · q leave${RESET}`;
  const lines = [heading, '', ...statLines(diff.files, true)];
  if (diff.files.length > 0) lines.push('', ...diffLines(diff.patch ?? '', true));
  if (diff.truncated) lines.push('', `${DIM}[the diff was cut at its size limit: corral worktree diff ${visibleControls(diff.worktree)} --stat lists every file]${RESET}`);
  return lines;
}

/** What opening and acting in a review needs from the controller. */
export interface ReviewHost {
  core: Pick<ClientCore, 'reviewDiff' | 'mergeWorktree' | 'model'>;
  copy: CopyModes;
  flash: (text: string, error: boolean) => void;
  confirm: (question: string, onYes: () => void) => void;
  alive: () => boolean;
}

/** Reads the pane's worktree diff and shows it as a review view over the pane. */
export async function openReview(host: ReviewHost, pane: PaneRecord): Promise<void> {
  host.flash('reading the worktree\u2019s diff…', false);
  try {
    const diff = await host.core.reviewDiff(pane);
    if (!host.alive() || !host.core.model.findPane(pane.id)) return;
    host.copy.enterReview(pane, styledSource(reviewLines(diff)), diff.worktree);
    host.flash(`worktree ${diff.worktree}: ${diff.files.length} file${diff.files.length === 1 ? '' : 's'} changed`, false);
  } catch (error) {
    host.flash((error as Error).message, true);
  }
}

/** `m` in a review: asks, then merges the worktree back and leaves the view. */
export function askToMerge(host: ReviewHost, paneId: string, worktree: string): void {
  host.confirm(`Merge worktree ${worktree} into the main checkout's branch? (its uncommitted work is committed first)`, () => {
    host.core.mergeWorktree(worktree).then(
      (result) => {
        host.copy.exit(paneId);
        host.flash(result.up_to_date ? `${result.branch} is already in ${result.into}` : `${result.branch} merged into ${result.into}`, false);
      },
      (error: Error) => host.flash(error.message, true),
    );
  });
}
