/**
 * Usage and budgets (SPEC §18) without real agents: a stand-in Claude Code
 * (test/fixtures/programs/usage-agent.mjs, installed as `claude` on the PATH) that keeps a
 * record the way Claude does, read through claude.toml's [usage]. Proves the counts (each
 * call once, though the record repeats it), `agent get`/`ps`/`agent usage`, the
 * `agent.usage` event's pace, a turn budget that interrupts a turn before its tool runs, a
 * spent agent refused before anything is typed, and the gate on raising or clearing.
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer } from './harness.js';

const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'usage-agent.mjs');

/** A server whose panes find the stand-in as `claude`. */
function standInServer(scripting: boolean): TestServer {
  const server = new TestServer({ scripting });
  const bin = join(server.dir, 'bin');
  mkdirSync(bin);
  copyFileSync(PROGRAM, join(bin, 'claude'));
  // Its input line is a module beside it (test/fixtures/programs/input-line.mjs).
  copyFileSync(join(dirname(PROGRAM), 'input-line.mjs'), join(bin, 'input-line.mjs'));
  chmodSync(join(bin, 'claude'), 0o755);
  server.env.PATH = `${bin}:${process.env.PATH}`;
  server.env.USAGE_CALL_LOG = join(server.dir, 'calls.log');
  server.env.USAGE_TOOL_MARKER = join(server.dir, 'tool-ran');
  return server;
}

function calls(server: TestServer): number {
  try {
    return readFileSync(join(server.dir, 'calls.log'), 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe('usage and budgets on a stand-in agent', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await standInServer(true).start();
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    await server.json(['agent', 'start', 'spender', '--kind', 'claude', '--pane', pane]);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('counts each call once from its record: agent get, ps --json, agent usage, and the agent.usage event at most once a second', async () => {
    const before = (await server.json(['agent', 'get', 'spender'])).result.agent;
    expect(before.usage_source).toBe('record');
    const client = await server.connect();
    await client.call('events.subscribe', { types: ['agent.usage'] });
    const done = (await server.json(['agent', 'prompt', 'spender', 'calls=6 in=100 out=50 ms=150', '--wait', '--timeout', '30000'])).result.agent;
    expect(done.agent_status).toBe('done');
    await expect.poll(async () => (await server.json(['agent', 'get', 'spender'])).result.agent.usage?.calls, { timeout: 10_000 }).toBe(6);
    const agent = (await server.json(['agent', 'get', 'spender'])).result.agent;
    expect(agent.usage).toMatchObject({ input: 600, output: 300, cache_read: 0, cache_write: 0, total: 900, calls: 6, context_tokens: 100, context_window: 200000 });
    expect(agent.turn_usage).toMatchObject({ total: 900, calls: 6 });
    const row = (await server.json(['ps', '--json'])).agents.find((r: any) => r.name === 'spender');
    expect(row.usage).toMatchObject({ total: 900, calls: 6 });
    const table = await server.cli(['ps']);
    expect(table.stdout).toMatch(/USAGE[\s\S]*900 · ctx 0%/);
    const report = (await server.json(['agent', 'usage', 'spender', '--json'])).result;
    expect(report.total).toMatchObject({ total: 900, calls: 6 });
    expect(report.turns).toEqual([expect.objectContaining({ turn: 1, prompt: 'calls=6 in=100 out=50 ms=150', input: 600, output: 300, total: 900, calls: 6, started_at: expect.any(Number) })]);
    const human = await server.cli(['agent', 'usage', 'spender']);
    expect(human.stdout).toMatch(/TURN\s+PROMPT[\s\S]*total\s+6\s+600\s+300/);
    // The event follows the record: the last one carries the final count; never two within a second.
    const events: { ts: number; usage: { total: number } }[] = [];
    for (;;) {
      const message = await client.next((m) => m.method === 'events.event', 2500).catch(() => null);
      if (message === null) break;
      events.push(message.params);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(events.at(-1)!.usage.total).toBe(900);
    for (let i = 1; i < events.length; i++) expect(events[i]!.ts - events[i - 1]!.ts).toBeGreaterThanOrEqual(990);
    client.close();
  });

  it('a turn budget under one call interrupts a turn whose first call asks for a tool: the tool never runs, the wait fails budget_exceeded', async () => {
    const marker = join(server.dir, 'tool-ran');
    const failed = await server.cli(['agent', 'prompt', 'spender', 'calls=3 in=100 out=50 tool', '--max-tokens', '100', '--wait', '--timeout', '30000']);
    expect(failed.code).toBe(1);
    const error = JSON.parse(failed.stderr).error;
    expect(error.code).toBe('budget_exceeded');
    expect(error.data).toMatchObject({ limit: 100, used: 150, scope: 'turn' });
    await new Promise((r) => setTimeout(r, 2500));
    expect(existsSync(marker)).toBe(false);
    const agent = (await server.json(['agent', 'get', 'spender'])).result.agent;
    expect(['idle', 'done']).toContain(agent.agent_status);
    expect(agent.budget_exceeded).toMatchObject({ limit: 100, used: 150, scope: 'turn' });
    expect(agent.usage.total).toBe(1050);
  });

  it('a spent total budget refuses the next prompt before anything is typed; no call reaches the model', async () => {
    const set = (await server.json(['agent', 'budget', 'spender', '--tokens', '1000'])).result.agent;
    expect(set.budget_tokens).toBe(1000);
    const before = calls(server);
    const refused = await server.cli(['agent', 'prompt', 'spender', 'calls=1', '--wait', '--timeout', '10000']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'budget_exceeded', data: { limit: 1000, used: 1050 } });
    await new Promise((r) => setTimeout(r, 800));
    expect(calls(server)).toBe(before);
    expect((await server.cli(['agent', 'read', 'spender', '--source', 'visible'])).stdout).not.toContain('calls=1');
    // Cleared (the gate is open here), it takes prompts again: the prompt is typed and its call reaches the model.
    expect((await server.json(['agent', 'budget', 'spender', '--clear'])).result.agent.budget_tokens).toBeNull();
    const again = (await server.json(['agent', 'prompt', 'spender', 'calls=1', '--wait', '--timeout', '20000'])).result.agent;
    expect(again.budget_exceeded).toBeNull();
    await expect.poll(() => calls(server), { timeout: 10_000 }).toBe(before + 1);
  });
});

describe('budgets and the gate closed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await standInServer(false).start();
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    await server.json(['agent', 'start', 'capped', '--kind', 'claude', '--pane', pane]);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('setting and lowering are allowed; raising and clearing are refused scripting_disabled', async () => {
    expect((await server.json(['agent', 'budget', 'capped', '--tokens', '5000'])).result.agent.budget_tokens).toBe(5000);
    expect((await server.json(['agent', 'budget', 'capped', '--tokens', '4000'])).result.agent.budget_tokens).toBe(4000);
    for (const args of [['--tokens', '6000'], ['--clear']]) {
      const refused = await server.cli(['agent', 'budget', 'capped', ...args]);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr).error.code).toBe('scripting_disabled');
    }
    expect((await server.json(['agent', 'get', 'capped'])).result.agent.budget_tokens).toBe(4000);
    const bad = await server.cli(['agent', 'budget', 'capped']);
    expect(bad.code).toBe(2);
  });
});

describe('a shared budget is forgotten with its last agent', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await standInServer(false).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('while an agent is under it, raising it needs the gate; once the last is gone, the name is free: a new agent makes it afresh', async () => {
    const client = await server.connect();
    const start = async (name: string): Promise<string> => {
      const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
      await server.json(['agent', 'start', name, '--kind', 'claude', '--pane', pane]);
      return pane;
    };
    const join = (target: string, tokens: number) => client.call('agent.budget', { target, tokens, shared: 'crew' });
    const raiseRefused = async (target: string) => {
      const error = await join(target, 5000).then(() => null, (e: any) => e.rpc);
      expect(error?.data?.code).toBe('scripting_disabled');
    };
    const a = await start('crew-a');
    const b = await start('crew-b');
    await join('crew-a', 1000);
    await join('crew-b', 1000);
    await raiseRefused('crew-a');
    // One member gone: the budget stays for the other.
    await server.json(['pane', 'close', a]);
    await expect.poll(async () => (await server.cli(['agent', 'get', 'crew-a'])).code, { timeout: 10_000 }).not.toBe(0);
    await raiseRefused('crew-b');
    // The last member gone: the server forgets the budget, so the name makes a new one.
    await server.json(['pane', 'close', b]);
    await expect.poll(async () => (await server.cli(['agent', 'get', 'crew-b'])).code, { timeout: 10_000 }).not.toBe(0);
    await start('crew-c');
    const joined = await join('crew-c', 5000);
    expect(joined.agent.name).toBe('crew-c');
    // And that new budget is guarded like the first.
    expect((await join('crew-c', 6000).then(() => null, (e: any) => e.rpc))?.data?.code).toBe('scripting_disabled');
    client.close();
  });
});

describe('a flow budget over two agents', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await standInServer(true).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('stops a two-agent loop once their spending together crosses budget_tokens: the step fails budget_exceeded, the flow fails', async () => {
    const flow = join(server.home, 'loop.toml');
    const turn = (id: string, target: string, needs: string) =>
      [`[[step]]`, `id = "${id}"`, `needs = ["${needs}", "${target}"]`, `send = { target = "${target}", text = "calls=3 in=100 out=50 ms=500 ${id}", submit = true }`, 'ready = { idle = true }'].join('\n');
    writeFileSync(
      flow,
      [
        'name = "review-loop"',
        'budget_tokens = 1000',
        '[defaults]',
        'timeout_secs = 40',
        '[[step]]',
        'id = "author"',
        'pane = { name = "author", cwd = ".", agent = "claude" }',
        '[[step]]',
        'id = "reviewer"',
        'pane = { name = "reviewer", cwd = ".", agent = "claude" }',
        turn('write1', 'author', 'reviewer'),
        turn('review1', 'reviewer', 'write1'),
        turn('write2', 'author', 'review1'),
        turn('review2', 'reviewer', 'write2'),
      ].join('\n'),
    );
    const before = calls(server);
    const run = await server.cli(['flow', 'run', flow, '--json']);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    if (run.stdout === "") throw new Error(run.stderr);
    const report = JSON.parse(run.stdout);
    expect(report.status).toBe('failed');
    const byId = Object.fromEntries(report.steps.map((step: any) => [step.id, step]));
    expect(byId.write1.status).toBe('ready');
    expect(byId.review1.status).toBe('ready');
    // 900 spent by then: write2's first call (1050) crosses 1000.
    expect(byId.write2.status).toBe('failed');
    expect(JSON.stringify(byId.write2.error)).toMatch(/budget_exceeded/);
    expect(byId.review2.status).not.toBe('ready');
    // write2 was interrupted after the call that crossed: 3 + 3 + 1 calls, never the loop's 12
    // (one more only if the interrupt took longer than the 500 ms to its next call, under load).
    await new Promise((r) => setTimeout(r, 1500));
    expect(calls(server) - before).toBeGreaterThanOrEqual(7);
    expect(calls(server) - before).toBeLessThanOrEqual(8);
  });
});

describe('budget keys in flow and up files', () => {
  it('are checked before anything runs', async () => {
    const server = standInServer(false);
    const bad = join(server.dir, 'bad.toml');
    writeFileSync(bad, ['budget_tokens = 0', '[defaults]', 'timeout_secs = 5', '[[step]]', 'id = "a"', 'max_tokens = 10', 'send = { target = "x", text = "y" }'].join('\n'));
    const checked = await server.cli(['flow', 'run', bad, '--dry-run']);
    // A bad file is a runtime error naming file:line:key (exit 1), as for `up`.
    expect(checked.code, checked.stderr).toBe(1);
    expect(checked.stderr).toMatch(/budget_tokens/);
    expect(checked.stderr).toMatch(/max_tokens.*submit/);
    const up = join(server.dir, 'up.toml');
    writeFileSync(up, ['budget_tokens = 5000', '[[panes]]', `cwd = "${server.home}"`, 'agent = "claude"', 'max_tokens = 300'].join('\n'));
    const plan = await server.cli(['up', up, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/budget 5000 tokens[\s\S]*turn budget 300 tokens/);
  });
});

describe('budget keys of an up file, applied', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await standInServer(true).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("corral up gives its agents the file's budget_tokens (shared) and a pane's max_tokens (its next turn): crossing either is budget_exceeded in agent get and in the waiting prompt", async () => {
    const up = join(server.home, 'up.toml');
    writeFileSync(
      up,
      ['name = "budgeted"', 'budget_tokens = 700', '[[panes]]', 'name = "first"', `cwd = "${server.home}"`, 'agent = "claude"', 'max_tokens = 200', '[[panes]]', 'name = "second"', `cwd = "${server.home}"`, 'agent = "claude"'].join('\n'),
    );
    const made = await server.cli(['up', up, '--json']);
    expect(made.code, made.stderr).toBe(0);
    // The first pane's next turn is bounded by its max_tokens: its second call (300) crosses 200.
    const turn = await server.cli(['agent', 'prompt', 'first', 'calls=3 in=100 out=50 ms=300', '--wait', '--timeout', '30000']);
    expect(turn.code, turn.stdout + turn.stderr).toBe(1);
    expect(JSON.parse(turn.stderr).error).toMatchObject({ code: 'budget_exceeded', data: { limit: 200, used: 300, scope: 'turn' } });
    await expect.poll(async () => (await server.json(['agent', 'get', 'first'])).result.agent.agent_status, { timeout: 10_000 }).toMatch(/^(idle|done)$/);
    const first = (await server.json(['agent', 'get', 'first'])).result.agent;
    expect(first.budget_exceeded).toMatchObject({ limit: 200, used: 300, scope: 'turn' });
    expect(first.usage.total).toBe(300);
    // The file's budget covers both agents, summed: 300 spent, the second's third call (750) crosses 700.
    const shared = await server.cli(['agent', 'prompt', 'second', 'calls=5 in=100 out=50 ms=300', '--wait', '--timeout', '30000']);
    expect(shared.code, shared.stdout + shared.stderr).toBe(1);
    expect(JSON.parse(shared.stderr).error).toMatchObject({ code: 'budget_exceeded', data: { limit: 700, used: 750, scope: 'flow' } });
    const second = (await server.json(['agent', 'get', 'second'])).result.agent;
    expect(second.budget_exceeded).toMatchObject({ limit: 700, used: 750, scope: 'flow' });
    expect(second.usage.total).toBeLessThan(750 + 150 * 2);
    // Every agent under it is stopped, and a spent shared budget refuses the next prompt.
    await expect.poll(async () => (await server.json(['agent', 'get', 'first'])).result.agent.budget_exceeded?.scope, { timeout: 5000 }).toBe('flow');
    const refused = await server.cli(['agent', 'prompt', 'first', 'calls=1', '--wait', '--timeout', '10000']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'budget_exceeded', data: { limit: 700, scope: 'flow' } });
  });
});
