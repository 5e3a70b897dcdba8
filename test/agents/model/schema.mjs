// An example value for a JSON schema. Over Chat Completions every agent declares its tools with
// its own names and argument shapes (Qwen's run_shell_command{command}, pi's bash{command},
// Kilo's bash{command, description, timeout}, question tools with nested option lists …), so
// the scripted model builds each call from the schema the agent sent instead of knowing them all.
//
// hints(key, schema) may give a property's value; otherwise required properties get a filler
// of their type and optional ones are left out (agents reject unknown or malformed extras more
// often than missing optional ones).

const firstType = (schema) => (Array.isArray(schema?.type) ? schema.type.find((t) => t !== 'null') : schema?.type);

export function sample(schema, key, hints, root = schema, depth = 0) {
  if (!schema || typeof schema !== 'object' || depth > 8) return undefined;
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref.replace(/^#\//, '').split('/').reduce((o, k) => (o ? o[k] : undefined), root);
    return sample(target, key, hints, root, depth + 1);
  }
  const hinted = hints(key, schema);
  if (hinted !== undefined) return hinted;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  for (const alt of ['anyOf', 'oneOf']) {
    if (Array.isArray(schema[alt])) {
      const pick = schema[alt].find((s) => s && s.type !== 'null') || schema[alt][0];
      return sample(pick, key, hints, root, depth + 1);
    }
  }
  if (Array.isArray(schema.allOf) && schema.allOf.length) return sample(Object.assign({}, ...schema.allOf), key, hints, root, depth + 1);
  const type = firstType(schema) || (schema.properties ? 'object' : schema.items ? 'array' : 'string');
  if (schema.default !== undefined && type !== 'object' && type !== 'array') return schema.default;
  switch (type) {
    case 'object': {
      const out = {};
      const required = new Set(schema.required || []);
      for (const [k, s] of Object.entries(schema.properties || {})) {
        const value = hints(k, s);
        if (value !== undefined) out[k] = value;
        else if (required.has(k)) out[k] = sample(s, k, hints, root, depth + 1);
      }
      // A map with no declared keys (a form's field list): one entry.
      if (!Object.keys(schema.properties || {}).length && schema.additionalProperties && typeof schema.additionalProperties === 'object') {
        out.color = sample(schema.additionalProperties, 'color', hints, root, depth + 1);
      }
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems || 1);
      return Array.from({ length: n }, (_, i) => sample(schema.items, `${key}[${i}]`, hints, root, depth + 1));
    }
    case 'boolean':
      return false;
    case 'integer':
    case 'number':
      // Never a 1 ms (or 1 s) timeout for the command the test wants to see run.
      if (/timeout/i.test(key)) return /ms$/i.test(key) ? 60000 : 60;
      return typeof schema.minimum === 'number' && schema.minimum > 0 ? schema.minimum : 1;
    default:
      return 'fake';
  }
}

export { firstType };
