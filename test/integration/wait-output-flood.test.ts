/**
 * `pane.wait_for_output` during a flood: a marker line that scrolls out of the read window —
 * and out of the scrollback — before the wait looks again is still found, through the real
 * server, a real bash pane and the real socket. The wait looks at the pane's recent rows at
 * most every 100 ms while output flows; 30,000 lines scroll past in far less.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer, type RawClient } from './harness.js';

describe('wait-output while the marker scrolls away in a flood', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    // A small scrollback, so the marker is gone from the store too, not only from the window.
    server = await new TestServer({ scripting: true, config: 'scrollback_lines = 2000\n' }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
  });
  afterAll(async () => {
    await server.stop();
  });

  /**
   * Starts a wait and, once the server has set it up (it answers a ping sent after the wait on
   * the same connection, and handles a connection's requests in order), runs `command`.
   */
  async function waitThenRun(client: RawClient, match: { type: string; value: string }, command: string): Promise<any> {
    client.write(
      JSON.stringify({ jsonrpc: '2.0', id: 'wait', method: 'pane.wait_for_output', params: { pane_id: pane, match, timeout_ms: 30_000 } }) +
        '\n' +
        JSON.stringify({ jsonrpc: '2.0', id: 'ping', method: 'system.ping' }) +
        '\n',
    );
    expect((await client.next((m) => m.id === 'ping')).result.pong).toBe(true);
    await server.cli(['pane', 'run', pane, command]);
    return client.next((m) => m.id === 'wait', 40_000);
  }

  /** The flood is over once its last line is on screen. */
  async function floodDone(tag: string): Promise<void> {
    await server.cli(['pane', 'wait-output', pane, '--match', `END-${tag}`, '--timeout', '30000']);
  }

  it.each([
    ['a plain substring', (tag: string) => `printf '%s-%s\\n' MARK ${tag}`, (tag: string) => ({ type: 'substring', value: `MARK-${tag}` })],
    // Colour changes inside the marker: the line's text holds it, the bytes do not.
    ['a substring written in colours', (tag: string) => `printf '\\033[31mMA\\033[1mRK\\033[0m-%s\\n' ${tag}`, (tag: string) => ({ type: 'substring', value: `MARK-${tag}` })],
    ['a whole-line regex', (tag: string) => `printf '\\033[32m%s\\033[0m-%s   \\n' MARK ${tag}`, (tag: string) => ({ type: 'regex', value: `^MARK-${tag}$` })],
  ])('finds %s that scrolled 30,000 lines away', async (_what, marker, match) => {
    const tag = Math.random().toString(36).slice(2, 10);
    const client = await server.connect();
    const reply = await waitThenRun(client, match(tag), `seq 1 3000; ${marker(tag)}; seq 1 30000; printf '%s-%s\\n' END ${tag}`);
    expect(reply.error).toBeUndefined();
    expect(reply.result.matched_line).toBe(`MARK-${tag}`);
    client.close();
    await floodDone(tag);
    // The marker is gone from everything a later look could read: only a look at the batch
    // that printed it could have found it.
    const all = (await server.cli(['pane', 'read', pane, '--source', 'recent', '--lines', '10000'])).stdout;
    expect(all).toContain(`END-${tag}`);
    expect(all).not.toContain(`MARK-${tag}`);
  });

  it('does not count a line that was there before, outside a small window, when output moves the cursor', async () => {
    const tag = Math.random().toString(36).slice(2, 10);
    await server.cli(['pane', 'run', pane, `clear; printf '%s-%s\\n' OLD ${tag}; seq 1 10; printf '%s-%s\\n' SHOWN ${tag}`]);
    await server.cli(['pane', 'wait-output', pane, '--match', `SHOWN-${tag}`, '--timeout', '10000']);
    const client = await server.connect();
    // OLD-tag is on screen, above the last 3 rows; the output below moves the cursor (the
    // filter cannot follow it), so the rows after it are read, and the window — not the screen.
    const match = { type: 'substring', value: `OLD-${tag}` };
    client.write(JSON.stringify({ jsonrpc: '2.0', id: 'wait', method: 'pane.wait_for_output', params: { pane_id: pane, match, lines: 3, timeout_ms: 2000 } }) + '\n');
    await server.cli(['pane', 'run', pane, `printf 'ab\\033[1Dc\\n'; printf '%s-%s\\n' END ${tag}`]);
    expect((await client.next((m) => m.id === 'wait', 10_000)).error?.data?.code).toBe('timeout');
    client.close();
  });
});
