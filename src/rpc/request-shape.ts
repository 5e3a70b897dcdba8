/**
 * What a parsed JSON-RPC message must look like before it reaches the dispatcher (SPEC §3):
 * an object, with an `id` that is a string, a number or null when present. json-rpc-2.0 throws
 * on `null` (which became -32603, an internal error) and echoes object, array or boolean ids
 * back, so both are refused here as -32600 Invalid Request. Pure: no socket, no dispatcher.
 */

/** Why `message` cannot be a JSON-RPC request or notification; null when it can. */
export function requestShapeProblem(message: unknown): string | null {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return `invalid request: expected a JSON object, got ${describe(message)}`;
  }
  if ('id' in message) {
    const id = (message as { id: unknown }).id;
    if (id !== null && typeof id !== 'string' && typeof id !== 'number') {
      return `invalid request: "id" must be a string, a number or null, got ${describe(id)}`;
    }
  }
  return null;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
