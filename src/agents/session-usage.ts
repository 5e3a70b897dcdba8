/**
 * What an agent spent, from its own record (SPEC §18), as its kind's `[usage]` table says
 * (src/agents/usage-spec.ts): a ledger of model calls, each counted once however often the
 * record repeats it, grouped into turns by the records that open one (the person's prompts).
 *
 * Records are written by programs in panes: untrusted. A count that is not a finite,
 * non-negative number is no count; a prompt is cut to what a turn row shows.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { textsAt, valuesAt, type RecordPath } from './record-path.js';
import type { RecordMatch, UsageSpec } from './usage-spec.js';
import type { SessionAnswerSpec } from './answer-spec.js';
import { visibleControls } from '../terminal/control-chars.js';
import type { AgentUsage, TokenCounts, UsageTurn } from '../contract/objects.js';

export type { AgentUsage, TokenCounts, UsageTurn };

export const USAGE_LIMITS = {
  /** Characters of a turn's prompt kept for `agent usage` (SPEC §18: the first 80). */
  promptChars: 80,
  /** Bytes read from a record per pass: a long transcript is read in steps, never at once. */
  readChunkBytes: 4 * 1024 * 1024,
  /** Turns kept per agent: the oldest are folded into the total only. */
  maxTurns: 10_000,
} as const;

interface Call extends TokenCounts {
  cost: number | null;
  window: number | null;
  turn: number;
}

/** Whether every `match` path of the record holds one of its values (`false` also matches absence). */
export function recordMatches(record: unknown, match: RecordMatch): boolean {
  return match.every(({ path, values }) => {
    const found = valuesAt(record, path);
    if (found.length === 0) return values.includes(false);
    return found.some((value) => (values as readonly unknown[]).includes(value));
  });
}

/** A count at the paths (summed), or null when none holds a number. */
function countAt(record: unknown, paths: readonly RecordPath[]): number | null {
  let sum: number | null = null;
  for (const path of paths) {
    for (const value of valuesAt(record, path)) {
      const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
      if (typeof n === 'number' && Number.isFinite(n) && n >= 0) sum = (sum ?? 0) + n;
    }
  }
  return sum;
}

/** A time a record holds: epoch milliseconds, or an ISO string. */
function timeAt(record: unknown, path: RecordPath | null): number | null {
  if (path === null) return null;
  const value = valuesAt(record, path)[0];
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string') {
    const ms = Date.parse(value);
    return Number.isNaN(ms) ? null : ms;
  }
  return null;
}

/** Sums counts. */
export function addCounts(a: TokenCounts, b: TokenCounts): TokenCounts {
  return { input: a.input + b.input, output: a.output + b.output, cache_read: a.cache_read + b.cache_read, cache_write: a.cache_write + b.cache_write };
}

export const ZERO_COUNTS: TokenCounts = { input: 0, output: 0, cache_read: 0, cache_write: 0 };

export function totalOf(c: TokenCounts): number {
  return c.input + c.output + c.cache_read + c.cache_write;
}

/**
 * The calls and turns of one record, fed its records in order (all at once, or as they are
 * appended). A call with an id that came before is the same call again: its last version counts.
 */
export class UsageLedger {
  private readonly calls: Call[] = [];
  private readonly byId = new Map<string, number>();
  private readonly turns: { prompt: string; startedAt: number | null }[] = [];

  constructor(
    private readonly spec: UsageSpec,
    private readonly promptSpec: { match: RecordMatch; text: RecordPath } | null,
  ) {}

  /** The ledger for a kind: its `[usage]` and the turn openers (its own, or `[answer_session]`'s prompt). */
  static of(spec: UsageSpec, answers: SessionAnswerSpec | null): UsageLedger {
    return new UsageLedger(spec, spec.prompt ?? (answers ? { match: answers.prompt.match, text: answers.prompt.text } : null));
  }

  /** Takes the next records. */
  feed(records: Iterable<unknown>): void {
    for (const record of records) this.take(record);
  }

  private take(record: unknown): void {
    const { spec } = this;
    if (this.promptSpec && recordMatches(record, this.promptSpec.match)) {
      const text = textsAt(record, this.promptSpec.text).join('\n').replace(/\s+/g, ' ').trim();
      if (text !== '') {
        this.turns.push({ prompt: visibleControls(text.slice(0, USAGE_LIMITS.promptChars)), startedAt: timeAt(record, spec.time) });
        if (this.turns.length > USAGE_LIMITS.maxTurns) this.turns.shift();
        return;
      }
    }
    if (!recordMatches(record, spec.match)) return;
    const input = countAt(record, spec.input);
    const output = countAt(record, spec.output);
    if (input === null && output === null) return;
    const cacheRead = countAt(record, spec.cacheRead) ?? 0;
    const cacheWrite = countAt(record, spec.cacheWrite) ?? 0;
    const ownInput = spec.inputHoldsCache ? Math.max(0, (input ?? 0) - cacheRead - cacheWrite) : (input ?? 0);
    const window = typeof spec.contextWindow === 'number' ? spec.contextWindow : spec.contextWindow === null ? null : countAt(record, [spec.contextWindow]);
    const idValue = spec.callId === null ? undefined : valuesAt(record, spec.callId)[0];
    const id = typeof idValue === 'string' || typeof idValue === 'number' ? String(idValue) : null;
    const known = id === null ? undefined : this.byId.get(id);
    const call: Call = {
      input: ownInput,
      output: output ?? 0,
      cache_read: cacheRead,
      cache_write: cacheWrite,
      cost: spec.costUsd === null ? null : countAt(record, [spec.costUsd]),
      window,
      turn: known === undefined ? this.turns.length : this.calls[known]!.turn,
    };
    if (known !== undefined) this.calls[known] = call;
    else {
      if (id !== null) this.byId.set(id, this.calls.length);
      this.calls.push(call);
    }
  }

  /** The total so far. */
  usage(): AgentUsage {
    let sum = ZERO_COUNTS;
    let cost: number | null = null;
    for (const call of this.calls) {
      sum = addCounts(sum, call);
      if (call.cost !== null) cost = (cost ?? 0) + call.cost;
    }
    const last = this.calls[this.calls.length - 1];
    const usage: AgentUsage = { ...sum, total: totalOf(sum), calls: this.calls.length, context_tokens: last ? last.input + last.cache_read + last.cache_write : 0 };
    const window = [...this.calls].reverse().find((c) => c.window !== null)?.window ?? (typeof this.spec.contextWindow === 'number' ? this.spec.contextWindow : null);
    if (window !== null && window !== undefined) usage.context_window = window;
    if (cost !== null) usage.cost_usd = Math.round(cost * 1e6) / 1e6;
    return usage;
  }

  /** Every turn (oldest first); calls before the first prompt make a turn 0 with no prompt. */
  turnRows(): UsageTurn[] {
    const rows: UsageTurn[] = [];
    const offset = 1;
    const byTurn = new Map<number, { counts: TokenCounts; calls: number }>();
    for (const call of this.calls) {
      const entry = byTurn.get(call.turn) ?? { counts: ZERO_COUNTS, calls: 0 };
      byTurn.set(call.turn, { counts: addCounts(entry.counts, call), calls: entry.calls + 1 });
    }
    const pre = byTurn.get(0);
    if (pre) rows.push({ turn: 0, started_at: null, prompt: '', ...pre.counts, total: totalOf(pre.counts), calls: pre.calls });
    this.turns.forEach((turn, index) => {
      const entry = byTurn.get(index + offset) ?? { counts: ZERO_COUNTS, calls: 0 };
      rows.push({ turn: index + offset, started_at: turn.startedAt, prompt: turn.prompt, ...entry.counts, total: totalOf(entry.counts), calls: entry.calls });
    });
    return rows;
  }
}

/**
 * Reads a JSON-lines record as it grows: each pass parses only the lines appended since the
 * last (a line still being written waits for its newline). A record that shrank was rewritten:
 * `read` says so and starts again from its beginning.
 */
export class JsonlTail {
  private offset = 0;
  private partial = '';

  constructor(readonly file: string) {}

  /** The records appended since the last pass; `reset` when the file was replaced (start over); null when unreadable. */
  read(): { records: unknown[]; reset: boolean } | null {
    let fd: number;
    try {
      fd = openSync(this.file, 'r');
    } catch {
      return null;
    }
    try {
      const size = fstatSync(fd).size;
      let reset = false;
      if (size < this.offset) {
        this.offset = 0;
        this.partial = '';
        reset = true;
      }
      const records: unknown[] = [];
      while (this.offset < size) {
        const buffer = Buffer.alloc(Math.min(USAGE_LIMITS.readChunkBytes, size - this.offset));
        const n = readSync(fd, buffer, 0, buffer.length, this.offset);
        if (n <= 0) break;
        this.offset += n;
        const lines = (this.partial + buffer.subarray(0, n).toString('utf8')).split('\n');
        this.partial = lines.pop()!;
        for (const line of lines) {
          if (line.trim() === '') continue;
          try {
            records.push(JSON.parse(line));
          } catch {
            // Not JSON: not a record.
          }
        }
      }
      return { records, reset };
    } catch {
      return null;
    } finally {
      closeSync(fd);
    }
  }
}

/** The records of a whole JSON document (`[answer_session] format = "json"`). */
export function documentRecords(text: string, records: RecordPath | null): unknown[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return [];
  }
  const list = records === null ? document : valuesAt(document, records)[0];
  return Array.isArray(list) ? list : [];
}
