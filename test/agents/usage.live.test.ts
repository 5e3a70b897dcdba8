/**
 * What the real agents spend (SPEC §18, issue 39), read from their own records as their rule
 * files' `[usage]` say, against corral's scripted model, which reports the counts the test
 * chooses on every main call: this run's (USAGE_INPUT / USAGE_OUTPUT), or a prompt's own
 * (`TOKENS=<in>:<out>`, test/agents/model/script.mjs `usageFor`). For each lab kind:
 * - after a text turn of one model call: input + cache = the reported input, output = the
 *   reported output, exactly; one row in `agent usage`;
 * - a turn budget under one call's count, on a turn whose first call asks to run a tool: the
 *   turn is interrupted, the tool never runs, the agent ends neither working nor blocked, and
 *   `agent prompt --wait` fails `budget_exceeded`;
 * - a spent total budget refuses the next prompt, and no request reaches the model.
 * And, with two Claude Code agents, a flow budget stops a two-agent loop (`-t 'flow budget'`).
 * One kind at a time: `npx vitest run -c vitest.agents.config.ts test/agents/usage.live.test.ts -t claude`.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, type LabAgent } from './lab.js';

/** How long each kind may take to start here. */
const PER_CALL: Record<LabAgent, { startMs: number }> = {
  claude: { startMs: 90_000 },
  codex: { startMs: 90_000 },
  gemini: { startMs: 120_000 },
  qwen: { startMs: 90_000 },
  pi: { startMs: 90_000 },
  kilo: { startMs: 240_000 },
  opencode: { startMs: 240_000 },
};
/** This run's counts per main call (the model's USAGE_INPUT / USAGE_OUTPUT). */
const RUN = { input: 1234, output: 321 };
/** The tool turn's own counts (`TOKENS=57:9` in its prompt): its budget is under one call. */
const TOOL_TURN = { input: 57, output: 9 };

for (const agent of Object.keys(PER_CALL) as LabAgent[]) {
  const { startMs } = PER_CALL[agent];
  const { input, output } = RUN;
  describe(`${agent} usage`, () => {
    let lab: AgentLab;
    let pane: string;
    const name = `${agent}-spends`;
    const cli = (...args: string[]) => lab.server.cli(args);
    const json = async (...args: string[]) => {
      const result = await cli(...args);
      if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    const usage = async () => (await json('agent', 'get', name)).result.agent;

    beforeAll(async () => {
      // A tool command inside the project, so no agent first asks about an outside directory.
      // pi runs tools without asking unless the lab's permission gate is loaded: with it, every
      // kind asks first, and an interrupt then cancels the tool.
      lab = await new AgentLab(agent, { piExt: agent === 'pi' }).start({ TOOL_CMD: 'touch tool-ran.txt', USAGE_INPUT: String(RUN.input), USAGE_OUTPUT: String(RUN.output) });
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('counts a text turn exactly, from its own record', { timeout: startMs + 120_000 }, async () => {
      await json('agent', 'start', name, '--kind', agent, '--pane', pane, '--timeout', String(startMs));
      await json('agent', 'prompt', name, 'Say hello please');
      await json('agent', 'wait', name, '--until', 'done', '--until', 'idle', '--timeout', '90000');
      await expect.poll(async () => (await usage()).usage?.calls ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(1);
      const got = await usage();
      const n = got.usage.calls;
      expect(got.usage_source).toBe(agent === 'kilo' || agent === 'opencode' ? 'sqlite' : 'record');
      expect(got.usage.input + got.usage.cache_read + got.usage.cache_write).toBe(n * input);
      expect(got.usage.output).toBe(n * output);
      expect(n).toBe(1);
      const report = (await json('agent', 'usage', name, '--json')).result;
      expect(report.turns.at(-1)).toMatchObject({ calls: 1, total: input + output });
      expect(report.turns.at(-1).prompt).toContain('Say hello please');
    });

    // Codex 0.171 writes the call that asks for approval to its rollout only once the approval is
    // answered, and OpenCode 1.18 and Kilo 7.7 close a step (its step-finish, with its tokens)
    // only after its tools: while they wait, their records hold nothing to cross a budget with
    // (docs/usage.md "How far a budget can overshoot"). Their budgets are proven by the other cases.
    it.skipIf(agent === 'codex' || agent === 'opencode' || agent === 'kilo')('a turn budget under one call interrupts a turn whose first call asks for a tool: the tool never runs', { timeout: 150_000 }, async () => {
      // Until idle or done, not blocked: the agent asks before it runs the tool, and its record
      // may hold the call only a moment later; the budget's interrupt answers that question.
      const failed = await cli('agent', 'prompt', name, `RUNTOOL now please TOKENS=${TOOL_TURN.input}:${TOOL_TURN.output}`, '--max-tokens', String(TOOL_TURN.input), '--wait', '--until', 'idle', '--until', 'done', '--timeout', '90000');
      expect(failed.code, failed.stdout + failed.stderr).toBe(1);
      const error = JSON.parse(failed.stderr).error;
      expect(error.code).toBe('budget_exceeded');
      expect(error.data).toMatchObject({ limit: TOOL_TURN.input, used: TOOL_TURN.input + TOOL_TURN.output });
      // Past the time a tool would take to be allowed and run.
      await new Promise((r) => setTimeout(r, 5000));
      expect(existsSync(join(lab.project, 'tool-ran.txt'))).toBe(false);
      const after = await usage();
      expect(['idle', 'done']).toContain(after.agent_status);
      expect(after.budget_exceeded).toMatchObject({ scope: 'turn', limit: TOOL_TURN.input });
    });

    it('a spent total budget refuses the next prompt; no request reaches the model', { timeout: 60_000 }, async () => {
      const spent = (await usage()).usage.total;
      await json('agent', 'budget', name, '--tokens', String(spent));
      const before = readdirSync(lab.dump).length;
      const refused = await cli('agent', 'prompt', name, 'Say hello again', '--wait', '--timeout', '20000');
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr).error).toMatchObject({ code: 'budget_exceeded', data: { limit: spent, used: spent } });
      await new Promise((r) => setTimeout(r, 3000));
      expect(readdirSync(lab.dump).length).toBe(before);
    });
  });
}

/**
 * A flow budget over a two-agent loop, on two real Claude Code agents: each turn is one model
 * call of RUN's counts (1555 tokens), the loop has six turns, and `budget_tokens` lets two calls
 * through and is crossed by the third. The flow fails `budget_exceeded` (the crossing turn's step,
 * or the next submit, refused because the shared budget is spent), both agents end neither
 * working nor blocked, and the model received the crossing call and none after it.
 */
describe('a flow budget stops a two-agent loop (claude)', () => {
  const PER_CALL_TOKENS = RUN.input + RUN.output;
  const BUDGET = 2 * PER_CALL_TOKENS + 900; // two calls fit; the third crosses
  let lab: AgentLab;
  beforeAll(async () => {
    lab = await new AgentLab('claude').start({ USAGE_INPUT: String(RUN.input), USAGE_OUTPUT: String(RUN.output) });
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('a flow budget stops a two-agent loop: the flow fails budget_exceeded, the agents stop, the model saw one call past the budget at most', { timeout: 420_000 }, async () => {
    const flow = join(lab.project, '..', 'loop.toml');
    const turn = (id: string, target: string, needs: string) =>
      ['[[step]]', `id = "${id}"`, `needs = ["${needs}", "${target}"]`, `send = { target = "${target}", text = "Say hello please, turn ${id}", submit = true }`, 'ready = { idle = true }'].join('\n');
    const turns = ['write1', 'review1', 'write2', 'review2', 'write3', 'review3'];
    writeFileSync(
      flow,
      [
        'name = "live-loop"',
        `budget_tokens = ${BUDGET}`,
        '[defaults]',
        'timeout_secs = 150',
        '[[step]]',
        'id = "author"',
        `pane = { name = "author", cwd = "${lab.project}", agent = "claude" }`,
        '[[step]]',
        'id = "reviewer"',
        `pane = { name = "reviewer", cwd = "${lab.project}", agent = "claude" }`,
        ...turns.map((id, i) => turn(id, i % 2 === 0 ? 'author' : 'reviewer', i === 0 ? 'reviewer' : turns[i - 1]!)),
      ].join('\n'),
    );
    const run = await lab.server.cli(['flow', 'run', flow, '--json']);
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.status).toBe('failed');
    const byId = Object.fromEntries(report.steps.map((step: any) => [step.id, step]));
    expect(byId.write1.status).toBe('ready');
    expect(byId.review1.status).toBe('ready');
    const failed = report.steps.filter((step: any) => step.status === 'failed');
    expect(failed.length, JSON.stringify(report.steps)).toBe(1);
    expect(['write2', 'review2']).toContain(failed[0].id);
    expect(JSON.stringify(failed[0].error)).toMatch(/budget_exceeded/);
    for (const id of turns.slice(turns.indexOf(failed[0].id) + 1)) expect(byId[id].status).not.toBe('ready');
    // Past the time another turn would take to reach the model.
    await new Promise((r) => setTimeout(r, 8000));
    // The agents' own turns: Messages requests that declare tools (side calls declare none).
    const main = readdirSync(lab.dump)
      .filter((f) => f.endsWith('_v1_messages.json'))
      .map((f) => JSON.parse(readFileSync(join(lab.dump, f), 'utf8')))
      .filter((body) => Array.isArray(body.tools) && body.tools.length > 0);
    // Two calls fit the budget, the third crossed it: one call of overshoot, never the loop's six.
    expect(main.length).toBeGreaterThanOrEqual(Math.floor(BUDGET / PER_CALL_TOKENS) + 1);
    expect(main.length).toBeLessThanOrEqual(Math.floor(BUDGET / PER_CALL_TOKENS) + 1);
    let spent = 0;
    for (const name of ['author', 'reviewer']) {
      const agent = (await lab.server.json(['agent', 'get', name])).result.agent;
      expect(['idle', 'done'], `${name}: ${agent.agent_status}`).toContain(agent.agent_status);
      spent += agent.usage.total;
    }
    expect(spent).toBe(main.length * PER_CALL_TOKENS);
    expect(spent).toBeGreaterThan(BUDGET);
    console.log(`flow budget, live: ${failed[0].id} failed budget_exceeded; ${main.length} main model calls; ${spent} of ${BUDGET} tokens spent`);
  });
});
