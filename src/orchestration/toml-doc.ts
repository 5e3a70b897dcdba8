/**
 * The shared layer under `up` and `flow` files: parse TOML, and turn problems found in the
 * parsed value into messages that name the file, the line and the key
 * (`review.toml:7: unknown key "comand" in [[panes]] #2 (did you mean "command"?)`).
 *
 * Validators work on plain values and report problems by key path (`['panes', 1, 'comand']`);
 * this module maps a path to its line. toml-locate's scanner knows tables but not which
 * `[[panes]]` instance a key belongs to, so array-of-tables headers are counted here.
 */
import { parse, TomlError } from 'smol-toml';
import { CorralError } from '../contract/protocol.js';
import { definingLine, isTable, scanDefinitions, tomlSyntaxIssue, type TomlTable } from '../config/toml-locate.js';
import { suggest } from '../config/suggest.js';

/** A key path into a parsed document: table keys and array indices. */
export type KeyPath = readonly (string | number)[];

/** One problem in a file, before it is given a location. */
export interface Issue {
  path: KeyPath;
  message: string;
}

/** A problem with its place in the file. */
export interface LocatedIssue {
  message: string;
  line: number | null;
  key: string | null;
}

/** Most problems listed in one error; a file with more has bigger troubles. */
const MAX_LISTED_ISSUES = 20;

/**
 * A file that failed validation. It is an `invalid_params` CorralError (exit 1) whose message
 * lists every problem, one per line; `data.issues` carries them structured.
 */
export class FileError extends CorralError {
  constructor(readonly issues: LocatedIssue[]) {
    const shown = issues.slice(0, MAX_LISTED_ISSUES).map((i) => i.message);
    if (issues.length > MAX_LISTED_ISSUES) shown.push(`(and ${issues.length - MAX_LISTED_ISSUES} more problems)`);
    super('invalid_params', shown.join('\n'), { issues });
  }
}

export type Table = TomlTable;
export { isTable };

/** A value as the user would recognise it in a message. */
export function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a date';
  if (isTable(v)) return 'a table';
  return String(v);
}

/** A definition found in the source, with array-of-tables instances numbered. */
interface IndexedDefinition {
  line: number;
  path: (string | number)[];
}

/**
 * Every table header and key line of `source` with its full path, where each array-of-tables
 * segment is followed by the index of the instance it belongs to (`[[step]]` #3 → `step, 2`).
 */
export function indexedDefinitions(source: string): IndexedDefinition[] {
  const lines = source.split(/\r?\n/);
  const counts = new Map<string, number>();
  const out: IndexedDefinition[] = [];
  for (const def of scanDefinitions(source)) {
    const text = lines[def.line - 1]?.trimStart() ?? '';
    if (text.startsWith('[[')) {
      const key = def.path.join('\u0000');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const path: (string | number)[] = [];
    for (let i = 0; i < def.path.length; i++) {
      path.push(def.path[i]!);
      const count = counts.get(def.path.slice(0, i + 1).join('\u0000'));
      // The header line of an array table belongs to its newest instance, like its keys do.
      if (count !== undefined) path.push(count - 1);
    }
    out.push({ line: def.line, path });
  }
  return out;
}

/** Maps key paths of one parsed file to lines. */
export class Locator {
  private readonly defs: IndexedDefinition[];

  constructor(source: string) {
    this.defs = indexedDefinitions(source);
  }

  /** The line defining `path`, else that of its deepest enclosing key or table (inline tables). */
  line(path: KeyPath): number | null {
    return definingLine<string | number>(this.defs, path);
  }
}

/** Parses TOML; a syntax error is a FileError naming the line (and the key there, if any). */
export function parseToml(source: string, shownPath: string): Table {
  try {
    return parse(source) as Table;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const { message, line, key } = tomlSyntaxIssue(err, source, shownPath);
    throw new FileError([{ message, line, key }]);
  }
}

/** Gives issues their `file:line:` prefix, in file order, without repeats. */
export function locateIssues(issues: readonly Issue[], shownPath: string, locator: Locator | null): LocatedIssue[] {
  const seen = new Set<string>();
  const located: LocatedIssue[] = [];
  for (const issue of issues) {
    const line = locator ? locator.line(issue.path) : null;
    const where = locator ? `${shownPath}${line === null ? '' : `:${line}`}: ` : shownPath === '' ? '' : `${shownPath}: `;
    const message = `${where}${issue.message}`;
    if (seen.has(message)) continue;
    seen.add(message);
    located.push({ message, line, key: issue.path.filter((s) => typeof s === 'string').join('.') || null });
  }
  return located.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
}

/**
 * Collects issues while validating one document. Each check names the key relative to a
 * `context` ("in [[panes]] #2") so messages read the same in every validator.
 */
export class Checker {
  readonly issues: Issue[] = [];

  add(path: KeyPath, message: string): void {
    this.issues.push({ path, message });
  }

  /** Reports keys of `table` outside `allowed`, with a suggestion when one is close. */
  knownKeys(table: Table, path: KeyPath, allowed: readonly string[], context: string): void {
    for (const key of Object.keys(table)) {
      if (allowed.includes(key)) continue;
      // A key cut short (`timeout` for `timeout_secs`) is too far for edit distance but obvious.
      const hint = suggest(key, allowed) ?? allowed.find((a) => key.length >= 3 && a.startsWith(key)) ?? null;
      this.add([...path, key], `unknown key "${key}"${context}${hint === null ? '' : ` (did you mean "${hint}"?)`}`);
    }
  }

  private bad(path: KeyPath, key: string, requirement: string, value: unknown, context: string): undefined {
    this.add([...path, key], `key "${key}"${context} ${requirement}, got ${describeValue(value)}`);
    return undefined;
  }

  /** An optional string; `nonEmpty` refuses "". */
  str(table: Table, key: string, path: KeyPath, context: string, opts: { nonEmpty?: boolean } = {}): string | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') return this.bad(path, key, 'must be a string', value, context);
    if (opts.nonEmpty && value.trim() === '') return this.bad(path, key, 'must not be empty', value, context);
    return value;
  }

  bool(table: Table, key: string, path: KeyPath, context: string): boolean | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') return this.bad(path, key, 'must be true or false', value, context);
    return value;
  }

  /** An optional number in (0, max] (timeouts in seconds). */
  positive(table: Table, key: string, path: KeyPath, context: string, max: number): number | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || value > max) {
      return this.bad(path, key, `must be a number of seconds above 0 and at most ${max}`, value, context);
    }
    return value;
  }

  /** An optional integer in [min, max]. */
  int(table: Table, key: string, path: KeyPath, context: string, min: number, max: number): number | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      return this.bad(path, key, `must be a whole number from ${min} to ${max}`, value, context);
    }
    return value;
  }

  /** An optional value from a fixed set, with a suggestion for a near miss. */
  oneOf<T extends string>(table: Table, key: string, path: KeyPath, context: string, allowed: readonly T[]): T | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
    const hint = typeof value === 'string' ? suggest(value, allowed) : null;
    return this.bad(path, key, `must be one of ${allowed.join(', ')}${hint ? ` (did you mean "${hint}"?)` : ''}`, value, context);
  }

  /** An optional table. */
  table(table: Table, key: string, path: KeyPath, context: string): Table | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    if (!isTable(value)) return this.bad(path, key, 'must be a table', value, context);
    return value;
  }

  /** An optional array of strings (numbers are accepted and written as strings, for foreach). */
  strings(table: Table, key: string, path: KeyPath, context: string, opts: { numbers?: boolean } = {}): string[] | undefined {
    const value = table[key];
    if (value === undefined) return undefined;
    const ok = (item: unknown) => typeof item === 'string' || (opts.numbers === true && typeof item === 'number' && Number.isFinite(item));
    if (!Array.isArray(value) || !value.every(ok)) {
      return this.bad(path, key, `must be an array of strings${opts.numbers ? ' or numbers' : ''}`, value, context);
    }
    return value.map(String);
  }
}
