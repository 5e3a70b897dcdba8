/**
 * Reads a pane's last N logical lines with SGR colours for the saved session, without ever
 * holding the event loop: rows are converted (src/terminal/ansi-row.ts) a slice at a time,
 * yielding between slices.
 *
 * `ScrollbackCapture.capture` converts every row it returns, each time: it is the reference
 * the incremental saver (scrollback-log.ts) must equal byte for byte, and that saver's
 * fallback for the rare states it does not follow. `collectLines` is the backward walk both
 * share, so the two cannot disagree on where a line starts or how a row is trimmed.
 *
 * Rows are addressed by absolute number (`scrollbackFirstLine` + index), so output arriving
 * between slices (which may trim the oldest rows) shifts nothing under the reader.
 */
import { rowToAnsi } from '../terminal/ansi-row.js';
import type { PaneTerminal } from '../terminal/pane-terminal.js';

/** Rows read per turn of the event loop. */
export const CAPTURE_SLICE_ROWS = 100;

export const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** The pane changed under a reader in a way that voids what it read (see `ReadGuard`). */
export class CaptureAborted extends Error {}

/** Checked after every yield; throws CaptureAborted when the read must stop. */
export type ReadGuard = () => void;

/** Logical lines read back from a pane, oldest first. */
export interface CollectedLines {
  /** Each line's text: its rows converted and joined. */
  texts: string[];
  /** Absolute number of each line's first row. */
  starts: number[];
  /** The walk reached `stop`: every row from `stop` up was read. */
  reachedStop: boolean;
  /** The walk ran out of rows (the top of the buffer, or rows trimmed meanwhile) before `stop`. */
  hitTop: boolean;
  /** The oldest line is cut: its first rows are gone (trimmed, or before the buffer's top). */
  cut: boolean;
  /** Rows converted. */
  rows: number;
}

export interface CollectOptions {
  /** One past the newest row to read (absolute). */
  end: number;
  /** The oldest row to read (absolute); the walk also stops at the top of the buffer. */
  stop: number;
  /** Stop once this many whole lines are read. */
  maxLines: number;
  /** The last row shown (absolute): trimmed as a line's end even when the row after it continues it. */
  lastShown: number;
  sliceRows?: number;
  guard?: ReadGuard;
}

/**
 * Walks rows `end - 1` down to `stop`, joining wrapped rows into logical lines: a row whose
 * next row continues it keeps its written spaces, a line's last row is trimmed of blanks.
 * The caller checks the alternate screen before calling; `guard` runs after every yield.
 */
export async function collectLines(terminal: PaneTerminal, options: CollectOptions): Promise<CollectedLines> {
  const sliceRows = options.sliceRows ?? CAPTURE_SLICE_ROWS;
  const texts: string[] = [];
  const starts: number[] = [];
  let pieces: string[] = [];
  let buffer = terminal.scrollback;
  let first = terminal.scrollbackFirstLine;
  let visited = 0;
  let rows = 0;
  // Whether the row after the current one continues it; the row at `end` is not read.
  let nextWrapped = false;
  let lastRead = options.end;
  let reachedStop = false;
  let hitTop = false;
  let cut = false;
  for (let abs = options.end - 1; texts.length < options.maxLines; abs--) {
    if (abs < options.stop) {
      reachedStop = true;
      break;
    }
    if (visited++ >= sliceRows) {
      visited = 1;
      await yieldTurn();
      options.guard?.();
      buffer = terminal.scrollback;
      first = terminal.scrollbackFirstLine;
    }
    const line = abs - first >= 0 ? buffer.getLine(abs - first) : undefined;
    if (!line) {
      hitTop = true;
      break;
    }
    if (abs === options.end - 1) nextWrapped = abs + 1 - first < buffer.length ? (buffer.getLine(abs + 1 - first)?.isWrapped ?? false) : false;
    const endsLine = !nextWrapped || abs === options.lastShown;
    pieces.push(rowToAnsi(line, buffer.getNullCell(), endsLine ? 'visual' : 'content'));
    rows++;
    lastRead = abs;
    nextWrapped = line.isWrapped;
    if (!line.isWrapped) {
      texts.push(pieces.reverse().join(''));
      starts.push(abs);
      pieces = [];
    }
  }
  if (pieces.length > 0) {
    texts.push(pieces.reverse().join(''));
    starts.push(lastRead);
    cut = true;
  }
  return { texts: texts.reverse(), starts: starts.reverse(), reachedStop, hitTop, cut, rows };
}

/**
 * One past the last row (absolute) that shows anything, looking no lower than `floor`:
 * trailing blank screen rows are not history. Returns `floor` when every row from it up is blank.
 */
export function endOfText(terminal: PaneTerminal, floor = -Infinity): number {
  const buffer = terminal.scrollback;
  const first = terminal.scrollbackFirstLine;
  let end = first + buffer.length;
  const low = Math.max(first, floor);
  while (end > low) {
    const line = buffer.getLine(end - 1 - first);
    if (line && line.translateToString(true).trim() !== '') break;
    end--;
  }
  return end;
}

export class ScrollbackCapture {
  constructor(private readonly terminal: PaneTerminal) {}

  /**
   * The last `lines` logical lines (wrapped rows joined), oldest first, '\n'-separated; null
   * while a full-screen program owns the alternate screen (its frame is not history).
   */
  async capture(lines: number, sliceRows = CAPTURE_SLICE_ROWS): Promise<string | null> {
    if (lines <= 0) return '';
    const terminal = this.terminal;
    if (terminal.isAlternateScreen) return null;
    const end = endOfText(terminal);
    try {
      const got = await collectLines(terminal, {
        end,
        stop: -Infinity,
        maxLines: lines,
        lastShown: end - 1,
        sliceRows,
        guard: () => {
          if (terminal.isAlternateScreen) throw new CaptureAborted('alternate screen');
        },
      });
      return got.texts.join('\n');
    } catch (error) {
      if (error instanceof CaptureAborted) return null;
      throw error;
    }
  }
}
