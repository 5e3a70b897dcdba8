/**
 * What the CLI writes (SPEC §6): herdr-style verbs print `{"result":…}`, Conductor verbs
 * print human text or the bare result, errors go to stderr as `{"error":{code,message}}`.
 * Pure formatting lives here so it can be tested without a server.
 */
import { CorralError, EXIT, exitCodeFor } from '../contract/protocol.js';
import { codePointWidth } from '../screen/char-width.js';
import { visibleControls } from '../terminal/control-chars.js';

/** A mistake in how the CLI was called that yargs could not see (e.g. `--current` outside a pane). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The stderr line for an error; unexpected exceptions become `internal_error`. */
export function formatError(error: unknown): string {
  const { code, message } = describeError(error);
  // A crossed budget's figures are part of its contract (SPEC §18: data holds limit and used).
  const data = code === 'budget_exceeded' && error instanceof Error ? Reflect.get(error, 'data') : undefined;
  return terminalJson({ error: data !== undefined ? { code, message, data } : { code, message } });
}

/** Where the request's params came from, which decides what a refused param means. */
export interface ErrorContext {
  /**
   * The params were built from the command line's flags and arguments, so a value the server
   * refused is a usage error (SPEC §3: exit 2). Not so for `up`/`flow run`, whose params come
   * from a file: a bad file is a runtime error (exit 1) naming file:line:key.
   */
  paramsFromFlags?: boolean;
}

/** The exit code for anything a verb may throw (SPEC §6). */
export function exitCodeForError(error: unknown, context: ErrorContext = {}): number {
  if (error instanceof UsageError) return EXIT.usage;
  const { code } = describeError(error);
  if (context.paramsFromFlags && USAGE_CODES.has(code)) return EXIT.usage;
  return exitCodeFor(code);
}

/** Server error codes that mean a param out of range or malformed (SPEC §3: exit 2 from the CLI). */
const USAGE_CODES: ReadonlySet<string> = new Set(['invalid_params', 'invalid_agent_timeout']);

function describeError(error: unknown): { code: string; message: string } {
  if (error instanceof CorralError) return { code: error.code, message: error.message };
  // The server and TUI are separate bundles with their own copy of CorralError: match by shape.
  const code: unknown = error instanceof Error && error.name === 'CorralError' ? Reflect.get(error, 'code') : undefined;
  if (typeof code === 'string') return { code, message: (error as Error).message };
  if (error instanceof Error) return { code: 'internal_error', message: error.message };
  return { code: 'internal_error', message: String(error) };
}

/** The herdr-style envelope, one line. */
export function formatResult(result: unknown): string {
  return terminalJson({ result: result ?? null });
}

/** One JSON value on one line (Conductor `--json`, `watch`). */
export function formatJsonLine(value: unknown): string {
  return terminalJson(value ?? null);
}

/** DEL and the C1 controls, which JSON.stringify leaves raw but a terminal may act on (C1 CSI, OSC). */
const JSON_UNESCAPED_CONTROLS = /[\x7f-\x9f]/g;

/**
 * JSON for a terminal: JSON.stringify escapes C0 controls but prints DEL and C1 raw; those
 * become `\u009b` too — the same JSON value, nothing a terminal acts on (SPEC §8).
 */
export function terminalJson(value: unknown): string {
  return JSON.stringify(value).replace(JSON_UNESCAPED_CONTROLS, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Human-readable output: control characters made visible (SPEC §8), line breaks kept. */
export function humanText(text: string): string {
  return visibleControls(text, { keepNewlines: true });
}

/** Text with exactly one trailing newline unless it is empty. */
export function asTextBlock(text: string): string {
  if (text === '') return '';
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * Table cells: null/undefined/empty render as `-` so columns never collapse; control
 * characters (a newline or ESC in a directory name, a title, an agent message) are made
 * visible, so a cell stays on its row and cannot act on the terminal (SPEC §8).
 */
export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  return visibleControls(String(value));
}

/** A left-aligned, space-padded table with a header row; the last column is not padded. */
export function formatTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((header, i) => Math.max(displayWidth(header), ...rows.map((row) => displayWidth(row[i] ?? ''))));
  const line = (cells: readonly string[]): string =>
    cells
      .map((text, i) => (i === cells.length - 1 ? text : text + ' '.repeat(widths[i] - displayWidth(text))))
      .join(TABLE_GAP)
      .trimEnd();
  return [line(headers), ...rows.map(line)].join('\n') + '\n';
}

/** Two spaces between columns, as `ps` and `docker ps` print them. */
const TABLE_GAP = '  ';

/**
 * Columns a string takes in a terminal: wide East Asian/emoji count 2, combining marks 0 —
 * the same table the TUI draws with (screen/char-width.ts, dependency-free, so the CLI bundle
 * stays light).
 */
export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) width += codePointWidth(char.codePointAt(0)!);
  return width;
}
