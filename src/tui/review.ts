/**
 * The review view (prefix D): what the focused pane's agent did, shown as copy mode over styled
 * lines, so scrolling, search (`/`, `?`, `n`, `N`), selection and copying work as in copy mode.
 * Two parts, each when the pane has it: the agent's turns (SPEC §20) — its checkpoints newest
 * first with prompts and counts, then the selected turn's diff; `[` / `]` select the turn
 * above / below, `r` rewinds to the selected checkpoint after a confirmation — and the pane's
 * worktree (SPEC §15) — the changed files, then the diff against its base; `m` merges it back
 * after a confirmation. `q` leaves. Actions read and do everything: git runs there, never here.
 */
import { CorralError, type WorktreeDiffResult } from '../contract/protocol.js';
import type { AgentCheckpointsResult, CheckpointDiffResult, CheckpointInfo } from '../contract/checkpoints.js';
import type { PaneRecord } from '../session/model.js';
import { diffLines, statLines } from '../terminal/diff-lines.js';
import { visibleControls } from '../terminal/control-chars.js';
import type { ClientCore } from './client-view.js';
import type { CopyModes, ReviewKeys } from './copy-mode/copy-modes.js';
import { styledSource } from './copy-mode/copy-source.js';
import { plural, turnDiffLines, turnListLines, turnsHeading } from './turn-lines.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

const REVIEW_KEYS = {
  /** The turn above in the list (newer), the turn below (older): as `[` and `]` step back and forth in vim. */
  newer: '[',
  older: ']',
  rewind: 'r',
  merge: 'm',
} as const;

/** A prompt as a confirmation quotes it: long enough to recognise, short enough for one line. */
const QUOTED_PROMPT_CHARS = 32;

/** The worktree part's lines: a heading, the files list, then the diff (controls made visible, colours added). */
export function reviewLines(diff: WorktreeDiffResult, hint: string | null = '/ search · n N next · m merge · q leave'): string[] {
  const heading =
    `${BOLD}worktree ${visibleControls(diff.worktree)}${RESET} · ${visibleControls(diff.branch)} · base ${diff.base.slice(0, 10)}` +
    (hint === null ? '' : `  ${DIM}${hint}${RESET}`);
  const lines = [heading, '', ...statLines(diff.files, true)];
  if (diff.files.length > 0) lines.push('', ...diffLines(diff.patch ?? '', true));
  if (diff.truncated) lines.push('', `${DIM}[the diff was cut at its size limit: corral worktree diff ${visibleControls(diff.worktree)} --stat lists every file]${RESET}`);
  return lines;
}

/** What opening and acting in a review needs from the controller. */
export interface ReviewHost {
  core: Pick<ClientCore, 'reviewDiff' | 'mergeWorktree' | 'turnCheckpoints' | 'turnDiff' | 'rewindTo' | 'model'>;
  copy: CopyModes;
  flash: (text: string, error: boolean) => void;
  confirm: (question: string, onYes: () => void) => void;
  alive: () => boolean;
}

/** What a review shows: the agent's turns (at least one checkpoint), the worktree, or both. */
interface ReviewData {
  turns: AgentCheckpointsResult | null;
  worktree: WorktreeDiffResult | null;
  /** Why a part could not be read, shown under the part that could. */
  notes: string[];
}

/** A part the pane simply does not have: no agent in it, no corral worktree under it. */
const ABSENT = new Set(['agent_not_found', 'worktree_not_found']);

const codeOf = (error: unknown): string | null => (error instanceof CorralError ? error.code : null);

/** Reads both parts; a string says why there is nothing to review. */
async function readReview(host: ReviewHost, pane: PaneRecord): Promise<ReviewData | string> {
  const [turns, worktree] = await Promise.allSettled([host.core.turnCheckpoints(pane), host.core.reviewDiff(pane)]);
  const notes: string[] = [];
  const part = <T>(read: PromiseSettledResult<T>): T | null => {
    if (read.status === 'fulfilled') return read.value;
    if (!ABSENT.has(codeOf(read.reason) ?? '')) notes.push((read.reason as Error).message);
    return null;
  };
  const list = part(turns);
  const diff = part(worktree);
  if ((list && list.checkpoints.length > 0) || diff) return { turns: list && list.checkpoints.length > 0 ? list : null, worktree: diff, notes };
  if (notes.length > 0) return notes.join('; ');
  const noWorktree = worktree.status === 'rejected' ? (worktree.reason as Error).message : `pane ${pane.id} has nothing to review`;
  if (!list) return noWorktree;
  return list.checkout === null
    ? `${noWorktree}; its agent works in no git repository, so it has no checkpoints`
    : `${noWorktree}; agent ${visibleControls(list.agent)} has no checkpoints yet (one is taken before each prompt)`;
}

/** Opens the review of `pane`: its agent's turns, newest selected, and its worktree. */
export async function openReview(host: ReviewHost, pane: PaneRecord): Promise<void> {
  host.flash('reading what to review…', false);
  const data = await readReview(host, pane);
  if (!host.alive() || !host.core.model.findPane(pane.id)) return;
  if (typeof data === 'string') return host.flash(data, true);
  if (!(await new Review(host, pane, data).select(0, true))) return;
  const parts = [
    data.turns ? `agent ${data.turns.agent}: ${plural(data.turns.checkpoints.length, 'checkpoint')}` : null,
    data.worktree ? `worktree ${data.worktree.worktree}: ${plural(data.worktree.files.length, 'file')} changed` : null,
  ];
  host.flash(parts.filter((p) => p !== null).join(' · '), false);
}

/** One open review: what it shows, which checkpoint is selected, and its keys. */
class Review {
  private selected = 0;
  private turn: { diff: CheckpointDiffResult } | { error: string } | null = null;
  /** Counts the selections: a turn's diff that arrives after a newer selection is dropped. */
  private reads = 0;
  readonly keys: ReviewKeys;

  constructor(
    private readonly host: ReviewHost,
    private readonly pane: PaneRecord,
    private data: ReviewData,
  ) {
    this.keys = { label: '', key: (key) => this.key(key) };
  }

  /** The checkpoints as listed: newest first. */
  private get list(): CheckpointInfo[] {
    return [...(this.data.turns?.checkpoints ?? [])].reverse();
  }

  /** This review is still the one on the pane's screen. */
  private get showing(): boolean {
    return this.host.alive() && this.host.copy.reviewOf(this.pane.id) === this.keys;
  }

  private key(key: string): boolean {
    if (key === REVIEW_KEYS.merge && this.data.worktree) {
      askToMerge(this.host, this.pane.id, this.data.worktree.worktree);
      return true;
    }
    if (!this.data.turns) return false;
    if (key === REVIEW_KEYS.newer || key === REVIEW_KEYS.older) {
      const step = key === REVIEW_KEYS.older ? 1 : -1;
      const next = this.selected + step;
      if (next < 0 || next >= this.list.length) this.host.flash(step > 0 ? 'that is the oldest checkpoint kept' : 'that is the newest checkpoint', false);
      else void this.select(next);
      return true;
    }
    if (key === REVIEW_KEYS.rewind) {
      this.askToRewind();
      return true;
    }
    return false;
  }

  /** Selects the checkpoint at `index` in the list, reads its turn's diff and shows the view (`first`: opens it); false when it was not shown. */
  async select(index: number, first = false): Promise<boolean> {
    const checkpoint = this.list[index];
    const read = ++this.reads;
    this.selected = index;
    let turn: Review['turn'] = null;
    if (checkpoint?.reason === 'turn') {
      try {
        turn = { diff: await this.host.core.turnDiff(this.pane, checkpoint.turn) };
      } catch (error) {
        turn = { error: (error as Error).message };
      }
    }
    if (read !== this.reads || !(first ? this.host.alive() && this.host.core.model.findPane(this.pane.id) : this.showing)) return false;
    this.turn = turn;
    this.show();
    return true;
  }

  private show(): void {
    const { turns, worktree, notes } = this.data;
    const name = worktree?.worktree ?? turns?.agent ?? '';
    const keys = [turns ? '[ ] turn, r rewind' : null, worktree ? 'm merge' : null, 'q leave'].filter((k) => k !== null).join(', ');
    this.keys.label = `review ${name} (${keys})`;
    const hint = `${turns ? '[ ] turn · r rewind · ' : ''}/ search · n N next · ${worktree ? 'm merge · ' : ''}q leave`;
    const lines: string[] = [];
    let cursor = 0;
    if (turns) {
      const list = this.list;
      lines.push(turnsHeading(turns, hint), '');
      cursor = lines.length + this.selected;
      lines.push(...turnListLines(list, this.selected, new Date()), '', ...turnDiffLines(turns.agent, list[this.selected]!, this.turn));
    }
    if (worktree) lines.push(...(turns ? ['', ''] : []), ...reviewLines(worktree, turns ? null : hint));
    if (notes.length > 0) lines.push('', ...notes.map((note) => `${DIM}${visibleControls(note)}${RESET}`));
    this.host.copy.enterReview(this.pane, styledSource(lines), this.keys, cursor);
  }

  private askToRewind(): void {
    const checkpoint = this.list[this.selected]!;
    const agent = this.data.turns!.agent;
    const prompt = [...visibleControls(checkpoint.prompt)];
    const quoted = prompt.length > QUOTED_PROMPT_CHARS ? `${prompt.slice(0, QUOTED_PROMPT_CHARS - 1).join('')}\u2026` : prompt.join('');
    const when = checkpoint.reason === 'rewind' ? 'the files before that rewind' : `before turn ${checkpoint.turn}${quoted === '' ? '' : ` "${quoted}"`}`;
    this.host.confirm(
      `Rewind ${visibleControls(agent)} to #${checkpoint.id}, ${when}? The files now are checkpointed first, so it can be undone`,
      () => void this.rewind(checkpoint.id),
    );
  }

  /** Puts the files back as checkpoint `id` had them, says what it did, and reads the review again. */
  private async rewind(id: number): Promise<void> {
    try {
      const done = await this.host.core.rewindTo(this.pane, id);
      this.host.flash(`${plural(done.files.length, 'file')} put back as #${id} had them; undo: checkpoint ${done.checkpoint.id}`, false);
    } catch (error) {
      this.host.flash((error as Error).message, true);
      return;
    }
    const data = await readReview(this.host, this.pane);
    if (typeof data === 'string' || !this.showing) return;
    this.data = data;
    const at = this.list.findIndex((c) => c.id === id);
    await this.select(Math.max(0, at));
  }
}

/** `m` in a review: asks, then merges the worktree back and leaves the view. */
function askToMerge(host: ReviewHost, paneId: string, worktree: string): void {
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
