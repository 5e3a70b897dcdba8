/**
 * Numeric flags, checked while the command line is parsed (SPEC §3, §6): `--lines abc`,
 * `--timeout 1e20`, `--timeout Infinity`, `--timeout -1` are usage errors (exit 2, the flag
 * named) before anything is sent, never a silent default or an instant timeout. yargs'
 * own `type: 'number'` turns `abc` into NaN (which JSON then sends as null, "not given"),
 * so these options take the text as typed and parse it strictly here.
 */
import { BOUNDS, type Range } from '../contract/bounds.js';

/** Decimal digits, optionally a fraction; no signs, exponents, hex, Infinity or blanks. */
const DECIMAL = /^\d+(\.\d+)?$/;

/** Parses a flag's value within `range`; throws a message naming the flag otherwise. */
export function parseNumberFlag(flag: string, value: unknown, range: Range, unit = ''): number {
  const what = `${range.integer ? 'a whole number' : 'a number'} from ${range.min} to ${range.max}${unit ? ` ${unit}` : ''}`;
  if (Array.isArray(value)) throw new Error(`--${flag} was given more than once; give it once, as ${what}`);
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const number = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!Number.isFinite(number) || (range.integer && !Number.isInteger(number)) || number < range.min || number > range.max) {
    throw new Error(`--${flag} must be ${what}, got ${JSON.stringify(typeof value === 'string' ? value : String(value))}`);
  }
  return number;
}

/**
 * A yargs option for a number in `range`. No `type`, so yargs hands over the text as typed
 * (digits may arrive as a number already); `requiresArg` makes a bare `--lines` an error.
 */
export function numberOption(flag: string, range: Range, describe: string, unit = '') {
  return {
    requiresArg: true,
    describe,
    coerce: (value: unknown) => parseNumberFlag(flag, value, range, unit),
  } as const;
}

/** `--lines` of the read verbs. */
export function linesOption(describe: string) {
  return numberOption('lines', BOUNDS.readLines, describe);
}

/** `--timeout` in milliseconds (herdr-style verbs). */
export function timeoutMsOption(describe: string) {
  return numberOption('timeout', BOUNDS.timeoutMs, describe, 'milliseconds');
}

/** `--timeout` in seconds (`wait`, SPEC §6): fractions allowed, the same longest delay as the ms form. */
export const TIMEOUT_SECONDS: Range = { min: 0, max: Math.floor(BOUNDS.timeoutMs.max / 1000), integer: false };
