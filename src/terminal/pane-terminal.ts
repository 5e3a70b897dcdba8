/**
 * One pane's screen: a headless xterm fed with the pane's output, plus the read sources
 * (SPEC §5), search, and the mode/title/progress accessors the rest of corral needs.
 * Reads always look at the live screen (the bottom of the buffer), never at a scrolled viewport.
 */
import type { IBufferLine, ILogger, Terminal as XTerminal } from '@xterm/headless';
import { CorralError, READ_SOURCES, type ReadFormat } from '../contract/protocol.js';
import { PARAM_DEFAULTS } from '../contract/bounds.js';
import { rowToAnsi, type AnsiTrim } from './ansi-row.js';
import { RateLimitedXtermLog } from './xterm-log.js';
import { Emitter } from './emitter.js';
import type { KeyboardModes } from './keyboard-modes.js';
import type { Damage } from './damage.js';
import type { Disposable } from '../contract/disposable.js';
import { compilePaneRegex } from './pane-regex.js';
import type { LineBuffer, ScrollbackOptions, ScrollbackStats } from './scrollback.js';
import { freezeScrollback } from './scrollback-reader.js';
import type { MouseTracking, PaneView, Progress, ReadOptions, ReadResult, ScrollbackReader, SearchMatch, SearchOptions, SearchResult } from './pane-view.js';
import type { PrintPen } from '../screen/cell.js';
import type { CellGrid } from '../screen/cell-grid.js';
import type { CursorState } from '../screen/cursor.js';
import type { RowCopyOptions } from '../screen/pane-screen.js';
import type { Rect } from '../contract/rect.js';
import { ECHO_TRACE, HOP } from '../screen/echo-trace.js';
import { OutputLog, SHARED_HIBERNATION, type Hibernatable, type HibernationSweep } from './hibernation.js';
import { released } from './memory-release.js';
import { Utf8Carry } from './utf8-carry.js';
import { buildXtermCore, disposeXtermCore, parseNow, rowsThrough, silencedWhile, type XtermCore, type XtermCoreEvents } from './xterm-core.js';

/** What `write` returns when xterm parsed the output before returning. */
const PARSED: Promise<void> = Promise.resolve();

/** Defaults of the terminal itself; those of reads are the contract's (PARAM_DEFAULTS). */
export const TERMINAL_DEFAULTS = {
  /** SPEC §11 `scrollback_lines`. */
  scrollback: 10_000,
} as const;

/** What one cell of xterm's buffer holds: three 32-bit words (content, foreground, background). */
const XTERM_CELL_BYTES = 12;

/** The ConEmu sub-command of OSC 9 that reports progress. */
const PROGRESS_SUBCOMMAND = '4';

export interface PaneTerminalOptions {
  cols: number;
  rows: number;
  scrollback?: number;
  /** Where xterm's own errors are reported, rate-limited (default: the server's stderr). */
  log?: RateLimitedXtermLog;
  /** Keep older scrollback rows in the pane's compact store (default true; see scrollback.ts). */
  compactScrollback?: boolean;
  /** Rows xterm itself keeps above the screen when the compact store is on. */
  scrollbackWindow?: number;
  /** Let the terminal hibernate when idle (default true; see hibernation.ts). */
  hibernate?: boolean;
  /** The sweep that decides when (default: the process's). */
  hibernation?: HibernationSweep;
}

/** A range of buffer rows [start, end) forming one logical line (soft wraps joined). */
interface LogicalLine {
  start: number;
  end: number;
}

function checkLines(lines: number | undefined): void {
  if (lines === undefined) return;
  if (!Number.isInteger(lines) || lines < 1) {
    throw new CorralError('invalid_params', `lines must be a positive integer, got ${String(lines)}`, { lines });
  }
}

/**
 * A headless terminal for one pane, with read sources, search and revisions. Readers outside
 * src/core, src/pty and src/terminal see it only as a `PaneView` (`CorralCore.view`).
 *
 * Its xterm may hibernate (hibernation.ts): every use goes through `core`, which rebuilds it
 * first. What the facade keeps itself — listeners, revision, title, progress, size — stays
 * across a sleep; what a replay would announce again (revisions, replies, bells, scrolls,
 * xterm's complaints) is not announced.
 */
export class PaneTerminal implements PaneView, Hibernatable {
  private _core: XtermCore | null;
  private readonly revisionEmitter = new Emitter<number>();
  private readonly outputEmitter = new Emitter<string | Uint8Array>();
  /** A character cut between two chunks of pty bytes waits here for its end (utf8-carry.ts). */
  private readonly utf8 = new Utf8Carry();
  private readonly replyEmitter = new Emitter<string>();
  private readonly resizeEmitter = new Emitter<{ cols: number; rows: number }>();
  private readonly scrollEmitter = new Emitter<void>();
  private readonly bellEmitter = new Emitter<void>();
  private readonly pendingWrites = new Set<() => void>();
  private _lastDamage: Damage = 'all';
  private _parseErrors = 0;
  /** Absolute row number where the alternate screen's row 0 counts from. */
  private alternateBase = 0;
  private _revision = 0;
  private _resizes = 0;
  private _title = '';
  private _progress: Progress | null = null;
  private disposed = false;
  /** The size now, and the size the terminal was built at (where a replay starts). */
  private size: { cols: number; rows: number };
  private readonly firstSize: { cols: number; rows: number };
  private readonly scrollbackOptions: ScrollbackOptions;
  /** What was written, for a rebuild; null when the pane never hibernates. */
  private readonly outputLog: OutputLog | null;
  private readonly sweep: HibernationSweep;
  /** A hibernated core is being rebuilt from the log: nothing it does is news. */
  private replaying = false;
  /** When the application last changed a keyboard mode, kept across a sleep. */
  private keyboardChangedAt = 0;
  private _touches = 0;
  /** xterm's logger: the pane's rate-limited log, silent during a replay. */
  private readonly xtermLog: ILogger;
  /** The active buffer's rows as a stable view (see `scrollback`). */
  private readonly normalRows: LineBuffer;
  private readonly alternateRows: LineBuffer;

  /** xterm's complaints about this pane's output, at most one line a minute; set `log.label`. */
  readonly log: RateLimitedXtermLog;

  constructor(options: PaneTerminalOptions) {
    this.log = options.log ?? new RateLimitedXtermLog();
    this.xtermLog = silencedWhile(this.log, () => this.replaying);
    this.scrollbackOptions = {
      scrollback: options.scrollback ?? TERMINAL_DEFAULTS.scrollback,
      compact: options.compactScrollback,
      window: options.scrollbackWindow,
    };
    this.firstSize = { cols: options.cols, rows: options.rows };
    this.size = { ...this.firstSize };
    this.sweep = options.hibernation ?? SHARED_HIBERNATION;
    this.outputLog = options.hibernate === false ? null : new OutputLog();
    this.normalRows = rowsThrough(() => this.core.lines.normal);
    this.alternateRows = rowsThrough(() => this.core.xterm.buffer.alternate);
    this._core = this.buildCore();
    if (this.outputLog) this.sweep.add(this);
  }

  /** The raw xterm, for src/terminal's own modules and tests. Do not write to it directly: use `write`. */
  get xterm(): XTerminal {
    return this.core.xterm;
  }

  /** The enhanced keyboard reporting the application asked for (kitty flags, modifyOtherKeys). */
  get keyboard(): KeyboardModes {
    return this.core.keyboard;
  }

  // -- hibernation (hibernation.ts)

  get touches(): number {
    return this._touches;
  }

  get canHibernate(): boolean {
    return !this.disposed && this.outputLog !== null && !this.outputLog.overflowed;
  }

  /** The terminal is asleep: only its output log is held. */
  get hibernating(): boolean {
    return this._core === null;
  }

  /**
   * Puts the terminal to sleep unless it is asleep, cannot be rebuilt, has a parse pending, or
   * a client shows it: a shown pane's compositor listens for its scrolls, and its first echo
   * after a pause should not wait for a replay.
   */
  hibernate(): boolean {
    const core = this._core;
    if (!core || !this.canHibernate || !this.parsedAll || this.scrollEmitter.size > 0) return false;
    this.keyboardChangedAt = core.keyboard.changedAt;
    this._core = null;
    disposeXtermCore(core);
    return true;
  }

  /** What a core reports, and what of it is news: nothing while a replay rebuilds one. */
  private readonly coreEvents: XtermCoreEvents = {
    reply: (data) => {
      if (!this.replaying) this.replyEmitter.fire(data);
    },
    parseError: () => {
      if (!this.replaying) this._parseErrors++;
    },
    toAlternate: (core) => {
      this.alternateBase = this.endLineOf(core, core.lines.normal);
    },
    parsed: (core) => {
      if (this.replaying) return;
      ECHO_TRACE?.mark(HOP.parsed);
      this._lastDamage = core.damageTracker.take();
      this._revision++;
      this.revisionEmitter.fire(this._revision);
    },
    title: (title) => {
      this._title = title;
    },
    scroll: () => {
      if (!this.replaying) this.scrollEmitter.fire();
    },
    bell: () => {
      if (!this.replaying) this.bellEmitter.fire();
    },
    osc9: (data) => this.handleOsc9(data),
  };

  private buildCore(): XtermCore {
    return buildXtermCore(this.firstSize, this.scrollbackOptions, this.xtermLog, this.coreEvents);
  }

  /** The terminal, rebuilt from the log first if it was asleep. Every use of xterm goes through here. */
  private get core(): XtermCore {
    this._touches++;
    return this._core ?? this.wake();
  }

  private wake(): XtermCore {
    const core = this.buildCore();
    this._core = core;
    this.replaying = true;
    try {
      for (const entry of this.outputLog!.replay()) {
        if (typeof entry === 'string' || entry instanceof Uint8Array) parseNow(core, entry, undefined, true);
        else core.lines.resize(entry.cols, entry.rows);
      }
    } finally {
      this.replaying = false;
    }
    core.keyboard.changedAt = this.keyboardChangedAt;
    // What the replay changed is not news; whoever draws the pane next redraws it whole.
    core.damageTracker.take();
    core.damageTracker.markAll();
    // A read after dispose of a pane that was asleep gets a rebuilt terminal nobody watches.
    if (!this.disposed) this.sweep.woke(this);
    return core;
  }

  /**
   * Parse output into the terminal (text, or UTF-8 bytes); resolves once xterm has parsed it.
   *
   * Parsing happens now, before this returns, as tmux does: xterm's own scheduling would queue
   * the data and parse it on a later setTimeout in 12 ms slices, idling ~1 ms per hop (Node's
   * minimum timer). Parsing each batch as it arrives leaves nothing queued, so the kernel's pty
   * buffer is the only flow control a flood needs (bench/throughput: 1.6 → 1.25 s for 45 MB).
   * The lever is xterm's "user input" flag, which makes its next write parse synchronously.
   * Nothing listens to xterm's onData (its input side) and corral never uses xterm's viewport,
   * so the flag has no other effect. `parsedAll` says whether anything is still queued.
   */
  write(data: string | Uint8Array): Promise<void> {
    if (this.disposed) return PARSED;
    if (typeof data === 'string') {
      const held = this.utf8.release();
      if (held !== null) void this.parse(held);
    } else data = this.utf8.take(data);
    return data.length === 0 ? PARSED : this.parse(data);
  }

  private parse(data: string | Uint8Array): Promise<void> {
    const core = this.core;
    this.outputLog?.write(data);
    this.outputEmitter.fire(data);
    let resolveLater: (() => void) | null = null;
    const parsed = parseNow(core, data, () => {
      if (!resolveLater) return;
      this.pendingWrites.delete(resolveLater);
      resolveLater();
    });
    // The usual case: parsed already, no promise or bookkeeping per read.
    if (parsed) return PARSED;
    return new Promise((resolve) => {
      resolveLater = resolve;
      this.pendingWrites.add(resolve);
    });
  }

  /** No written output is waiting to be parsed. */
  get parsedAll(): boolean {
    return this.pendingWrites.size === 0;
  }

  /** Bumped once per parsed write batch; the pane's `output_generation`. */
  get revision(): number {
    return this._revision;
  }

  /** Writes xterm threw on (see parse-guard.ts); the rest of each such write was dropped. */
  get parseErrors(): number {
    return this._parseErrors;
  }

  /** The screen rows the writes behind the latest revision changed (read it in `onRevision`). */
  get lastDamage(): Damage {
    return this._lastDamage;
  }

  /** Called with each piece of output just before it is parsed (for echo prediction). */
  onBeforeParse(listener: (data: string | Uint8Array) => void): Disposable {
    return this.outputEmitter.on(listener);
  }

  /** Called with answers the terminal owes the application (kitty's `CSI ? u` query). */
  onReply(listener: (data: string) => void): Disposable {
    return this.replyEmitter.on(listener);
  }

  /** Called with the new revision after each parsed write batch. */
  onRevision(listener: (revision: number) => void, options?: { first?: boolean }): Disposable {
    return this.revisionEmitter.on(listener, options);
  }

  /** Called when the application rings the bell. */
  onBell(listener: () => void): Disposable {
    return this.bellEmitter.on(listener);
  }

  /** Resize the screen (reflows soft-wrapped lines in the normal buffer). */
  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    if (cols === this.size.cols && rows === this.size.rows) return;
    const core = this.core;
    this._resizes++;
    this.outputLog?.resize(cols, rows);
    core.lines.resize(cols, rows);
    this.size = { cols: core.xterm.cols, rows: core.xterm.rows };
    this.resizeEmitter.fire({ cols, rows });
  }

  /** Called after each resize, in order with the output around it (a mirror replays both, SPEC §14). */
  onResize(listener: (size: { cols: number; rows: number }) => void): Disposable {
    return this.resizeEmitter.on(listener);
  }

  /**
   * Resizes so far. A resize may reflow and renumber the rows above the screen, or pull some
   * of them back onto it, so a reader that kept rows by number (the session saver) starts over.
   */
  get resizes(): number {
    return this._resizes;
  }

  get cols(): number {
    return this.size.cols;
  }

  get rows(): number {
    return this.size.rows;
  }

  /** The last OSC 0/2 window title ('' until one is set). */
  get title(): string {
    return this._title;
  }

  /** The last OSC 9;4 progress report, or null if none was ever sent. */
  get progress(): Progress | null {
    return this._progress;
  }

  /** The application asked for bracketed paste (DECSET 2004). */
  get bracketedPasteMode(): boolean {
    return this.xterm.modes.bracketedPasteMode;
  }

  /** The application asked to be told when it gains or loses focus (DECSET 1004). */
  get sendFocusMode(): boolean {
    return this.xterm.modes.sendFocusMode;
  }

  /** The application asked for SS3 cursor keys (DECCKM). */
  get applicationCursorKeys(): boolean {
    return this.xterm.modes.applicationCursorKeysMode;
  }

  /** Which mouse events the application wants reported. */
  get mouseTrackingMode(): MouseTracking {
    return this.xterm.modes.mouseTrackingMode;
  }

  /** A full-screen application switched to the alternate screen. */
  get isAlternateScreen(): boolean {
    return this.xterm.buffer.active.type === 'alternate';
  }

  /**
   * Rows the normal buffer has dropped off the top of its scrollback for good so far (rows
   * moved to the compact store are not dropped): the absolute number of `scrollback` row 0.
   */
  get trimmedLines(): number {
    return this.core.lines.firstLine;
  }

  /** Absolute number one past the last row with content (see ReadResult.endLine). */
  get endLine(): number {
    const core = this.core;
    return this.endLineOf(core, core.lines.active);
  }

  /**
   * The active buffer's rows, scrollback and screen, wherever they live (xterm's window or the
   * compact store): read scrollback through this, never through `xterm.buffer`, which holds
   * only the newest rows.
   */
  get scrollback(): LineBuffer {
    return this.isAlternateScreen ? this.alternateRows : this.normalRows;
  }

  /** Absolute number (as `endLine`) of row 0 of `scrollback`. */
  get scrollbackFirstLine(): number {
    const core = this.core;
    return this.absoluteBase(core, core.lines.active);
  }

  /** The whole buffer as it is now, for browsing (copy mode); see ScrollbackReader. */
  scrollbackReader(): ScrollbackReader {
    return freezeScrollback(this.scrollback, this.size.cols, () => this.core.lines.firstLine);
  }

  // -- PaneScreen: what the compositor reads (src/terminal/xterm-screen.ts)

  get bufferType(): 'normal' | 'alternate' {
    return this.core.screen.bufferType;
  }

  get baseY(): number {
    return this.core.screen.baseY;
  }

  get viewportY(): number {
    return this.core.screen.viewportY;
  }

  copyRows(grid: CellGrid, rect: Rect, options?: RowCopyOptions): number {
    return this.core.screen.copyRows(grid, rect, options);
  }

  cursor(): CursorState {
    return this.core.screen.cursor();
  }

  printPen(): PrintPen | null {
    return this.core.screen.printPen();
  }

  onScroll(listener: () => void): Disposable {
    return this.scrollEmitter.on(listener);
  }

  /** Encode rows still held as raw copies now, instead of once the pane is quiet (tests). */
  compactScrollbackNow(): void {
    this.core.lines.compactNow();
  }

  /** What the compact store holds (for tests and benchmarks). */
  scrollbackStats(): ScrollbackStats {
    return this.core.lines.stats();
  }

  /** Escape sequences that recreate the terminal's contents and modes (for reattach). */
  serialize(): string {
    return this.core.serializer.serialize();
  }

  /**
   * What a mirror writes into a fresh terminal of this size to show this pane as it is now
   * (SPEC §14): up to `historyLines` rows of the normal screen's scrollback as coloured lines
   * (the compact store's rows included), then the screens and modes as the serializer writes them.
   *
   * Between the two, the replaying terminal is scrolled so that its whole screen is blank rows
   * below the history, and the cursor sent home: the serializer leaves out the screen's blank
   * rows at the bottom and ends with a relative cursor move, so written straight after the
   * history a screen whose cursor sat on a blank last row came back one row too high, the
   * cursor pinned to the bottom, and the next line overwrote the one above it (the web view's
   * and a machine mirror's stream lost a line at each snapshot taken that way).
   */
  mirrorSnapshot(historyLines: number): string {
    const normal = this.core.lines.normal;
    const top = normal.baseY;
    const start = Math.max(0, top - Math.max(0, historyLines));
    const history = top > start ? `${this.rowsText(normal, start, top, 'ansi').replace(/\n/g, '\r\n')}\x1b[0m\r\n` : '';
    const blankScreen = `${'\r\n'.repeat(Math.max(0, this.core.xterm.rows - 1))}\x1b[H`;
    return history + blankScreen + this.core.serializer.serialize({ scrollback: 0 });
  }

  /** Read one of the SPEC §5 sources. */
  read(options: ReadOptions): ReadResult {
    checkLines(options.lines);
    const core = this.core;
    const buffer = core.lines.active;
    const totalLines = buffer.length;
    const base = this.absoluteBase(core, buffer);
    const format: ReadFormat = options.source === 'detection' ? 'text' : (options.format ?? 'text');
    switch (options.source) {
      case 'visible':
      case 'detection': {
        const top = buffer.baseY;
        const bottom = this.lastNonBlankRow(buffer, top, top + core.xterm.rows, format);
        const count = bottom - top;
        const take = Math.min(count, options.lines ?? count);
        return {
          text: this.rowsText(buffer, bottom - take, bottom, format),
          truncated: take < count,
          totalLines,
          endLine: base + bottom,
        };
      }
      case 'recent': {
        const bottom = this.lastNonBlankRow(buffer, 0, totalLines, format);
        const start = Math.max(0, bottom - (options.lines ?? PARAM_DEFAULTS.recentLines));
        return { text: this.rowsText(buffer, start, bottom, format), truncated: start > 0, totalLines, endLine: base + bottom };
      }
      case 'recent-unwrapped': {
        const bottom = this.lastNonBlankRow(buffer, 0, totalLines, format);
        const wanted = options.lines ?? PARAM_DEFAULTS.recentLines;
        const logical: LogicalLine[] = [];
        let end = bottom;
        while (end > 0 && logical.length < wanted) {
          const start = this.logicalLineStart(buffer, end - 1);
          logical.push({ start, end });
          end = start;
        }
        logical.reverse();
        return {
          text: logical.map((l) => this.logicalText(buffer, l, format)).join('\n'),
          truncated: end > 0,
          totalLines,
          endLine: base + bottom,
          lineStarts: logical.map((l) => base + l.start),
        };
      }
      default: {
        const bad: never = options.source;
        throw new CorralError('invalid_params', `unknown read source "${String(bad)}"; use one of ${READ_SOURCES.join(', ')}`, {
          source: bad,
        });
      }
    }
  }

  /** Search scrollback + screen, line by logical (unwrapped) line, oldest first. */
  search(pattern: string, options: SearchOptions = {}): SearchResult {
    const maxMatches = options.maxMatches ?? PARAM_DEFAULTS.maxMatches;
    if (!Number.isInteger(maxMatches) || maxMatches < 1) {
      throw new CorralError('invalid_params', `max_matches must be a positive integer, got ${String(maxMatches)}`, {
        max_matches: maxMatches,
      });
    }
    const test: (text: string) => boolean = options.regex ? compilePaneRegex(pattern).test : (text) => text.includes(pattern);
    const buffer = this.core.lines.active;
    const matches: SearchMatch[] = [];
    let start = 0;
    while (start < buffer.length) {
      let end = start + 1;
      while (end < buffer.length && buffer.getLine(end)?.isWrapped) end++;
      const text = this.logicalText(buffer, { start, end }, 'text');
      if (test(text)) {
        if (matches.length === maxMatches) return { matches, truncated: true };
        matches.push({ line: start + 1, text });
      }
      start = end;
    }
    return { matches, truncated: false };
  }

  /** Free the terminal; pending writes resolve at once. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const resolve of this.pendingWrites) resolve();
    this.pendingWrites.clear();
    this.sweep.remove(this, this._core === null);
    // A disposed terminal keeps its disposed core: a late read sees what it saw before.
    if (this._core) {
      // Its buffer becomes garbage, tens of MB for a pane a large client made wide and tall: an
      // idle server would keep it resident (memory-release.ts), so a collection is asked for.
      released(this._core.xterm.buffer.normal.length * this.size.cols * XTERM_CELL_BYTES, true);
      disposeXtermCore(this._core);
    }
    for (const emitter of [this.revisionEmitter, this.outputEmitter, this.replyEmitter, this.resizeEmitter, this.scrollEmitter, this.bellEmitter]) {
      emitter.clear();
    }
    this.log.flush();
  }

  /** The absolute number of the buffer's row 0. */
  private absoluteBase(core: XtermCore, buffer: LineBuffer): number {
    return buffer.type === 'alternate' ? this.alternateBase : core.lines.firstLine;
  }

  private endLineOf(core: XtermCore, buffer: LineBuffer): number {
    return this.absoluteBase(core, buffer) + this.lastNonBlankRow(buffer, 0, buffer.length, 'text');
  }

  private handleOsc9(data: string): boolean {
    const parts = data.split(';');
    // Other OSC 9 payloads are iTerm2-style notifications; leave them to other handlers.
    if (parts[0] !== PROGRESS_SUBCOMMAND) return false;
    const state = Number.parseInt(parts[1] ?? '0', 10);
    const value = Number.parseInt(parts[2] ?? '0', 10);
    this._progress = {
      state: Number.isFinite(state) ? state : 0,
      value: Number.isFinite(value) ? Math.max(0, Math.min(100, value)) : 0,
    };
    return true;
  }

  private rowText(line: IBufferLine | undefined, format: ReadFormat, trim: AnsiTrim = 'visual'): string {
    if (!line) return '';
    if (format === 'ansi') return rowToAnsi(line, this.core.xterm.buffer.active.getNullCell(), trim);
    const text = line.translateToString(true);
    return trim === 'visual' ? text.replace(/\s+$/u, '') : text;
  }

  /** Index one past the last row in [from, to) that shows anything (`from` if none). */
  private lastNonBlankRow(buffer: LineBuffer, from: number, to: number, format: ReadFormat): number {
    let end = to;
    while (end > from && this.rowText(buffer.getLine(end - 1), format) === '') end--;
    return end;
  }

  private rowsText(buffer: LineBuffer, start: number, end: number, format: ReadFormat): string {
    const rows: string[] = [];
    for (let y = start; y < end; y++) rows.push(this.rowText(buffer.getLine(y), format));
    return rows.join('\n');
  }

  /** The first row of the logical line that row `y` belongs to. */
  private logicalLineStart(buffer: LineBuffer, y: number): number {
    let start = y;
    while (start > 0 && buffer.getLine(start)?.isWrapped) start--;
    return start;
  }

  private logicalText(buffer: LineBuffer, line: LogicalLine, format: ReadFormat): string {
    let text = '';
    for (let y = line.start; y < line.end; y++) {
      // Inner rows keep written spaces at the wrap point; only the line's end is trimmed.
      text += this.rowText(buffer.getLine(y), format, y === line.end - 1 ? 'visual' : 'content');
    }
    return text;
  }
}
