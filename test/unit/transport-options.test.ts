/** The transport's timings (SPEC §3) and what a test's environment may shorten. */
import { describe, expect, it } from 'vitest';
import { transportOptions } from '../../src/rpc/server.js';

describe('transportOptions', () => {
  it("is SPEC §3's 60 s idle close and 30 s for half a line, unless a test shortens them", () => {
    expect(transportOptions({})).toEqual({ idleConnectionMs: 60_000, partialLineMs: 30_000 });
    expect(transportOptions({ CORRAL_TEST_IDLE_CONNECTION_MS: '500', CORRAL_TEST_PARTIAL_LINE_MS: '1500' })).toEqual({ idleConnectionMs: 500, partialLineMs: 1500 });
    // Nonsense is the default, never zero or NaN (which would close every connection at once).
    for (const bad of ['0', '-5', 'soon', '1.5', '']) expect(transportOptions({ CORRAL_TEST_PARTIAL_LINE_MS: bad }).partialLineMs).toBe(30_000);
  });
});
