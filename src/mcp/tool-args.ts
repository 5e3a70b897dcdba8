/**
 * The JSON Schemas of `corral mcp`'s tools and the check of a call's arguments against them.
 * The schemas are what `tools/list` shows a model; the same objects decide whether a call is
 * taken, so the two cannot drift apart. Only the few keywords the tools use are supported
 * (checked by a unit test that walks every schema); anything else is a programming error.
 */
import { CorralError } from '../contract/protocol.js';

/** The JSON Schema subset the tools are written in. */
export type ArgSchema =
  | { type: 'string'; description?: string; enum?: readonly string[]; minLength?: number; maxLength?: number; pattern?: string }
  | { type: 'integer'; description?: string; minimum: number; maximum: number }
  | { type: 'boolean'; description?: string }
  | { type: 'array'; description?: string; items: ArgSchema; minItems?: number; maxItems?: number }
  | { anyOf: readonly ArgSchema[]; description?: string };

/** A tool's input: an object of named arguments, nothing else accepted. */
export interface ObjectSchema {
  type: 'object';
  properties: Readonly<Record<string, ArgSchema>>;
  required?: readonly string[];
  additionalProperties: false;
}

/** Where a value failed its schema, in words a model can act on. */
function describeFailure(schema: ArgSchema, value: unknown, path: string): string | null {
  if ('anyOf' in schema) {
    return schema.anyOf.some((option) => describeFailure(option, value, path) === null) ? null : `${path} must be ${schema.anyOf.map(expected).join(' or ')}`;
  }
  switch (schema.type) {
    case 'string': {
      if (typeof value !== 'string') return `${path} must be a string`;
      if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(', ')}`;
      if (schema.minLength !== undefined && value.length < schema.minLength) return `${path} must not be empty`;
      if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${path} is longer than ${schema.maxLength} characters`;
      if (schema.pattern !== undefined && !new RegExp(schema.pattern).test(value)) return `${path} must match ${schema.pattern}`;
      return null;
    }
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return `${path} must be a whole number`;
      if (value < schema.minimum || value > schema.maximum) return `${path} must be ${schema.minimum}..${schema.maximum}`;
      return null;
    case 'boolean':
      return typeof value === 'boolean' ? null : `${path} must be true or false`;
    case 'array': {
      if (!Array.isArray(value)) return `${path} must be an array`;
      if (schema.minItems !== undefined && value.length < schema.minItems) return `${path} needs at least ${schema.minItems} item(s)`;
      if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${path} holds more than ${schema.maxItems} items`;
      for (const [i, item] of value.entries()) {
        const failure = describeFailure(schema.items, item, `${path}[${i}]`);
        if (failure) return failure;
      }
      return null;
    }
  }
}

/** A short name of what a schema takes, for `anyOf` messages. */
function expected(schema: ArgSchema): string {
  if ('anyOf' in schema) return schema.anyOf.map(expected).join(' or ');
  if (schema.type === 'string' && schema.enum) return `one of ${schema.enum.join('|')}`;
  if (schema.type === 'array') return `an array of ${expected(schema.items)}`;
  return `a ${schema.type}`;
}

/**
 * The arguments if they fit `schema`; otherwise `invalid_params` naming the first argument
 * that does not and what it must be.
 */
export function checkArgs(tool: string, schema: ObjectSchema, args: unknown): Record<string, unknown> {
  const given = args ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new CorralError('invalid_params', `${tool}: arguments must be an object`);
  const record = given as Record<string, unknown>;
  for (const name of Object.keys(record)) {
    if (!Object.hasOwn(schema.properties, name)) {
      throw new CorralError('invalid_params', `${tool}: unknown argument "${name}"; it takes ${Object.keys(schema.properties).join(', ')}`);
    }
  }
  for (const name of schema.required ?? []) {
    if (record[name] === undefined) throw new CorralError('invalid_params', `${tool}: missing argument "${name}"`);
  }
  for (const [name, value] of Object.entries(record)) {
    if (value === undefined) continue;
    const failure = describeFailure(schema.properties[name]!, value, name);
    if (failure) throw new CorralError('invalid_params', `${tool}: ${failure}`);
  }
  return record;
}
