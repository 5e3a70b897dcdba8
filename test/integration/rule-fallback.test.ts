/**
 * The rule fallback through a real server (src/agents/rule-fallback.ts): a stand-in agent run
 * as `amp` — a kind whose rule file is unverified — shows its work only as a braille spinner
 * line, an idiom amp's own guessed rules do not know. The generic rules read the turn: the
 * prompt is not "stalled", the turn ends done, and explain says which rule set decided and why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TestServer } from './harness.js';

const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'newagent.mjs');

describe('an unverified kind whose own rules miss the work', () => {
  let server: TestServer;
  let pane: string;

  beforeAll(async () => {
    const probe = new TestServer({ scripting: true });
    const bin = join(probe.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    // A copy named amp, run by its shebang: its process is `node …/bin/amp`, found as kind amp.
    copyFileSync(PROGRAM, join(bin, 'amp'));
    chmodSync(join(bin, 'amp'), 0o755);
    Object.assign(probe.env, { PATH: `${bin}:${process.env.PATH}`, NEWAGENT_IDIOM: 'spinner-line' });
    server = await probe.start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
  });
  afterAll(async () => {
    await server.stop();
  });

  it('is read by the generic rules while it works: the prompt finishes done, and explain says why', async () => {
    const started = (await server.json(['agent', 'start', 'a', '--kind', 'amp', '--pane', pane])).result.agent;
    expect(started.kind).toBe('amp');
    const working = server.json(['agent', 'wait', 'a', '--until', 'working', '--timeout', '20000']);
    const prompt = server.json(['agent', 'prompt', 'a', 'hello', '--wait', '--timeout', '30000']);
    const busy = (await working).result.agent;
    expect(busy.rules).toBe('generic');
    const explained = (await server.cli(['agent', 'explain', 'a'])).stdout;
    expect(explained).toContain("because the kind's own rules are unverified and saw nothing busy");
    expect(explained).toContain('rule "spinner-line"');
    const done = (await prompt).result.agent;
    expect(done.agent_status).toBe('done');
    expect(done.completion_seq).toBe(done.state_change_seq);
  });
});
