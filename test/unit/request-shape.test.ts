/** What a parsed JSON-RPC message must look like before dispatch (src/rpc/request-shape.ts). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { requestShapeProblem } from '../../src/rpc/request-shape.js';

describe('requestShapeProblem', () => {
  it('accepts requests and notifications with string, number or null ids', () => {
    for (const message of [
      { jsonrpc: '2.0', id: 1, method: 'system.ping' },
      { jsonrpc: '2.0', id: 'a', method: 'system.ping' },
      { jsonrpc: '2.0', id: null, method: 'system.ping' },
      { jsonrpc: '2.0', method: 'ai.stop' },
    ]) {
      expect(requestShapeProblem(message)).toBeNull();
    }
  });

  it('refuses what is not an object, naming what it got', () => {
    expect(requestShapeProblem(null)).toBe('invalid request: expected a JSON object, got null');
    expect(requestShapeProblem([1])).toBe('invalid request: expected a JSON object, got an array');
    expect(requestShapeProblem(5)).toBe('invalid request: expected a JSON object, got a number');
    expect(requestShapeProblem('x')).toBe('invalid request: expected a JSON object, got a string');
  });

  it('refuses every id that is not a string, a number or null', () => {
    fc.assert(
      fc.property(fc.oneof(fc.boolean(), fc.array(fc.anything()), fc.dictionary(fc.string(), fc.anything())), (id) => {
        expect(requestShapeProblem({ jsonrpc: '2.0', id, method: 'system.ping' })).toMatch(/^invalid request: "id" must be a string, a number or null, got an? (boolean|array|object)$/);
      }),
    );
  });
});
