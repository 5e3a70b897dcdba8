/**
 * A pane that prints garbage cannot flood the server's log: 8 MB of /dev/urandom made xterm
 * log a parse error per bad sequence (26 MB of log); now each pane reports at most once a
 * minute, with a count.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer, type RawClient } from './harness.js';

const FLOOD_BYTES = 8_000_000;

describe('8 MB of /dev/urandom in a pane', () => {
  let server: TestServer;
  let client: RawClient;
  beforeAll(async () => {
    server = await new TestServer().start();
    client = await server.connect();
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('adds one line to the server log, not one per parse error', async () => {
    const logBefore = server.stderr.length;
    // CAN ends whatever sequence the noise left open, RIS resets the screen, then a marker.
    const up = await client.call('workspace.up', {
      panes: [{ cwd: server.home, command: `head -c ${FLOOD_BYTES} /dev/urandom; printf '\\030\\033c'; echo FLOOD-$((40+2))` }],
    });
    const pane = up.panes[0].pane_id;
    // The reply may take as long as the wait (the client's own default of 10 s is not the test's).
    await client.call('pane.wait_for_output', { pane_id: pane, match: { type: 'regex', value: '^FLOOD-42' }, timeout_ms: 90_000 }, 95_000).catch(async (error) => {
      throw new Error(`${error.message}; screen: ${JSON.stringify((await client.call('pane.read', { pane_id: pane, source: 'visible' })).read.text)}`);
    });
    const log = server.stderr.slice(logBefore);
    const xtermLines = log.split('\n').filter((line) => line.includes('xterm'));
    expect(xtermLines.length).toBe(1);
    expect(xtermLines[0]).toMatch(/^corral: surface \d+: xterm error: Parsing error/);
    expect(log.length).toBeLessThan(2048);
    expect(server.alive).toBe(true);
  }, 120_000);
});
