/**
 * Small pieces every table of a kind's rule file is read with (rules-schema.ts, answer-spec.ts):
 * how a wrong value is named in an error, and opening a plain table with its known keys.
 */
import { isTable, type TomlTable } from '../config/toml-locate.js';

/** Reports one problem: the line it is on (when known), the key, and what is wrong. */
export type Fail = (line: number | null, key: string | null, what: string) => void;
/** The line a key of the table being read was written on, or null. */
export type LineOf = (key: string) => number | null;

/** A value as an error message names it: strings quoted, arrays and tables by what they are. */
export function describe(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'an array';
  if (isTable(v)) return 'a table';
  return String(v);
}

/**
 * A plain table such as `[process]`: null when absent, or when it is not a table (reported);
 * `ok` is false when it holds keys outside `known` (each reported with its line).
 */
export function plainTable(value: unknown, name: string, known: readonly string[], lineOf: LineOf, fail: Fail): { table: TomlTable; ok: boolean } | null {
  if (value === undefined) return null;
  if (!isTable(value)) {
    fail(lineOf(''), name, `key "${name}" must be a table ([${name}])`);
    return null;
  }
  let ok = true;
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue;
    ok = false;
    fail(lineOf(key), `${name}.${key}`, `unknown key "${key}" in [${name}]`);
  }
  return { table: value, ok };
}
