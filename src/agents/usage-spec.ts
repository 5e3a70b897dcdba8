/**
 * Where a kind's token usage is, as data in its rule file (SPEC §18), beside `[answer_session]`:
 * - the records: the session record `[answer_session]` reads (JSON lines or one document), or,
 *   with `sqlite` and `query`, the rows a read-only query of the agent's SQLite store gives for
 *   the session (`:session` is its id; each row is a record, its columns the keys);
 * - `match`: which records carry one model call's counts; `call_id`: the record path that names
 *   the call where the record repeats it (the last version of a call counts, once);
 * - `input`, `output`, `cache_read`, `cache_write`: a record path or a list of paths summed;
 *   `input_holds_cache`: the record's input already counts the cached tokens (OpenAI, Gemini),
 *   so they are taken out of it;
 * - `cost_usd`, `time`, `context_window` (a path or a number): optional;
 * - `prompt`: which records open a turn (default: `[answer_session]`'s prompt).
 * Parsed strictly, as the rest of the rule file: an unknown key is an issue with its line.
 */
import { isTable } from '../config/toml-locate.js';
import { parseRecordPath, type RecordPath } from './record-path.js';
import { describe, plainTable, type Fail, type LineOf } from './rule-table.js';

/** Path → wanted values; a boolean `false` also matches an absent key (as in `[answer_session]`). */
export type RecordMatch = ReadonlyArray<{ path: RecordPath; source: string; values: readonly (string | boolean)[] }>;

/** How to read a kind's token usage from its own record. */
export interface UsageSpec {
  /** An SQLite database (path template as in `session_files`), or null: the session record. */
  sqlite: string | null;
  /** The read-only query giving the session's records (`:session` bound to its id). */
  query: string | null;
  match: RecordMatch;
  callId: RecordPath | null;
  input: readonly RecordPath[];
  output: readonly RecordPath[];
  cacheRead: readonly RecordPath[];
  cacheWrite: readonly RecordPath[];
  inputHoldsCache: boolean;
  costUsd: RecordPath | null;
  time: RecordPath | null;
  contextWindow: number | RecordPath | null;
  /** Records that open a turn, and where their text is; null: `[answer_session]`'s prompt. */
  prompt: { match: RecordMatch; text: RecordPath } | null;
}

export const USAGE_KEYS = ['sqlite', 'query', 'match', 'call_id', 'input', 'output', 'cache_read', 'cache_write', 'input_holds_cache', 'cost_usd', 'time', 'context_window', 'prompt'] as const;
const PROMPT_KEYS = ['match', 'text'] as const;
const NAME = 'usage';

function pathOf(source: unknown, key: string, lineOf: LineOf, fail: Fail): RecordPath | null {
  if (typeof source !== 'string') {
    fail(lineOf(key), `${NAME}.${key}`, `key "${key}" must be a record path such as "message.usage.input_tokens", got ${describe(source)} in [${NAME}]`);
    return null;
  }
  const parsed = parseRecordPath(source);
  if (typeof parsed === 'string') {
    fail(lineOf(key), `${NAME}.${key}`, `bad record path ${JSON.stringify(source)} (${parsed}) in [${NAME}]`);
    return null;
  }
  return parsed;
}

/** `{ path = value | [values] }`, or null (reported). */
function matchOf(raw: unknown, key: string, lineOf: LineOf, fail: Fail): RecordMatch | null {
  if (!isTable(raw) || Object.keys(raw).length === 0) {
    fail(lineOf(key), `${NAME}.${key}`, `key "${key}" must be a table of record paths and the values they hold, such as { type = "assistant" } in [${NAME}]`);
    return null;
  }
  const match: { path: RecordPath; source: string; values: (string | boolean)[] }[] = [];
  let ok = true;
  for (const [source, value] of Object.entries(raw)) {
    const path = pathOf(source, key, lineOf, fail);
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0 || !values.every((v) => typeof v === 'string' || typeof v === 'boolean')) {
      ok = false;
      fail(lineOf(key), `${NAME}.${key}`, `match "${source}" must be a string, a boolean or an array of them, got ${describe(value)} in [${NAME}]`);
    } else if (path === null) ok = false;
    else match.push({ path, source, values: values as (string | boolean)[] });
  }
  return ok ? match : null;
}

/** The `[usage]` table, or null when absent or invalid (issues reported). */
export function parseUsage(value: unknown, lineOf: LineOf, fail: Fail): UsageSpec | null {
  const opened = plainTable(value, NAME, USAGE_KEYS, lineOf, fail);
  if (!opened) return null;
  const { table: raw } = opened;
  let ok = opened.ok;
  const str = (key: string): string | null => {
    const v = raw[key];
    if (v === undefined) return null;
    if (typeof v !== 'string' || v.trim() === '') {
      ok = false;
      fail(lineOf(key), `${NAME}.${key}`, `key "${key}" must be a non-empty string, got ${describe(v)} in [${NAME}]`);
      return null;
    }
    return v;
  };
  const optionalPath = (key: string): RecordPath | null => {
    if (raw[key] === undefined) return null;
    const path = pathOf(raw[key], key, lineOf, fail);
    if (path === null) ok = false;
    return path;
  };
  const paths = (key: string): RecordPath[] => {
    const v = raw[key];
    if (v === undefined) return [];
    const list = Array.isArray(v) ? v : [v];
    const out: RecordPath[] = [];
    for (const source of list) {
      const path = pathOf(source, key, lineOf, fail);
      if (path === null) ok = false;
      else out.push(path);
    }
    return out;
  };
  const sqlite = str('sqlite');
  const query = str('query');
  if ((sqlite === null) !== (query === null)) {
    ok = false;
    fail(lineOf(sqlite === null ? 'query' : 'sqlite'), NAME, `keys "sqlite" and "query" go together in [${NAME}]`);
  }
  if (query !== null && !/^\s*(select|with)\b/i.test(query)) {
    ok = false;
    fail(lineOf('query'), `${NAME}.query`, `key "query" must be a SELECT in [${NAME}]`);
  }
  const match = raw.match === undefined ? null : matchOf(raw.match, 'match', lineOf, fail);
  if (raw.match === undefined) {
    ok = false;
    fail(lineOf('match'), `${NAME}.match`, `missing key "match" (which records carry a model call's counts) in [${NAME}]`);
  } else if (match === null) ok = false;
  const input = paths('input');
  const output = paths('output');
  if (raw.input === undefined || raw.output === undefined) {
    ok = false;
    fail(lineOf(raw.input === undefined ? 'input' : 'output'), NAME, `keys "input" and "output" are required in [${NAME}]`);
  }
  const inputHoldsCache = raw.input_holds_cache ?? false;
  if (typeof inputHoldsCache !== 'boolean') {
    ok = false;
    fail(lineOf('input_holds_cache'), `${NAME}.input_holds_cache`, `key "input_holds_cache" must be true or false, got ${describe(inputHoldsCache)} in [${NAME}]`);
  }
  let contextWindow: number | RecordPath | null = null;
  if (typeof raw.context_window === 'number') {
    if (!Number.isInteger(raw.context_window) || raw.context_window <= 0) {
      ok = false;
      fail(lineOf('context_window'), `${NAME}.context_window`, `key "context_window" must be a positive integer or a record path in [${NAME}]`);
    } else contextWindow = raw.context_window;
  } else contextWindow = optionalPath('context_window');
  let prompt: UsageSpec['prompt'] = null;
  if (raw.prompt !== undefined) {
    const table = plainTable(raw.prompt, `${NAME}.prompt`, PROMPT_KEYS, lineOf, fail);
    const m = table ? matchOf(table.table.match, 'prompt', lineOf, fail) : null;
    const text = table ? pathOf(table.table.text, 'prompt', lineOf, fail) : null;
    if (!table?.ok || m === null || text === null) ok = false;
    else prompt = { match: m, text };
  }
  const spec: UsageSpec = {
    sqlite,
    query,
    match: match ?? [],
    callId: optionalPath('call_id'),
    input,
    output,
    cacheRead: paths('cache_read'),
    cacheWrite: paths('cache_write'),
    inputHoldsCache: inputHoldsCache === true,
    costUsd: optionalPath('cost_usd'),
    time: optionalPath('time'),
    contextWindow,
    prompt,
  };
  return ok ? spec : null;
}
