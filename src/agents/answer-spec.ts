/**
 * Where a kind's answers are, as data in its rule file (issue 29, "the answer, not the UI"):
 * - `[answer_session]`: how to read the agent's own session record (the file its `[resume]
 *   session_files` locate): JSON lines or one JSON document, which records are the person's
 *   prompts and which the model's replies, and where their text is, in a small path language
 *   (src/agents/record-path.ts);
 * - `[answer_screen]`: how its screen sets the answer apart from its UI: the row where its
 *   input area starts (the bottom-most match) and rows that are chrome wherever they show.
 * Parsed strictly, as the rest of the rule file: an unknown key is an issue with its line.
 */
import { isTable } from '../config/toml-locate.js';
import { parseRecordPath, type RecordPath } from './record-path.js';
import { describe, plainTable, type Fail, type LineOf } from './rule-table.js';

export const SESSION_FORMATS = ['jsonl', 'json'] as const;
export type SessionFormat = (typeof SESSION_FORMATS)[number];

/** One kind of record: every `match` path holds its value, and `text` reaches its text. */
export interface RecordSelector {
  /** Path → wanted value; a boolean `false` also matches an absent key. */
  match: ReadonlyArray<{ path: RecordPath; source: string; values: readonly (string | boolean)[] }>;
  text: RecordPath;
  /** The text path as written, for messages. */
  textSource: string;
}

/** How to read the person's prompts and the model's replies from the agent's session record. */
export interface SessionAnswerSpec {
  format: SessionFormat;
  /** For `json`: where the array of records is in the document (null: the document is the array). */
  records: RecordPath | null;
  /**
   * Where a record's own id is, for agents that append a message again when it changes
   * (Gemini re-writes a reply with its tool calls): the last record with an id stands for it.
   */
  recordId: RecordPath | null;
  prompt: RecordSelector;
  reply: RecordSelector;
}

/** How the agent's screen sets its answer apart from its UI. */
export interface ScreenAnswerSpec {
  /** The first row of its input area: the bottom-most match ends the last answer. */
  input: RegExp | null;
  /** Rows that are UI wherever they show (spinner and timing lines, hints, mode lines). */
  chrome: readonly RegExp[];
  /**
   * Marks a sidebar on the right (Kilo on a wide pane): where it matches a row, from that
   * column on every row is the sidebar's, not the answer's.
   */
  sidebar: RegExp | null;
}

export const ANSWER_SESSION_KEYS = ['format', 'records', 'record_id', 'prompt', 'reply'] as const;
const SELECTOR_KEYS = ['match', 'text'] as const;
export const ANSWER_SCREEN_KEYS = ['input', 'chrome', 'sidebar'] as const;

/** A path in the record path language, or null (reported). */
function pathOf(source: unknown, key: string, name: string, lineOf: LineOf, fail: Fail): RecordPath | null {
  if (typeof source !== 'string') {
    fail(lineOf(key.split('.')[0]!), `${name}.${key}`, `key "${key}" must be a record path such as "message.content[type=text].text", got ${describe(source)} in [${name}]`);
    return null;
  }
  const parsed = parseRecordPath(source);
  if (typeof parsed === 'string') {
    fail(lineOf(key.split('.')[0]!), `${name}.${key}`, `bad record path ${JSON.stringify(source)} (${parsed}) in [${name}]`);
    return null;
  }
  return parsed;
}

/** `prompt` / `reply`: `{ match = { path = value | [values] }, text = "path" }`. */
function parseSelector(raw: unknown, key: 'prompt' | 'reply', lineOf: LineOf, fail: Fail): RecordSelector | null {
  const name = 'answer_session';
  if (!isTable(raw)) {
    fail(lineOf(key), `${name}.${key}`, `${raw === undefined ? `missing key "${key}"` : `key "${key}" must be a table { match = { … }, text = "…" }, got ${describe(raw)}`} in [${name}]`);
    return null;
  }
  let ok = true;
  for (const k of Object.keys(raw)) {
    if ((SELECTOR_KEYS as readonly string[]).includes(k)) continue;
    ok = false;
    fail(lineOf(key), `${name}.${key}.${k}`, `unknown key "${k}" in ${key} of [${name}]`);
  }
  const text = pathOf(raw.text, `${key}.text`, name, lineOf, fail);
  if (text === null) ok = false;
  const match: RecordSelector['match'][number][] = [];
  if (!isTable(raw.match) || Object.keys(raw.match).length === 0) {
    ok = false;
    fail(lineOf(key), `${name}.${key}.match`, `key "match" of ${key} must be a table of record paths and the values they hold, such as { type = "assistant" } in [${name}]`);
  } else {
    for (const [source, value] of Object.entries(raw.match)) {
      const path = pathOf(source, `${key}.match`, name, lineOf, fail);
      const values = Array.isArray(value) ? value : [value];
      if (values.length === 0 || !values.every((v) => typeof v === 'string' || typeof v === 'boolean')) {
        ok = false;
        fail(lineOf(key), `${name}.${key}.match`, `match "${source}" of ${key} must be a string, a boolean or an array of them, got ${describe(value)} in [${name}]`);
      } else if (path === null) ok = false;
      else match.push({ path, source, values: values as (string | boolean)[] });
    }
  }
  return ok && text !== null ? { match, text, textSource: raw.text as string } : null;
}

/** The `[answer_session]` table, or null when absent or invalid (issues reported). */
export function parseAnswerSession(value: unknown, lineOf: LineOf, fail: Fail): SessionAnswerSpec | null {
  const name = 'answer_session';
  const opened = plainTable(value, name, ANSWER_SESSION_KEYS, lineOf, fail);
  if (!opened) return null;
  const { table: raw } = opened;
  let ok = opened.ok;
  const format = raw.format;
  if (!(SESSION_FORMATS as readonly unknown[]).includes(format)) {
    ok = false;
    fail(lineOf('format'), `${name}.format`, `${format === undefined ? 'missing key "format"' : `key "format" must be ${SESSION_FORMATS.map((f) => `"${f}"`).join(' or ')}, got ${describe(format)}`} in [${name}]`);
  }
  let records: RecordPath | null = null;
  if (raw.records !== undefined) {
    if (format !== 'json') {
      ok = false;
      fail(lineOf('records'), `${name}.records`, `key "records" is only meaningful for format = "json" in [${name}]`);
    } else {
      records = pathOf(raw.records, 'records', name, lineOf, fail);
      if (records === null) ok = false;
    }
  }
  let recordId: RecordPath | null = null;
  if (raw.record_id !== undefined) {
    recordId = pathOf(raw.record_id, 'record_id', name, lineOf, fail);
    if (recordId === null) ok = false;
  }
  const prompt = parseSelector(raw.prompt, 'prompt', lineOf, fail);
  const reply = parseSelector(raw.reply, 'reply', lineOf, fail);
  if (!ok || prompt === null || reply === null) return null;
  return { format: format as SessionFormat, records, recordId, prompt, reply };
}

/** A regex of a rule file, compiled once (`u`), or null (reported). */
function regexOf(source: unknown, key: string, lineOf: LineOf, fail: Fail): RegExp | null {
  const name = 'answer_screen';
  if (typeof source !== 'string' || source === '') {
    fail(lineOf(key), `${name}.${key}`, `key "${key}" must hold non-empty regex strings, got ${describe(source)} in [${name}]`);
    return null;
  }
  try {
    return new RegExp(source, 'u');
  } catch (err) {
    fail(lineOf(key), `${name}.${key}`, `invalid regex ${JSON.stringify(source)}: ${(err as Error).message} in [${name}]`);
    return null;
  }
}

/** The `[answer_screen]` table, or null when absent or invalid (issues reported). */
export function parseAnswerScreen(value: unknown, lineOf: LineOf, fail: Fail): ScreenAnswerSpec | null {
  const name = 'answer_screen';
  const opened = plainTable(value, name, ANSWER_SCREEN_KEYS, lineOf, fail);
  if (!opened) return null;
  const { table: raw } = opened;
  let ok = opened.ok;
  const optionalRegex = (key: string): RegExp | null => {
    if (raw[key] === undefined) return null;
    const re = regexOf(raw[key], key, lineOf, fail);
    if (re === null) ok = false;
    return re;
  };
  const input = optionalRegex('input');
  const sidebar = optionalRegex('sidebar');
  const chrome: RegExp[] = [];
  if (raw.chrome !== undefined) {
    if (!Array.isArray(raw.chrome)) {
      ok = false;
      fail(lineOf('chrome'), `${name}.chrome`, `key "chrome" must be an array of regexes in [${name}]`);
    } else {
      for (const source of raw.chrome) {
        const re = regexOf(source, 'chrome', lineOf, fail);
        if (re === null) ok = false;
        else chrome.push(re);
      }
    }
  }
  return ok ? { input, chrome, sidebar } : null;
}
