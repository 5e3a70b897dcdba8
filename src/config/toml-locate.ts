/**
 * Finds the line where a key of an already-parsed TOML document is defined, so semantic
 * errors can name `file:line`. The TOML library reports positions only for syntax errors.
 * The document is known to be valid TOML, which keeps this scanner small: it reads table
 * headers and `key = value` lines, and skips multi-line strings and comments.
 */

import type { TomlError } from 'smol-toml';

type Quote = '"' | "'" | '"""' | "'''";

/** Parses a (possibly dotted, possibly quoted) TOML key at the start of `s`; returns its segments and the rest. */
function parseKey(s: string): { segments: string[]; rest: string } | null {
  const segments: string[] = [];
  let i = 0;
  for (;;) {
    while (s[i] === ' ' || s[i] === '\t') i++;
    const c = s[i];
    if (c === '"' || c === "'") {
      let j = i + 1;
      let seg = '';
      while (j < s.length && s[j] !== c) {
        if (c === '"' && s[j] === '\\' && j + 1 < s.length) {
          seg += unescapeBasic(s[j + 1]);
          j += 2;
          continue;
        }
        seg += s[j];
        j++;
      }
      if (j >= s.length) return null;
      segments.push(seg);
      i = j + 1;
    } else {
      const m = /^[A-Za-z0-9_-]+/.exec(s.slice(i));
      if (!m) return null;
      segments.push(m[0]);
      i += m[0].length;
    }
    while (s[i] === ' ' || s[i] === '\t') i++;
    if (s[i] !== '.') return { segments, rest: s.slice(i) };
    i++;
  }
}

/** Good enough for locating keys: only the common single-character escapes matter in key names. */
function unescapeBasic(c: string): string {
  return ({ n: '\n', t: '\t', '"': '"', '\\': '\\' } as Record<string, string>)[c] ?? c;
}

/**
 * Given the state at the start of a line, returns the multi-line string still open at its
 * end (or null). Single-line strings and comments are skipped so their quotes do not count.
 */
function openStringAfter(line: string, from: number, open: Quote | null): Quote | null {
  let i = from;
  let state: Quote | null = open;
  while (i < line.length) {
    if (state === '"""' || state === "'''") {
      const close = findClose(line, i, state);
      if (close < 0) return state;
      i = close;
      state = null;
      continue;
    }
    const c = line[i];
    if (c === '#') return null;
    if (line.startsWith('"""', i) || line.startsWith("'''", i)) {
      state = line.slice(i, i + 3) as Quote;
      i += 3;
      continue;
    }
    if (c === '"' || c === "'") {
      const close = findClose(line, i + 1, c);
      i = close < 0 ? line.length : close;
      continue;
    }
    i++;
  }
  return state;
}

/** Index just past the closing `quote` from `from`, or -1; honours backslash escapes in basic strings. */
function findClose(line: string, from: number, quote: Quote): number {
  for (let i = from; i < line.length; i++) {
    if (quote.startsWith('"') && line[i] === '\\') {
      i++;
      continue;
    }
    if (line.startsWith(quote, i)) {
      // A closing `"""` may be followed by up to two more quotes that belong to the content.
      let end = i + quote.length;
      if (quote.length === 3) while (end < line.length && line[end] === quote[0] && end - i < 5) end++;
      return end;
    }
  }
  return -1;
}

/** Whether key path `prefix` is `of` or one of its ancestors. */
function isPrefix<T>(prefix: readonly T[], of: readonly T[]): boolean {
  return prefix.length <= of.length && prefix.every((seg, i) => seg === of[i]);
}

/** One key or table definition found by the scanner: its 1-based line and full dotted path. */
export interface TomlDefinition {
  line: number;
  path: string[];
}

/** Every table header and `key = value` line of `source`, in order, with the table context applied. */
export function scanDefinitions(source: string): TomlDefinition[] {
  const lines = source.split(/\r?\n/);
  const found: TomlDefinition[] = [];
  let table: string[] = [];
  let open: Quote | null = null;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n];
    if (open !== null) {
      open = openStringAfter(line, 0, open);
      continue;
    }
    const trimmed = line.trimStart();
    // Where strings may start: after `=` on a key line, nowhere on a header, anywhere on an array continuation.
    let valueStart = 0;
    if (trimmed.startsWith('[')) {
      valueStart = line.length;
      const isArray = trimmed.startsWith('[[');
      const parsed = parseKey(trimmed.slice(isArray ? 2 : 1));
      const close = isArray ? ']]' : ']';
      // Must be followed by nothing but a comment, or it is a nested array in a multi-line value.
      if (parsed && parsed.rest.startsWith(close) && /^\s*(#.*)?$/.test(parsed.rest.slice(close.length))) {
        table = parsed.segments;
        found.push({ line: n + 1, path: table });
      }
    } else if (trimmed !== '' && !trimmed.startsWith('#')) {
      const parsed = parseKey(trimmed);
      if (parsed && parsed.rest.startsWith('=')) {
        found.push({ line: n + 1, path: [...table, ...parsed.segments] });
        valueStart = line.length - parsed.rest.length + 1;
      }
    }
    open = openStringAfter(line, valueStart, null);
  }
  return found;
}

/**
 * The 1-based line defining `keyPath` (e.g. ['ui', 'sidebar_width']). When the exact key
 * is not on a line of its own (inline tables), the line of the deepest enclosing table or
 * key is returned; null when nothing matches.
 */
export function locateKey(source: string, keyPath: readonly string[]): number | null {
  return definingLine(scanDefinitions(source), keyPath);
}

/**
 * Among `defs`, the line defining `keyPath` exactly, else that of its deepest enclosing
 * definition; null when none encloses it. Shared by plain and indexed (array-of-tables) paths.
 */
export function definingLine<T>(defs: Iterable<{ line: number; path: readonly T[] }>, keyPath: readonly T[]): number | null {
  let best: { line: number; path: readonly T[] } | null = null;
  for (const def of defs) {
    if (!isPrefix(def.path, keyPath)) continue;
    if (def.path.length === keyPath.length) return def.line;
    if (best === null || def.path.length > best.path.length) best = def;
  }
  return best?.line ?? null;
}

/** The dotted key defined on 1-based `line`, if any (used to name the key in syntax errors). */
export function keyAtLine(source: string, line: number): string | null {
  const def = scanDefinitions(source).find((d) => d.line === line);
  return def ? def.path.join('.') : null;
}

/** The first line of a smol-toml parse error, without its generic prefix. */
function tomlErrorReason(err: Error): string {
  return err.message.split('\n')[0]!.replace(/^Invalid TOML document:\s*/, '');
}

/** A parsed TOML table. */
export type TomlTable = Record<string, unknown>;

/** A TOML table (not an array, not a date, not a scalar). */
export function isTable(v: unknown): v is TomlTable {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Date);
}

/** A TOML syntax error as every corral file reports it. */
export interface TomlSyntaxIssue {
  /** `file:line:column: invalid TOML: reason (at key "k")`. */
  message: string;
  line: number;
  column: number;
  /** The dotted key defined on that line, if any. */
  key: string | null;
}

/** Describes a smol-toml syntax error in `source`, naming `shownPath`, the line and the key there. */
export function tomlSyntaxIssue(err: TomlError, source: string, shownPath: string): TomlSyntaxIssue {
  const key = keyAtLine(source, err.line);
  const message = `${shownPath}:${err.line}:${err.column}: invalid TOML: ${tomlErrorReason(err)}${key === null ? '' : ` (at key "${key}")`}`;
  return { message, line: err.line, column: err.column, key };
}
