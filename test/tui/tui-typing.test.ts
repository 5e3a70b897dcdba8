/**
 * Typing through the real client and server: a fast burst — typing, arrow keys, alt+keys,
 * UTF-8, cut into many small writes to the outer terminal without waiting — reaches the pane's
 * program whole and in order. Plain input takes a short way through the server's controller
 * (test/unit/tui-controller-typing.test.ts has the cuts inside escape sequences); this is
 * the same promise end to end, as a user types.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TuiSession } from './tui-harness.js';

const SINK = resolve(import.meta.dirname, '../fixtures/apps/byte-sink.mjs');

describe('typing', () => {
  let tui: TuiSession | null = null;
  afterEach(async () => {
    await tui?.close();
    tui = null;
  });

  it('delivers every byte of a fast burst to the pane, in order', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`node ${SINK}\r`);
    await tui.waitForText('SINK-READY');
    const pieces = ['hello ', 'world', '\r', '\x1b[A', '\x1bOB', '\x1bx', 'é€', '\x7f', 'git status\r', 'q'];
    let burst = '';
    for (let i = 0; i < 600; i++) burst += pieces[(i * 7 + (i >> 3)) % pieces.length];
    // Cut into writes of 1–9 characters, all at once: the client's reads cut them anywhere.
    for (let at = 0, n = 1; at < burst.length; at += n, n = (n % 9) + 1) tui.type(burst.slice(at, at + n));
    tui.type('\x04');
    const bytes = Buffer.from(burst, 'utf8');
    const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
    await tui.waitForText(/GOT \d+ [0-9a-f]{16}/);
    expect(tui.text()).toContain(`GOT ${bytes.length} ${digest}`);
  });
});
