/**
 * What a wait on panes decides, without any connection (SPEC §9): which lines are new since
 * the wait began, when a pane is idle, when `--any`/`--all` are satisfied. `corral wait`
 * (src/cli/wait.ts) and flow ready barriers (src/orchestration/flow-runner.ts) both run on it,
 * so it sits below both.
 */
import type { AgentStatus, MethodCaller, SurfaceReadResult, SurfaceStatus } from '../contract/protocol.js';
import { compilePaneRegex, type PaneRegex } from '../terminal/pane-regex.js';

/** Timing and sizes of `wait`, as the Conductor reference fixes them. */
export const WAIT = {
  /** Scrollback is polled this often (SPEC §9). */
  pollMs: 500,
  /** Each poll scans this many trailing lines (SPEC §9). */
  scanLines: 500,
  /** A pane without an agent is idle after this much quiet, unless --for says otherwise. */
  defaultQuietMs: 1000,
} as const;

/** Agent statuses that satisfy `--idle`. */
const IDLE_STATUSES: ReadonlySet<AgentStatus> = new Set(['idle', 'done']);

export type WaitMode = 'single' | 'any' | 'all';

export interface WaitOptions {
  /** The `--match` selector. */
  selector: string;
  idle: boolean;
  pattern?: PaneRegex;
  mode: WaitMode;
  /** Give up after this long (ms); undefined waits forever. */
  timeoutMs?: number;
  /** `--for`: quiet time that makes a pane without an agent idle. */
  quietMs: number;
}

export interface WaitMatch {
  surface_id: number;
  pane_id: string;
  lines: string[];
}

/** What `wait --json` prints. */
export interface WaitOutcome {
  matched: boolean;
  panes: string[];
  matches: WaitMatch[];
}


/**
 * Where a pattern wait started in one pane: the absolute end line, and the text each line
 * read then had (by absolute index), so a line an app redrew in place counts as new too.
 */
export interface LineBaseline {
  endLine: number;
  texts: ReadonlyMap<number, string>;
}

export type ReadWindow = Pick<SurfaceReadResult, 'text' | 'lines' | 'end_line' | 'line_starts'> & { total_lines?: number };

/**
 * The lines of a read, each with its absolute position: its row, or for an unwrapped read
 * (`line_starts`) the row its logical line starts on. `end` is one past the last row.
 */
export function splitRead(read: ReadWindow): { end: number; lines: string[]; positions: number[] } {
  const lines = read.lines === 0 ? [] : read.text.split('\n');
  // A trailing newline leaves an empty last element that is not a line of the pane.
  while (lines.length > read.lines && lines[lines.length - 1] === '') lines.pop();
  const end = typeof read.end_line === 'number' ? read.end_line : (read.total_lines ?? lines.length);
  const starts = read.line_starts;
  const positions = starts && starts.length === lines.length ? starts : lines.map((_, k) => end - lines.length + k);
  return { end, lines, positions };
}

/** The baseline a pattern wait compares later reads with. */
export function baselineOf(read: ReadWindow): LineBaseline {
  const { end, lines, positions } = splitRead(read);
  return { endLine: end, texts: new Map(lines.map((text, k) => [positions[k]!, text])) };
}

/**
 * Lines of `read` that appeared after `baseline`: every line at or past the baseline's end,
 * plus any earlier line whose text changed since (a prompt line the output continued, or a
 * full-screen app that redraws its rows in place instead of scrolling).
 */
export function newLinesSince(baseline: LineBaseline, read: ReadWindow): string[] {
  const { lines, positions } = splitRead(read);
  const fresh: string[] = [];
  lines.forEach((text, k) => {
    const index = positions[k]!;
    if (index >= baseline.endLine) fresh.push(text);
    else {
      const before = baseline.texts.get(index);
      if (before !== undefined && before !== text) fresh.push(text);
    }
  });
  return fresh;
}

/** The lines `pattern` matches. */
export function matchingLines(lines: readonly string[], pattern: PaneRegex): string[] {
  return lines.filter((line) => pattern.test(line));
}

/** Compiles `--pattern` with the pane-text engine (RE2); a bad expression is `invalid_regex`. */
export function compilePattern(source: string): PaneRegex {
  return compilePaneRegex(source, '--pattern');
}

/** What the wait knows about one pane. */
export interface PaneProgress {
  surfaceId: number;
  paneId: string;
  /** Agent kind in the pane, null when none. */
  tool: string | null;
  agentStatus: AgentStatus | null;
  outputGeneration: number;
  /** When output last changed (or the wait began). */
  lastOutputAt: number;
  /** Lines that matched the pattern; set once, then sticky. */
  matched?: string[];
}

/** `--idle` for one pane: an agent is idle or done; a pane without one has been quiet for `quietMs`. */
export function isPaneIdle(pane: PaneProgress, now: number, quietMs: number): boolean {
  if (pane.tool !== null) return pane.agentStatus !== null && IDLE_STATUSES.has(pane.agentStatus);
  return now - pane.lastOutputAt >= quietMs;
}

/** Whether one pane meets the wait's conditions right now. */
export function isPaneSatisfied(pane: PaneProgress, opts: Pick<WaitOptions, 'idle' | 'pattern' | 'quietMs'>, now: number): boolean {
  if (opts.pattern && pane.matched === undefined) return false;
  if (opts.idle && !isPaneIdle(pane, now, opts.quietMs)) return false;
  return true;
}

/** `--any` needs one satisfied pane, `--all` (and a single pane) all of them. */
export function isWaitSatisfied(mode: WaitMode, satisfied: readonly boolean[]): boolean {
  if (satisfied.length === 0) return false;
  return mode === 'any' ? satisfied.some(Boolean) : satisfied.every(Boolean);
}

/** Applies one event from the stream to the pane it names. */
export function applyEvent(panes: readonly PaneProgress[], event: Record<string, unknown>, now: number): void {
  const pane = panes.find((p) => p.surfaceId === event.surface_id);
  if (!pane) return;
  if (event.type === 'surface_changed') {
    pane.lastOutputAt = now;
    if (typeof event.output_generation === 'number') pane.outputGeneration = event.output_generation;
  } else if (event.type === 'agent.status_changed') {
    if ('tool' in event) pane.tool = typeof event.tool === 'string' ? event.tool : null;
    if (typeof event.agent_status === 'string') pane.agentStatus = event.agent_status as AgentStatus;
  }
}

/** Applies a polled `surface.status`; an advanced output_generation counts as output. */
export function applyStatus(pane: PaneProgress, status: SurfaceStatus, now: number): void {
  pane.tool = status.tool;
  pane.agentStatus = status.agent_status;
  if (status.output_generation !== pane.outputGeneration) {
    pane.outputGeneration = status.output_generation;
    pane.lastOutputAt = now;
  }
}

/** The outcome for the panes that are satisfied now. */
export function outcomeOf(panes: readonly PaneProgress[], satisfied: readonly boolean[], withPattern: boolean): WaitOutcome {
  const done = panes.filter((_, i) => satisfied[i]);
  return {
    matched: true,
    panes: done.map((p) => p.paneId),
    matches: withPattern ? done.map((p) => ({ surface_id: p.surfaceId, pane_id: p.paneId, lines: p.matched ?? [] })) : [],
  };
}

/** The part of RpcClient a wait uses (a structural type, so tests can pass a fake). */
export interface RpcCaller extends MethodCaller {
  onNotification(handler: (method: string, params: unknown) => void): () => void;
  close(): void;
}
