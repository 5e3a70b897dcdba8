/**
 * What corral saw of an agent's screen around its turns (issue 43), so that an agent it has no
 * rules for still has an answer and a transcript:
 * - the screen from before each turn and the rows that stayed alike through it (the input box
 *   and status rows, src/agents/generic-answer.ts);
 * - for a full-screen agent (the alternate screen: our scrollback never sees its history), the
 *   rows that scrolled through its conversation region while it worked, stitched in order —
 *   the region being every row above that input box and status block.
 * Fed by the registry's screen checks (busy or not); kept beside it, keyed by its tracked agent
 * object like src/agents/prompt-log.ts, so a restarted agent starts afresh.
 */
import { chromeCut, conversationRows, NO_REFERENCE, withoutBlankEnd, type TurnReference } from './generic-answer.js';
import { submittedPrompts } from './prompt-log.js';

/** Transcript rows kept per agent: the oldest go first (a read asks for a few hundred at most). */
const MAX_KEPT_ROWS = 5000;
/**
 * Rows at the end of the last region kept that a later screen may have redrawn: the line a
 * streaming answer was writing, and the spinner or status line under it.
 */
const REDRAWN_ROWS = 4;
/**
 * Rows at the top of a screen's conversation that may be a pinned copy of an earlier row, not
 * the next one (as src/actions/transcript.ts's stitch allows): streaming into an answer whose
 * prompt scrolled away, Codex pins that prompt ("› Say hello turn 2") on the first row.
 */
const MAX_PINNED_ROWS = 2;
/**
 * Screens of a turn kept to tell its input box and status rows by: the first ones, drawn before
 * much of the answer was (a later one may come with another layout than the first: a splash
 * screen taken over, a dialog).
 */
const MAX_DURING_SCREENS = 6;

interface TurnLog {
  /** The last screen seen while the agent was not busy. */
  idle: string[] | null;
  busy: boolean;
  /** The current (or last) turn's screen from before it, and its first screens while it ran. */
  before: string[] | null;
  during: string[][];
  /** The conversation rows kept (full-screen agents), and where the last screen's region starts in them. */
  kept: string[];
  lastStart: number;
  /** Screens whose region met no row kept before (scrolled further than a screen between two looks). */
  gaps: number;
}

const logs = new WeakMap<object, TurnLog>();

/** Rows as kept and compared: without trailing spaces (one read pads a row to the screen's width, another not) or blank rows at the end. */
function tidy(rows: readonly string[]): string[] {
  return withoutBlankEnd(rows.map((row) => row.trimEnd()));
}

function logOf(agent: object): TurnLog {
  let log = logs.get(agent);
  if (!log) {
    log = { idle: null, busy: false, before: null, during: [], kept: [], lastStart: 0, gaps: 0 };
    logs.set(agent, log);
  }
  return log;
}

/** The reference the last turn's rows are told by (nothing before the first turn). */
export function turnReference(agent: object): TurnReference {
  const log = logs.get(agent);
  return log ? referenceOf(log) : NO_REFERENCE;
}

function referenceOf(log: TurnLog): TurnReference {
  if (log.during.length === 0) return NO_REFERENCE;
  return { before: log.before, during: log.during };
}

/** The prompt corral typed last: the input box held it before the turn. */
export function lastPrompt(agent: object): string | null {
  const prompts = submittedPrompts(agent);
  return prompts[prompts.length - 1] ?? null;
}

/**
 * One screen check's rows. `busy`: the agent is working or blocked. `fullScreen`: it draws on
 * the alternate screen, so its conversation region is kept here.
 */
export function noteTurnScreen(agent: object, rows: readonly string[], busy: boolean, fullScreen: boolean): void {
  const log = logOf(agent);
  const screen = tidy(rows);
  if (busy && !log.busy) {
    log.before = log.idle;
    log.during = [];
  }
  if (busy && log.during.length < MAX_DURING_SCREENS) log.during.push(screen);
  const seenTurn = busy || log.busy;
  log.busy = busy;
  if (!busy) log.idle = screen;
  // The screen that ends a turn is the turn's too: it holds the answer's last rows.
  if (fullScreen && seenTurn) keep(agent, log, screen);
}

/** Adds a screen's conversation region to the rows kept. */
function keep(agent: object, log: TurnLog, screen: readonly string[]): void {
  const region = withoutBlankEnd(conversationRows(screen.slice(0, chromeCut(screen, referenceOf(log), lastPrompt(agent)).start)));
  const { rows, start, gap } = mergeRegion(log.kept, region, log.lastStart);
  if (gap) log.gaps++;
  const over = Math.max(0, rows.length - MAX_KEPT_ROWS);
  log.kept = over > 0 ? rows.slice(over) : rows;
  log.lastStart = Math.max(0, start - over);
}

/**
 * `kept` with a newer screen's conversation region laid over it: the region starts at the
 * first row from `from` on where its rows repeat what is kept (all but the last few, which the
 * screen may have redrawn), replacing what follows — after up to MAX_PINNED_ROWS pinned rows,
 * left out; with no such row it is appended whole (a gap).
 */
export function mergeRegion(kept: readonly string[], region: readonly string[], from: number): { rows: string[]; start: number; gap: boolean } {
  if (region.length === 0) return { rows: [...kept], start: kept.length, gap: false };
  for (let pinned = 0; pinned <= Math.min(MAX_PINNED_ROWS, region.length - 1); pinned++) {
    // A pinned row is a copy of one kept already: Codex pins the prompt of the answer cut at the top.
    if (pinned > 0 && !kept.includes(region[pinned - 1]!)) break;
    const rest = region.slice(pinned);
    for (let at = Math.min(from, kept.length); at < kept.length; at++) {
      const overlap = Math.min(kept.length - at, rest.length);
      let same = 0;
      while (same < overlap && kept[at + same] === rest[same]) same++;
      if (same > 0 && same >= overlap - REDRAWN_ROWS && rest.slice(0, same).some((row) => row.trim() !== '')) {
        return { rows: [...kept.slice(0, at), ...rest], start: at, gap: false };
      }
    }
  }
  return { rows: [...kept, ...region], start: kept.length, gap: kept.length > 0 };
}

/**
 * The agent's transcript ending with `screen` (its rows now): the rows kept with the screen's
 * conversation region laid over them, then its input box and status rows. The screen alone
 * when nothing was kept (an inline agent: the terminal's scrollback has its history).
 */
export function transcriptRows(agent: object, screen: readonly string[]): { rows: string[]; kept: number; gaps: number } {
  const log = logs.get(agent);
  const rows = tidy(screen);
  if (!log || log.kept.length === 0) return { rows, kept: 0, gaps: 0 };
  const cut = chromeCut(rows, referenceOf(log), lastPrompt(agent));
  const merged = mergeRegion(log.kept, withoutBlankEnd(conversationRows(rows.slice(0, cut.start))), log.lastStart).rows;
  return { rows: [...merged, ...rows.slice(cut.start)], kept: log.kept.length, gaps: log.gaps };
}
