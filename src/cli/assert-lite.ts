/**
 * Stand-in for `node:assert` inside the CLI bundle (aliased in scripts/build.mjs for yargs only).
 * yargs uses two assertions for internal invariants; loading node:assert costs ~1.5 ms of
 * every CLI start (it pulls in AssertionError, colors and the call tracker).
 */

/** Throws unless `actual === expected`. */
export function strictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (actual !== expected) throw new Error(message ?? `expected ${String(expected)}, got ${String(actual)}`);
}

/** Throws if `actual === expected`. */
export function notStrictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (actual === expected) throw new Error(message ?? `unexpected ${String(actual)}`);
}
