/**
 * The read interface of one pane: the one door from the UI — the TUI, the compositor, remote
 * clients, persistence — into a pane's screen. `CorralCore.view(pane)` hands it out; the
 * pane's terminal (`PaneTerminal`) implements it. Nothing here writes: input, resizes and
 * resets go through the core's actions. No xterm object crosses this interface, so what sits
 * behind it (xterm, the compact scrollback store) can change without its readers noticing.
 *
 * Stable on purpose: add to it only what a reader needs and cannot get from the core's
 * actions or events, and keep every member cheap (the compositor calls some per frame).
 */
import type { Disposable } from '../contract/disposable.js';
import type { CellGrid } from '../screen/cell-grid.js';
import type { PaneScreen } from '../screen/pane-screen.js';
import type { Damage } from './damage.js';
import type { KeyboardModesView } from './keyboard-modes.js';
import type { ReadFormat, ReadSource } from '../contract/protocol.js';

/** A read of a pane's text (SPEC §5 `read` sources). */
export interface ReadOptions {
  source: ReadSource;
  /** Keep only the last N rows (or logical lines for `recent-unwrapped`). */
  lines?: number;
  format?: ReadFormat;
}

export interface ReadResult {
  text: string;
  /** More rows existed in the source than were returned. */
  truncated: boolean;
  /** Rows in the active buffer (scrollback + screen). */
  totalLines: number;
  /**
   * Absolute number (monotonic across scrollback trimming) one past the last row that has
   * content; for `visible`/`recent`/`detection` reads the returned rows are
   * `endLine - n … endLine - 1`. On the alternate screen, rows count on from the normal
   * buffer's end at the time the app switched.
   */
  endLine: number;
  /**
   * `recent-unwrapped` only: the absolute row number (as `endLine`) where each returned
   * logical line starts, so callers can key lines by position and tell which of them reach
   * into the last N rows (wrapped-line matching, `wait --pattern`).
   */
  lineStarts?: number[];
}

export interface SearchOptions {
  regex?: boolean;
  maxMatches?: number;
}

export interface SearchMatch {
  /** 1-based row index in the buffer of the logical line's first row. */
  line: number;
  /** The whole logical (unwrapped) line, plain text. */
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  truncated: boolean;
}

/** OSC 9;4 progress: state 0 cleared, 1 normal, 2 error, 3 indeterminate, 4 paused/warning. */
export interface Progress {
  state: number;
  value: number;
}

/** Which mouse events the application wants reported. */
export type MouseTracking = 'none' | 'x10' | 'vt200' | 'drag' | 'any';

/**
 * A pane's whole buffer, scrollback and screen, frozen when it was taken: lines output later
 * are not part of it, and rows trimmed off the top of the scrollback meanwhile read as gone.
 * Copy mode browses and searches one of these.
 */
export interface ScrollbackReader {
  /** Lines in the frozen buffer. */
  readonly lineCount: number;
  /** Line of the live screen's top row when taken (the lines above are scrollback). */
  readonly screenTop: number;
  /** The cursor when taken, as a line of this reader and a column. */
  readonly cursor: { readonly line: number; readonly col: number };
  /** Line `i` as text, one string per cell ('' for the right half of a wide character); [] if gone. */
  cells(i: number): readonly string[];
  /** Line `i` as plain text, trailing blanks dropped with `trimRight`. */
  text(i: number, trimRight?: boolean): string;
  /** Whether line `i` continues line `i - 1` (a soft wrap). */
  wrapped(i: number): boolean;
  /** Draws lines `top …` into the whole of `grid`, colours kept. */
  paint(grid: CellGrid, top: number): void;
}

/** One pane's screen, modes and history, read-only. Screen rows and the cursor: see `PaneScreen`. */
export interface PaneView extends PaneScreen {
  // -- changes
  /** Bumped once per parsed batch of output: the pane's `output_generation`. */
  readonly revision: number;
  /** The screen rows the batch behind the latest revision changed (read it in `onRevision`). */
  readonly lastDamage: Damage;
  /**
   * Called with the new revision after each parsed batch of output. `first`: ahead of the
   * listeners already there (the TUI's echo frame, before the core's bookkeeping).
   */
  onRevision(listener: (revision: number) => void, options?: { first?: boolean }): Disposable;
  /** Called with each piece of output just before it is parsed (for echo prediction, mirrors). */
  onBeforeParse(listener: (data: string | Uint8Array) => void): Disposable;
  /** Called after each resize, in order with the output around it (mirrors replay both). */
  onResize(listener: (size: { cols: number; rows: number }) => void): Disposable;

  // -- what the application set
  /** The last OSC 0/2 window title ('' until one is set). */
  readonly title: string;
  /** The last OSC 9;4 progress report, or null if none was ever sent. */
  readonly progress: Progress | null;
  /** The application asked for bracketed paste (DECSET 2004). */
  readonly bracketedPasteMode: boolean;
  /** The application asked to be told when it gains or loses focus (DECSET 1004). */
  readonly sendFocusMode: boolean;
  /** The application asked for SS3 cursor keys (DECCKM). */
  readonly applicationCursorKeys: boolean;
  /** Which mouse events the application wants reported. */
  readonly mouseTrackingMode: MouseTracking;
  /** A full-screen application switched to the alternate screen. */
  readonly isAlternateScreen: boolean;
  /** The enhanced keyboard reporting the application asked for (kitty flags, modifyOtherKeys). */
  readonly keyboard: KeyboardModesView;

  // -- text and history
  /** Absolute number one past the last row with content (see ReadResult.endLine). */
  readonly endLine: number;
  /** What a mirror writes into a fresh terminal of this size to show the pane as it is (SPEC §14). */
  mirrorSnapshot(historyLines: number): string;
  /** Reads one of the SPEC §5 sources. */
  read(options: ReadOptions): ReadResult;
  /** Searches scrollback and screen, logical line by logical line, oldest first. */
  search(pattern: string, options?: SearchOptions): SearchResult;
  /** The whole buffer as it is now, for browsing (copy mode). */
  scrollbackReader(): ScrollbackReader;
}
