/**
 * Reading a request's params with one clear `invalid_params` error per mistake, naming the
 * param and what was expected, so a wrong type never reaches the core.
 */
import { CorralError } from '../contract/protocol.js';

export type Params = Record<string, unknown>;

/** Normalises a request's params: absent → {}, positional arrays are refused. */
export function asParams(raw: unknown): Params {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new CorralError('invalid_params', 'params must be an object with named fields');
  }
  return raw as Params;
}

function bad(name: string, expected: string, value: unknown): never {
  const shown = JSON.stringify(value);
  throw new CorralError('invalid_params', `param "${name}" must be ${expected}, got ${shown === undefined ? 'nothing' : shown.slice(0, 80)}`, {
    param: name,
  });
}

/** A required non-empty string. */
export function str(p: Params, name: string): string {
  const value = p[name];
  if (typeof value !== 'string' || value === '') bad(name, 'a non-empty string', value);
  return value;
}

/** An optional string (empty allowed). */
export function optStr(p: Params, name: string): string | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') bad(name, 'a string', value);
  return value;
}

/** A required string that may be empty (text to send, names to clear). */
export function text(p: Params, name: string): string {
  const value = p[name];
  if (typeof value !== 'string') bad(name, 'a string', value);
  return value;
}

export function optBool(p: Params, name: string): boolean | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') bad(name, 'true or false', value);
  return value;
}

/** An optional integer within [min, max]. */
export function optInt(p: Params, name: string, min: number, max: number): number | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    bad(name, `an integer from ${min} to ${max}`, value);
  }
  return value;
}

/** An optional number within [min, max] (ratios). */
export function optNumber(p: Params, name: string, min: number, max: number): number | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    bad(name, `a number from ${min} to ${max}`, value);
  }
  return value;
}

/** An optional value from a fixed set. */
export function optOneOf<T extends string>(p: Params, name: string, allowed: readonly T[]): T | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !allowed.includes(value as T)) bad(name, `one of ${allowed.join(', ')}`, value);
  return value as T;
}

/** A required value from a fixed set. */
export function oneOf<T extends string>(p: Params, name: string, allowed: readonly T[]): T {
  const value = optOneOf(p, name, allowed);
  if (value === undefined) bad(name, `one of ${allowed.join(', ')}`, undefined);
  return value;
}

/** An optional array of strings. */
export function optStrings(p: Params, name: string): string[] | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) bad(name, 'an array of strings', value);
  return value as string[];
}

/** The first of several accepted spellings that is present (e.g. `workspace_id` or `workspace`). */
export function optStrAny(p: Params, names: string[]): string | undefined {
  for (const name of names) {
    const value = optStr(p, name);
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}
