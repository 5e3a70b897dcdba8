/**
 * Reading from and writing to panes: the read sources, typing and submitting text, keys,
 * and waiting for a line of output. Shared by the herdr-style `pane.*` and the Conductor
 * `surface.*` methods so both behave the same.
 */
import { CorralError, LIMITS, type PaneRead, type ReadFormat, type ReadSource } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import { encodeKeys } from '../terminal/keys.js';
import { compilePaneRegex } from '../terminal/pane-regex.js';
import { bracketedPaste } from '../terminal/paste.js';
import type { CorralCore } from '../core/corral-core.js';
import { appendingLine, outputFilter } from '../wait/output-filter.js';
import { waitUntil } from '../wait/wait-until.js';
import { baselineOf, newLinesSince, type ReadWindow } from '../wait/wait-logic.js';
import { PARAM_DEFAULTS } from '../contract/bounds.js';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Pause between a submitted text and its Enter. Long enough that a TUI app reads the text
 * as typed (or pasted) input before the Enter arrives; per-agent delays come with agents.
 */
export const SUBMIT_ENTER_DELAY_MS = 60;


export interface ReadOptions {
  source?: ReadSource;
  lines?: number;
  format?: ReadFormat;
}

/** A read: the herdr `read` object plus what the Conductor reads and waits need to know. */
export interface PaneSnapshot {
  read: PaneRead;
  /** Rows in the active buffer (scrollback + screen). */
  totalLines: number;
  /** Absolute number one past the pane's last row with content (see ReadResult.endLine). */
  endLine: number;
  /** Lines in `read.text`. */
  lineCount: number;
  /** `recent-unwrapped`: the absolute row where each logical line starts. */
  lineStarts?: number[];
}

/** Reads a pane's terminal: the herdr `read` object and its position in the pane's output. */
export function readPane(core: CorralCore, pane: PaneRecord, opts: ReadOptions = {}): PaneSnapshot {
  const host = core.host(pane);
  const source = opts.source ?? 'recent';
  const format = source === 'detection' ? 'text' : (opts.format ?? 'text');
  const lines = opts.lines ?? (source === 'recent' || source === 'recent-unwrapped' ? PARAM_DEFAULTS.recentLines : undefined);
  const result = host.terminal.read({ source, lines, format });
  return {
    read: {
      pane_id: pane.id,
      workspace_id: pane.workspaceId,
      tab_id: pane.tabId,
      source,
      format,
      text: result.text,
      revision: host.outputGeneration,
      truncated: result.truncated,
    },
    totalLines: result.totalLines,
    endLine: host.terminal.endLine,
    lineCount: result.text === '' ? 0 : result.text.split('\n').length,
    lineStarts: result.lineStarts,
  };
}

/**
 * The lines a wait for output matches against. The default `recent` source is matched
 * unwrapped (herdr: "unwrapped recent output from the last N rendered rows"): a line the
 * pane soft-wrapped is one line, whole, even when it starts above the row window. Other
 * sources are matched as they read.
 */
export function matchableLines(core: CorralCore, pane: PaneRecord, opts: ReadOptions): string[] {
  const source = opts.source ?? 'recent';
  // Patterns match the text, never escape sequences, whatever format the reply's read has.
  if (source !== 'recent') return readPane(core, pane, { ...opts, format: 'text' }).read.text.split('\n');
  const rows = opts.lines ?? PARAM_DEFAULTS.recentLines;
  // N logical lines span at least N rows; keep those that reach into the last N rows.
  const unwrapped = readPane(core, pane, { source: 'recent-unwrapped', lines: rows });
  return logicalLinesInRows(unwrapped.read.text, unwrapped.lineStarts ?? [], unwrapped.endLine, rows);
}

/** The logical lines (starting at `starts`, the last ending before `endLine`) that reach into the last `rows` rows. */
export function logicalLinesInRows(text: string, starts: readonly number[], endLine: number, rows: number): string[] {
  if (starts.length === 0) return [];
  const lines = text.split('\n');
  const windowStart = endLine - rows;
  return lines.filter((_, i) => (starts[i + 1] ?? endLine) > windowStart);
}

function checkTextSize(text: string): void {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > LIMITS.maxSendTextBytes) {
    throw new CorralError('invalid_params', `text is ${bytes} bytes; the limit is ${LIMITS.maxSendTextBytes}`, { bytes });
  }
}

export interface SendResult {
  sent: boolean;
  length: number;
  submitted: boolean;
  paste: boolean;
}

/**
 * Types text into a pane, as a bracketed paste when the app asked for that mode (the mode of
 * the command a line typed just before starts, once the shell took that line), and with
 * `submit` presses Enter after a short pause. The scripting gate was checked before this
 * runs (src/rpc/gate.ts): submitting, or text that is not inert, needs it open.
 */
export async function sendText(
  core: CorralCore,
  pane: PaneRecord,
  text: string,
  opts: { submit?: boolean; enterDelayMs?: number } = {},
): Promise<SendResult> {
  checkTextSize(text);
  const host = core.host(pane);
  // Framed for whoever reads it: not the shell, if a line typed before it starts a command.
  if (text.length > 0 && host.terminal.bracketedPasteMode) await host.typedLine.settled();
  const paste = host.terminal.bracketedPasteMode && text.length > 0;
  const submit = opts.submit ?? false;
  if (text.length > 0) core.writeToPane(pane, paste ? bracketedPaste(text) : text);
  if (submit) {
    if (text.length > 0) await delay(opts.enterDelayMs ?? SUBMIT_ENTER_DELAY_MS);
    core.typeLine(pane, '');
  }
  return { sent: true, length: text.length, submitted: submit, paste };
}

/** Raw typing for `pane.send_text`: exactly the given text (inert unless the gate is open). */
export function typeRaw(core: CorralCore, pane: PaneRecord, text: string): void {
  checkTextSize(text);
  core.writeToPane(pane, text);
}

/** Runs a shell command line in a pane: the text, then Enter. */
export function runCommand(core: CorralCore, pane: PaneRecord, command: string): void {
  checkTextSize(command);
  core.typeLine(pane, command);
}

/** Sends named keys (SPEC §6), honouring the app's cursor-key mode (the gate was checked before). */
export function sendKeys(core: CorralCore, pane: PaneRecord, keys: string[]): void {
  if (keys.length === 0) throw new CorralError('invalid_params', 'keys must name at least one key');
  const host = core.host(pane);
  const bytes = encodeKeys(keys, { applicationCursor: host.terminal.applicationCursorKeys });
  core.writeToPane(pane, bytes);
}


/** Compiles a substring or regex (RE2, src/terminal/pane-regex.ts) line matcher; a bad regex is `invalid_regex`. */
export function lineMatcher(match: { type: 'substring' | 'regex'; value: string }): (line: string) => boolean {
  if (match.type === 'substring') return (line) => line.includes(match.value);
  return compilePaneRegex(match.value).test;
}

/**
 * When a wait for output on a source other than `recent` looks again: once output has been
 * quiet this long, and at least this often while it keeps flowing. Each look reads the rows
 * as text (~3 µs a row); looking every 20 ms, as before, read and allocated through a whole
 * flood (bench/profile/flood-alloc.mjs). A `recent` wait looks only after a batch its output
 * filter did not pass.
 */
export const WAIT_OUTPUT = { quietMs: 1, maxGapMs: 100 } as const;

/** Rows a catch-up look may read at most (a batch writes far fewer; the store keeps `scrollback_lines`). */
const MAX_CATCH_UP_ROWS = 100_000;

/** The last `rows` rows of a pane as unwrapped logical lines, each with the row it starts on. */
function unwrappedWindow(core: CorralCore, pane: PaneRecord, rows: number): ReadWindow {
  const snapshot = readPane(core, pane, { source: 'recent-unwrapped', lines: rows });
  return { text: snapshot.read.text, lines: snapshot.lineCount, end_line: snapshot.endLine, line_starts: snapshot.lineStarts };
}

/**
 * Waits until a line of the chosen snapshot matches (herdr semantics: what is already there
 * counts; with `newOnly`, as `corral wait --pattern` asks, only a line that appeared or changed
 * after the wait began — the same comparison as src/wait/wait-logic.ts's). Ends with `timeout`, or `pane_not_found` if the pane closes first, or silently
 * when the caller goes away.
 *
 * With the `recent` source (the default) no line is missed, even one that scrolls out of the
 * window at once (a marker in a flood): each batch of output is looked at in its bytes as it
 * arrives (src/wait/output-filter.ts), and a batch that may have printed a match has the rows
 * it wrote read right after it is parsed, while the store still holds them; batches the
 * filter passes cost no read at all. The reply's `read` is the snapshot now, which may no
 * longer hold `matched_line`. Other sources look again after a quiet moment, and at most
 * every `WAIT_OUTPUT.maxGapMs` while output flows.
 */
export function waitForOutput(
  core: CorralCore,
  pane: PaneRecord,
  opts: ReadOptions & { match: { type: 'substring' | 'regex'; value: string }; timeoutMs?: number; signal?: AbortSignal; newOnly?: boolean },
): Promise<{ pane_id: string; matched_line: string; read: PaneRead; revision: number }> {
  const matches = lineMatcher(opts.match);
  const host = core.host(pane);
  const terminal = host.terminal;
  const source = opts.source ?? 'recent';
  const windowRows = opts.lines ?? PARAM_DEFAULTS.recentLines;
  if (opts.newOnly && source !== 'recent') throw new CorralError('invalid_params', 'new_only waits on the recent source only', { source });
  const baseline = opts.newOnly ? baselineOf(unwrappedWindow(core, pane, windowRows)) : null;
  /** Set for one look: the absolute row from which a batch that may match wrote its rows. */
  let catchUpFrom: number | null = null;
  return waitUntil(
    {
      deadline: opts.timeoutMs === undefined ? undefined : Date.now() + opts.timeoutMs,
      signal: opts.signal,
      onTimeout: () => new CorralError('timeout', `no line matched ${JSON.stringify(opts.match.value)} within ${opts.timeoutMs} ms`),
      subscribe: (recheck, fail) => {
        // The line the cursor is on may already hold the start of a match that output finishes.
        const filter = source === 'recent' ? outputFilter(opts.match, appendingLine(terminal)) : null;
        let hitFrom: number | null = null;
        let lastOutput = 0;
        let lastLook = performance.now();
        let timer: NodeJS.Timeout | null = null;
        const look = (): void => {
          lastLook = performance.now();
          recheck();
        };
        const tick = (): void => {
          const now = performance.now();
          if (now - lastOutput < WAIT_OUTPUT.quietMs && now - lastLook < WAIT_OUTPUT.maxGapMs) {
            // Output still flowing: look again later, with the same timer (no garbage per batch).
            timer!.refresh();
            return;
          }
          timer = null;
          look();
        };
        const before = terminal.onBeforeParse((data) => {
          // Every batch goes through the filter (it carries the unfinished line), hit or not.
          if (!filter?.mayMatch(data) || hitFrom !== null) return;
          // What the look after the batch reads: the rows of the window as it is now, and every
          // row from the cursor's on (where the batch writes; cursor moves stay on the screen,
          // which the default window covers). A line outside the window that was there before
          // does not count, as without the catch-up.
          const screen = terminal.scrollback;
          hitFrom = Math.min(terminal.scrollbackFirstLine + screen.baseY + screen.cursorY, terminal.endLine - windowRows);
        });
        const output = host.onOutput(() => {
          lastOutput = performance.now();
          if (hitFrom !== null) {
            catchUpFrom = hitFrom;
            hitFrom = null;
            try {
              look();
            } finally {
              catchUpFrom = null;
            }
            // After output the filter could not follow, it follows again once the cursor is
            // back to appending (a prompt, a flood at the bottom of the screen).
            if (filter?.lost) {
              const line = appendingLine(terminal);
              if (line !== null) filter.reseed(line);
            }
          } else if (!filter) timer ??= setTimeout(tick, WAIT_OUTPUT.quietMs);
          // With a filter, a batch it passed cannot have made a line match: no look needed
          // (a lost filter passes none).
        });
        const closed = core.listen((event) => {
          if (event.type === 'pane.closed' && event.surface_id === pane.surfaceId) {
            fail(new CorralError('pane_not_found', `pane ${pane.id} closed while waiting for output`, { pane_id: pane.id }));
          }
        });
        return () => {
          before.dispose();
          output.dispose();
          closed.dispose();
          if (timer) clearTimeout(timer);
        };
      },
    },
    () => {
      const lookAt = catchUpFrom === null ? opts : { ...opts, lines: Math.min(MAX_CATCH_UP_ROWS, Math.max(windowRows, terminal.endLine - catchUpFrom)) };
      const candidates = baseline ? newLinesSince(baseline, unwrappedWindow(core, pane, lookAt.lines ?? windowRows)) : matchableLines(core, pane, lookAt);
      const line = candidates.find(matches);
      if (line === undefined) return undefined;
      const { read } = readPane(core, pane, opts);
      return { pane_id: pane.id, matched_line: line, read, revision: read.revision };
    },
  );
}
