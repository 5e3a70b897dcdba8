/**
 * The one regex engine for every user pattern over pane text: `surface.search --regex`,
 * `pane.wait_for_output` with a regex match, `corral wait --pattern`, a flow's `ready.pattern`
 * and the TUI's copy-mode search (SPEC §3, §9; the herdr seed says "Rust regex syntax").
 *
 * RE2 (the `re2` binding) because it is both: its syntax is the one Rust's `regex` crate
 * copied — `(?i)`, `(?P<name>…)`, `[[:digit:]]`, `\z`, `\p{Greek}` — and it matches in time
 * linear in the line, so `^(d+)+$` on a long line cannot freeze the server the way a
 * backtracking JavaScript RegExp did (issue 10). What it gives up: lookaround and
 * backreferences, which are `invalid_regex` with RE2's own message.
 *
 * The addon is loaded on first use, not at import: the CLI bundle imports this module (for
 * `wait --pattern` and flows) and must not pay a native load on every start.
 */
import { createRequire } from 'node:module';
import type RE2Type from 're2';
import { CorralError } from '../contract/protocol.js';

/** A compiled pattern: does one line (one logical pane line, no newline) match? */
export interface PaneRegex {
  readonly source: string;
  test(line: string): boolean;
}

/** The syntax in one line, for `--help` of every verb that takes a regex and for error messages. */
export const PANE_REGEX_SYNTAX = 'RE2 syntax, as Rust\'s regex crate: (?i), (?P<name>…), [[:digit:]], \\z; no lookaround or backreferences';

let engine: typeof RE2Type | undefined;

function re2(): typeof RE2Type {
  // createRequire keeps the bundler from inlining a native addon and defers the load.
  engine ??= createRequire(import.meta.url)('re2') as typeof RE2Type;
  return engine;
}

/** Compiles with RE2; a pattern it rejects is `invalid_regex` naming `label` (the flag or key the user wrote it in) and RE2's reason. */
function compile(source: string, flags: string, label: string): RE2Type {
  const RE2 = re2();
  try {
    return new RE2(source, flags);
  } catch (error) {
    throw new CorralError('invalid_regex', `invalid ${label} ${JSON.stringify(source)}: ${(error as Error).message} (${PANE_REGEX_SYNTAX})`, {
      pattern: source,
    });
  }
}

/** Compiles `source` to match one line at a time. */
export function compilePaneRegex(source: string, label = 'regex'): PaneRegex {
  // No 'g' or 'y' flag: those keep lastIndex between test() calls and would skip matches.
  const re = compile(source, '', label);
  return { source, test: (line) => re.test(line) };
}

/** Every match of a pattern in a text, for copy-mode search (many lines joined by newlines at once). */
export interface PaneRegexScanner {
  readonly source: string;
  /** Calls `fn` with each non-empty match's [start, end) UTF-16 offsets, left to right. */
  forEachMatch(text: string, fn: (start: number, end: number) => void): void;
}

/**
 * Compiles `source` for scanning: `^` and `$` anchor at each line of the text, `ignoreCase`
 * folds case. Throws `invalid_regex` like `compilePaneRegex`.
 */
export function compilePaneScanner(source: string, options: { ignoreCase?: boolean } = {}): PaneRegexScanner {
  const re = compile(source, options.ignoreCase ? 'gim' : 'gm', 'regex');
  return {
    source,
    forEachMatch(text, fn) {
      re.lastIndex = 0;
      let match: RegExpExecArray | null;
      while ((match = re.exec(text)) !== null) {
        const start = match.index;
        // An empty match (`^`, `x*`) marks nothing: step past it.
        if (match[0].length === 0) re.lastIndex = start + 1;
        else fn(start, start + match[0].length);
      }
    },
  };
}

/**
 * Compiles `source` to test many lines at once, given as UTF-8 bytes separated by newlines
 * (`^` and `$` anchor at each line): true when some line may match. For waits that look at
 * output as it streams past (src/wait/output-filter.ts). Null when the pattern's meaning
 * would change when lines are joined (`\A`, `\z`, inline flags that could turn multi-line
 * off): the caller must then test line by line.
 */
export function compilePaneLinesTest(source: string): ((bytes: Buffer) => boolean) | null {
  if (/\\[Az]|\(\?/.test(source.replace(/\\\\/g, ''))) return null;
  const re = compile(source, 'm', 'regex');
  return (bytes) => re.test(bytes as unknown as string);
}
