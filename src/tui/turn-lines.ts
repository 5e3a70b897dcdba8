/**
 * The turns of the review view (prefix D, SPEC §20) as lines: the agent's checkpoints newest
 * first, one line each (`> #3 turn 3  14:05  2 files +4 −1  "prompt"`, the selected one marked
 * `>` and bold, a rewind's checkpoint marked `rewind`), and the selected turn's files and
 * coloured diff. Prompts and paths were written by an agent or a person: their controls are
 * made visible; only the styles added here are escape sequences. Pure.
 */
import type { AgentCheckpointsResult, CheckpointDiffResult, CheckpointInfo } from '../contract/checkpoints.js';
import { DIFF_STYLE, diffLines, statLines } from '../terminal/diff-lines.js';
import { visibleControls } from '../terminal/control-chars.js';

const BOLD = '\x1b[1m';
const DIM = '\x1b[2m';
const RESET = '\x1b[0m';

/** What marks the selected checkpoint's line (ASCII: one cell wide in every terminal). */
export const TURN_MARK = '>';

/** `1 file`, `3 files`. */
export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const two = (n: number): string => String(n).padStart(2, '0');

/** `14:05` (local time), with the month and day before it when `at` is not on `now`'s day. */
export function shortTime(at: string, now: Date): string {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return '??:??';
  const time = `${two(when.getHours())}:${two(when.getMinutes())}`;
  return when.toDateString() === now.toDateString() ? time : `${two(when.getMonth() + 1)}-${two(when.getDate())} ${time}`;
}

/** `turn 3`, or `rewind` for the checkpoint a rewind took of the files before it. */
function whatOf(c: CheckpointInfo): string {
  return c.reason === 'rewind' ? 'rewind' : `turn ${c.turn}`;
}

/** `2 files +4 −1` as plain text (for widths) and painted; '' when the counts were not read. */
function countsOf(c: CheckpointInfo): { plain: string; painted: string } {
  if (c.files_changed === undefined) return { plain: '', painted: '' };
  const files = plural(c.files_changed, 'file');
  const added = `+${c.added ?? 0}`;
  const removed = `\u2212${c.removed ?? 0}`;
  return { plain: `${files} ${added} ${removed}`, painted: `${files} ${DIFF_STYLE.added}${added}${RESET} ${DIFF_STYLE.removed}${removed}${RESET}` };
}

/** The checkpoints newest first, one line each in aligned columns; `selected` indexes that order. */
export function turnListLines(checkpoints: readonly CheckpointInfo[], selected: number, now: Date): string[] {
  const width = (texts: string[]) => Math.max(0, ...texts.map((t) => [...t].length));
  const ids = checkpoints.map((c) => `#${c.id}`);
  const whats = checkpoints.map(whatOf);
  const times = checkpoints.map((c) => shortTime(c.at, now));
  const counts = checkpoints.map(countsOf);
  const [idW, whatW, timeW, countW] = [width(ids), width(whats), width(times), width(counts.map((c) => c.plain))];
  return checkpoints.map((c, i) => {
    const said =
      c.reason === 'rewind'
        ? `${DIM}the files before a rewind${RESET}`
        : c.prompt === ''
          ? `${DIM}(prompt not read)${RESET}`
          : `"${visibleControls(c.prompt)}"`;
    const late = c.late ? `  ${DIM}late${RESET}` : '';
    const count = counts[i]!.painted + ' '.repeat(countW - [...counts[i]!.plain].length);
    const text = `${ids[i]!.padEnd(idW)} ${whats[i]!.padEnd(whatW)}  ${times[i]!.padEnd(timeW)}  ${count}  ${said}${late}`;
    return i === selected ? `${BOLD}${TURN_MARK} ${text}${RESET}` : `  ${text}`;
  });
}

/** The heading of the turns part: the agent, how the list is ordered, and the keys. */
export function turnsHeading(turns: AgentCheckpointsResult, hint: string): string {
  return `${BOLD}agent ${visibleControls(turns.agent)}${RESET} · ${plural(turns.checkpoints.length, 'checkpoint')}, newest first  ${DIM}${hint}${RESET}`;
}

/** What the selected checkpoint's part of the view says: its turn's files and diff, or why there is none. */
export function turnDiffLines(agent: string, c: CheckpointInfo, read: { diff: CheckpointDiffResult } | { error: string } | null): string[] {
  if (c.reason === 'rewind') return [`${BOLD}#${c.id}${RESET}: the files just before a rewind ${DIM}(r puts them back: that undoes the rewind)${RESET}`];
  if (read === null) return [`${DIM}reading turn ${c.turn}\u2019s diff…${RESET}`];
  if ('error' in read) return [`${BOLD}turn ${c.turn}${RESET}: ${visibleControls(read.error)}`];
  const { diff } = read;
  const span = diff.to === null ? `#${diff.from} \u2192 the files now` : `#${diff.from} \u2192 #${diff.to}`;
  const lines = [`${BOLD}turn ${diff.turn}${RESET} ${DIM}(${span})${RESET}`, ...statLines(diff.files, true)];
  if (diff.files.length > 0) lines.push('', ...diffLines(diff.patch ?? '', true));
  if (diff.truncated) lines.push('', `${DIM}[the diff was cut at its size limit: corral agent diff ${visibleControls(agent)} --turn ${diff.turn} --stat lists every file]${RESET}`);
  return lines;
}
