/**
 * The answer of an agent corral has no rules for, cut from its screen (issue 43): an agent
 * started with `--kind generic`, or a kind whose rule file is set aside. Nothing here knows an
 * agent's screens; what cuts the answer out is what corral saw itself:
 * - the prompt corral typed, found as the prompt probe finds it (src/agents/prompt-probe.ts):
 *   squeezed of whitespace and box drawing, so wrapping, borders and a leading `>` `❯` `›` do
 *   not matter;
 * - the input box and status rows below the conversation: the rows at the bottom of the screen
 *   that are alike (same text, the same words with other numbers, a long run of text in common)
 *   on the first screen seen while the turn ran and on the screen from before it
 *   (src/agents/turn-screens.ts keeps those);
 * - the generic rule file's `[answer_screen] chrome` rows (a turn's timing line, a tip).
 * Pure: rows in, answers and the account of the cut out (for `agent explain` and errors).
 */
import { squeeze } from './prompt-probe.js';
import { answersAfterEchoes, cleanAnswerRows, inputRow } from './screen-answer.js';

/** What corral saw around the turn, told by position from the bottom of the screen. */
export interface TurnReference {
  /** The screen while the agent was not busy before the turn (its input box may hold the typed prompt). */
  before: readonly string[] | null;
  /** The first screens seen while the turn ran, before much of the answer was drawn (oldest first). */
  during: readonly (readonly string[])[];
}

export const NO_REFERENCE: TurnReference = { before: null, during: [] };

/** Shorter than this, a piece of a row is no evidence that two rows are the same status line. */
const ALIKE_MIN_CHARS = 6;
/**
 * Two status rows that share a run of this many characters (digits, whitespace and frame left
 * out) are one row with a changed part: a counter, a hint swapped while busy ("? for shortcuts ·
 * ← for agents" and "esc to interrupt · ← for agents", Claude Code).
 */
const ALIKE_RUN_CHARS = 10;
/** Glyphs an agent puts before a prompt it echoes, besides the frame squeezing drops. */
const PROMPT_LEAD_RE = /^[\s\u2500-\u259f›❯>]*/u;
/** What of a prompt an error quotes. */
const QUOTED_CHARS = 40;
/** Bottom rows the screen before a turn must share with the screen now to be compared with it at all. */
const SAME_LAYOUT_ROWS = 3;

/** Text of a row without whitespace, frame and digits: a status row whose counters moved is alike. */
function shape(row: string): string {
  return squeeze(row).replace(/\d+/g, '');
}

/** Whether two rows are one row of the agent's UI: equal, the same words with other numbers, or sharing a long run of text. */
export function alike(a: string, b: string): boolean {
  if (a.trim() === b.trim()) return true;
  // A blank row is a blank row: not a frame row, not text.
  if (a.trim() === '' || b.trim() === '') return false;
  const x = shape(a);
  const y = shape(b);
  if (x === y) return true;
  if (!/\p{L}{2}/u.test(x) || !/\p{L}{2}/u.test(y)) return false;
  const [short, long] = x.length <= y.length ? [x, y] : [y, x];
  if (short.length >= ALIKE_MIN_CHARS && long.includes(short)) return true;
  for (let at = 0; at + ALIKE_RUN_CHARS <= short.length; at++) if (long.includes(short.slice(at, at + ALIKE_RUN_CHARS))) return true;
  return false;
}

/** The rows without the blank ones at the end. */
export function withoutBlankEnd(rows: readonly string[]): string[] {
  let end = rows.length;
  while (end > 0 && rows[end - 1]!.trim() === '') end--;
  return rows.slice(0, end);
}

/** Whether a row holds a piece of the prompt (the input box while it held the typed text). */
export function holdsPrompt(row: string, prompt: string | null): boolean {
  if (prompt === null) return false;
  const text = squeeze(row.replace(PROMPT_LEAD_RE, ''));
  const whole = squeeze(prompt);
  return text !== '' && text.length >= Math.min(ALIKE_MIN_CHARS, whole.length) && (whole.includes(text) || text.includes(whole.slice(0, ALIKE_RUN_CHARS)));
}

/** Whether `row` is the input row `empty` with the prompt typed into it, not yet sent: the same glyph first, the prompt after it. */
function typedInto(row: string, empty: string, prompt: string | null): boolean {
  const lead = (text: string) => text.trimStart()[0];
  return lead(row) !== undefined && lead(row) === lead(empty) && holdsPrompt(row, prompt);
}

/** Whether two screens end alike (their last SAME_LAYOUT_ROWS rows, or all of a shorter one). */
function sameLayout(rows: readonly string[], other: readonly string[]): boolean {
  const n = Math.min(SAME_LAYOUT_ROWS, rows.length, other.length);
  if (n === 0) return false;
  for (let k = 0; k < n; k++) if (!alike(rows[rows.length - 1 - k]!, other[other.length - 1 - k]!)) return false;
  return true;
}

/** What told the input box and status rows apart. */
export type ChromeBy = 'before+during' | 'during' | 'before' | 'input-glyph' | 'none';

/** Where the input box and status rows start, and what told them. */
export interface ChromeCut {
  /** First row of the block (`end` when there is none). */
  start: number;
  /** Rows [start, end) are the block; rows from end on are blank. */
  end: number;
  by: ChromeBy;
  /** With `input-glyph` or `none`: why the screens around the turn told nothing. */
  unknown?: string;
}

/**
 * The block of input box and status rows at the bottom of `rows`: from the bottom up, the rows
 * alike on the first screen seen while the turn ran that ends like `rows` (its last
 * SAME_LAYOUT_ROWS rows alike: a splash screen taken over by the conversation has another
 * layout), and on the screen from before the turn, when that one ends alike too. The input row
 * may hold the typed prompt on either. Both must agree where both are known: the rows of an
 * answer that repeats the one before it are alike on the screen before, but not yet drawn while
 * the turn began. With neither, the bottom-most row starting with a prompt glyph (`>`, `❯`,
 * `›`) starts the block.
 */
export function chromeCut(rows: readonly string[], ref: TurnReference, prompt: string | null): ChromeCut {
  const end = withoutBlankEnd(rows).length;
  const shown = rows.slice(0, end);
  const like = (screen: readonly string[] | null) => {
    const other = screen === null ? null : withoutBlankEnd(screen);
    return other !== null && sameLayout(shown, other) ? other : null;
  };
  const before = like(ref.before);
  const during = ref.during.map(like).find((screen) => screen !== null) ?? null;
  const matches = (screen: readonly string[] | null, row: string, k: number) => {
    if (screen === null) return true;
    const was = screen[screen.length - 1 - k];
    return was !== undefined && (alike(row, was) || holdsPrompt(was, prompt) || typedInto(row, was, prompt));
  };
  if (before !== null || during !== null) {
    let start = end;
    for (let k = 0; k < end; k++) {
      const row = rows[end - 1 - k]!;
      if (!matches(before, row, k) || !matches(during, row, k)) break;
      start = end - 1 - k;
    }
    // Blank rows on top of the block are the conversation's margin, not the UI's.
    while (start < end && rows[start]!.trim() === '') start++;
    if (start < end) return { start, end, by: before !== null && during !== null ? 'before+during' : during !== null ? 'during' : 'before' };
  }
  const unknown = [
    ref.before === null ? 'no screen from before the turn' : before === null ? 'the screen before the turn ends otherwise' : null,
    ref.during.length === 0 ? 'no screen seen while it ran' : during === null ? 'the screens while it ran end otherwise' : null,
  ]
    .filter((why) => why !== null)
    .join(', ');
  const glyph = inputRow(rows, null);
  return glyph < end ? { start: glyph, end, by: 'input-glyph', unknown: unknown || 'its bottom row changed' } : { start: end, end, by: 'none', unknown: unknown || 'its bottom row changed' };
}

/** The conversation region's rows without what is drawn beside it: a scrollbar, a sidebar. */
export function conversationRows(rows: readonly string[]): string[] {
  return withoutSidebar(withoutScrollbar(rows.map((row) => row.trimEnd())));
}

/** Rows that start text at one column, after a gutter no row's text crosses, to be a sidebar there. */
const SIDEBAR_MIN_ROWS = 5;
/** Blank columns left of a sidebar on every row. */
const SIDEBAR_GUTTER = 2;

/**
 * The rows without a sidebar on the right (Kilo on a wide pane: session, context, token usage
 * beside the conversation): a column in the right half where at least SIDEBAR_MIN_ROWS rows
 * start text after a gutter of blanks no row crosses. Its rows stay put while the conversation
 * scrolls beside them, so they would break every row of a transcript and an answer.
 */
export function withoutSidebar(rows: readonly string[]): string[] {
  const width = Math.max(0, ...rows.map((row) => row.length));
  for (let col = Math.ceil(width / 2); col < width; col++) {
    let starts = 0;
    let crossed = false;
    for (const row of rows) {
      if (row.slice(col - SIDEBAR_GUTTER, col).trim() !== '') {
        crossed = true;
        break;
      }
      if (row.length > col && row[col] !== ' ') starts++;
    }
    if (!crossed && starts >= SIDEBAR_MIN_ROWS) return rows.map((row) => row.slice(0, col).trimEnd());
  }
  return [...rows];
}

/** A row that starts with a prompt glyph (inside a frame or not): an echoed prompt, or the input box. */
const GLYPH_ROW_RE = /^\s*[│┃]?\s*[›❯>](\s|$)/u;
/** Rows a prompt echoed after other text may wrap over. */
const MAX_ECHO_ROWS = 4;

/**
 * Rows [start, end) echoing prompt `prompt` above row `limit`, the bottom-most; null when not
 * shown. The echo starts its row (after a glyph and frame), or, on a row that starts with a
 * prompt glyph, follows other text: Qwen Code puts a cancelled prompt back in its input box, and
 * the next prompt typed is sent after it.
 */
export function findEcho(rows: readonly string[], prompt: string, limit: number): { start: number; end: number } | null {
  const whole = squeeze(prompt);
  if (whole === '') return null;
  for (let row = limit - 1; row >= 0; row--) {
    let text = '';
    let end = row;
    // A prompt wrapped over rows continues on the next ones; a blank row ends it.
    while (end < limit && text.length < whole.length) {
      const piece = squeeze(rows[end]!.replace(PROMPT_LEAD_RE, ''));
      if (piece === '' || !(whole.startsWith(text + piece) || (text + piece).startsWith(whole))) break;
      text += piece;
      end++;
    }
    if (text.length > 0 && text.startsWith(whole)) return { start: row, end };
    if (!GLYPH_ROW_RE.test(rows[row]!)) continue;
    let joined = '';
    for (end = row; end < Math.min(limit, row + MAX_ECHO_ROWS); end++) {
      const piece = squeeze(rows[end]!.replace(PROMPT_LEAD_RE, ''));
      if (piece === '' || (end > row && GLYPH_ROW_RE.test(rows[end]!))) break;
      joined += piece;
      if (joined.endsWith(whole)) return { start: row, end: end + 1 };
    }
  }
  return null;
}

/** A row drawn only of box-drawing and block characters. */
const FRAME_ONLY_RE = /^[\s\u2500-\u259f]*$/u;
/** Rows with a bar glyph alone in the last column, to be a scrollbar there. */
const SCROLLBAR_MIN_ROWS = 5;

/**
 * The rows without a scrollbar in their last column (Qwen Code draws one once its conversation
 * is longer than the screen): a box or block glyph after a blank on at least SCROLLBAR_MIN_ROWS
 * rows, and no row with anything else there. Its thumb moves as the conversation scrolls, so
 * it would make every row of a transcript and an answer differ.
 */
export function withoutScrollbar(rows: readonly string[]): string[] {
  const col = Math.max(0, ...rows.map((row) => row.length)) - 1;
  if (col < 1) return [...rows];
  let bars = 0;
  for (const row of rows) {
    // A rule across the whole width (an input box's top border) says nothing either way.
    if (row.length <= col || FRAME_ONLY_RE.test(row)) continue;
    if (!/[\u2500-\u259f]/u.test(row[col]!) || row[col - 1] !== ' ') return [...rows];
    bars++;
  }
  return bars >= SCROLLBAR_MIN_ROWS ? rows.map((row) => row.slice(0, col).trimEnd()) : [...rows];
}

/** The answers and how they were cut. */
export interface GenericCut {
  /** The last `turns` answers on the rows, oldest first; null when no prompt corral typed is there. */
  answers: string[] | null;
  /** One line a step: which rows are the input box and status rows and why, where each prompt and answer is, or where it was looked for. */
  how: string[];
}

/** Why the block is what it is, for `agent explain` and errors. */
const CHROME_WHY: Record<ChromeBy, (rows: string, of: number) => string> = {
  'before+during': (rows, of) => `${rows} of ${of}: the input box and status rows (alike on the screen before the turn and on the first one while it ran)`,
  during: (rows, of) => `${rows} of ${of}: the input box and status rows (alike on the first screen while the turn ran; the screen before it had another layout)`,
  before: (rows, of) => `${rows} of ${of}: the input box and status rows (alike on the screen before the turn; none while it ran had this layout)`,
  'input-glyph': (rows, of) => `${rows} of ${of}: the input box, from the bottom-most row starting with a prompt glyph`,
  none: (_rows, of) => `no input box or status rows told apart (no prompt glyph either): the answer runs to row ${of}`,
};

const span = (from: number, to: number) => (to - from <= 1 ? `row ${from + 1}` : `rows ${from + 1}–${to}`);
const quote = (prompt: string) => JSON.stringify(prompt.length > QUOTED_CHARS ? `${prompt.slice(0, QUOTED_CHARS)}…` : prompt);

/**
 * The answers to the last `turns` of `prompts` (oldest first, as typed) on `rows` (a screen, or
 * a transcript ending with the screen): each from the row below its prompt's echo to the next
 * prompt, the last to the input box and status rows; blank edges, frame rows, `chrome` rows,
 * the answer's bullet and indent taken out (as for a known kind).
 */
export function genericAnswers(rows: readonly string[], prompts: readonly string[], ref: TurnReference, chrome: readonly RegExp[], turns: number): GenericCut {
  const last = prompts[prompts.length - 1] ?? null;
  const cut = chromeCut(rows, ref, last);
  const how: string[] = [];
  how.push(CHROME_WHY[cut.by](span(cut.start, cut.end), cut.end) + (cut.unknown ? ` (the screens around the turn told nothing: ${cut.unknown})` : ''));
  const answers: string[] = [];
  const conversation = conversationRows(rows.slice(0, cut.start));
  let limit = cut.start;
  for (let i = prompts.length - 1; i >= 0 && answers.length < turns; i--) {
    const prompt = prompts[i]!;
    const echo = findEcho(conversation, prompt, limit);
    if (!echo && answers.length === 0 && i === prompts.length - 1 && findEcho(rows, prompt, cut.end) !== null) {
      how.push(`prompt ${quote(prompt)} is typed in the input box, not sent: the answer before it is the last`);
      continue;
    }
    if (!echo) {
      how.push(`prompt ${quote(prompt)} not found on rows 1–${limit} (looked for as "${squeeze(prompt).slice(0, QUOTED_CHARS)}", whitespace and box drawing left out, on one row or wrapped)`);
      break;
    }
    answers.unshift(cleanAnswerRows(conversation.slice(echo.end, limit), chrome));
    how.push(`answer ${turns > 1 ? `${answers.length} from the end ` : ''}on ${limit > echo.end ? span(echo.end, limit) : 'no rows'}, below prompt ${quote(prompt)} echoed on ${span(echo.start, echo.end)}`);
    limit = echo.start;
  }
  if (answers.length > 0) return { answers, how };
  if (prompts.length === 0) how.push('corral typed no prompt into this agent (a person or a program did)');
  // As for a known kind: rows starting with a prompt glyph above the input box are taken as the prompts' echoes.
  const echoed = answersAfterEchoes(conversation, null, chrome, cut.start, turns);
  if (echoed !== null) how.push(`rows starting with a prompt glyph (>, ❯, ›) above row ${cut.start + 1} taken as the echoed prompts`);
  return { answers: echoed, how };
}
