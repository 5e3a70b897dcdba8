/**
 * `session.forget` while saves are in flight (issue 42: the fuzzer's seed 777 got
 * `internal_error` "ENOTEMPTY: directory not empty, rmdir" — a scrollback file written into
 * the folder being removed; fixed in 510d798 without a test). Each round: panes with fresh
 * output, `session.save` then `session.forget` pipelined on one connection and a second
 * forget on another, all at once. Every answer must be a result or a documented refusal, and
 * once the forgets answered nothing saved may come back.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TestServer, type RawClient } from './harness.js';

const ROUNDS = 3;
const PANES = 4;

/** Output in every pane, and a round trip that shows the shell ran it. */
async function printInPanes(client: RawClient, panes: string[], round: number): Promise<void> {
  for (const pane_id of panes) {
    await client.call('pane.send_text', { pane_id, text: `seq 1 2000; echo done-${round}` });
    await client.call('pane.send_keys', { pane_id, keys: ['Enter'] });
  }
  for (const pane_id of panes) await client.call('pane.wait_for_output', { pane_id, match: { value: `done-${round}` }, timeout_ms: 10_000 });
}

describe('session.forget during saves', () => {
  const server = new TestServer({ scripting: true });
  afterAll(() => server.stop());

  it(`answers without internal_error and leaves nothing saved, ${ROUNDS} rounds`, async () => {
    const state = join(server.stateDir, 'default.json');
    const scrollback = join(server.stateDir, 'default.scrollback');
    for (let round = 0; round < ROUNDS; round++) {
      await server.start();
      const a = await server.connect();
      const b = await server.connect();
      const panes: string[] = [];
      for (let i = 0; i < PANES; i++) panes.push((await a.call('workspace.create', { focus: false })).root_pane.pane_id);
      await printInPanes(a, panes, round);
      // The state and every pane's lines are being written when the forgets arrive.
      const save = a.request('session.save', {});
      const forgetA = a.request('session.forget', {});
      const forgetB = b.request('session.forget', {});
      const answers = await Promise.all([save, forgetA, forgetB]);
      for (const answer of answers) expect(answer.error?.data?.code ?? 'ok').not.toBe('internal_error');
      expect([answers[1].result?.forgotten, answers[2].result?.forgotten]).toContain(true);
      // A save queued behind the forget must not write the session back.
      await a.call('session.info', {});
      await new Promise((r) => setTimeout(r, 300));
      expect({ round, state: existsSync(state), scrollback: existsSync(scrollback) }).toEqual({ round, state: false, scrollback: false });
      a.close();
      b.close();
      await server.halt('SIGKILL');
    }
  }, 60_000);
});
