/**
 * The real Claude Code, Codex and Gemini CLI in corral panes, driven only through the CLI
 * (SPEC §4, §5): idle at start, working during a slow answer, done after it while nobody
 * looks, idle once focused, blocked on a permission prompt (waiting_for_input in ps), done
 * after approving, blocked on a question, idle after an interrupt, gone after exit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, type LabAgent } from './lab.js';

const AGENTS: { agent: LabAgent; asks: boolean }[] = [
  { agent: 'claude', asks: true },
  { agent: 'gemini', asks: true },
  { agent: 'codex', asks: false },
];

for (const { agent, asks } of AGENTS) {
  describe(`${agent} lifecycle`, () => {
    let lab: AgentLab;
    let pane: string;
    const name = `${agent}-one`;
    const cli = (...args: string[]) => lab.server.cli(args);
    const json = async (...args: string[]) => {
      const result = await cli(...args);
      if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    const waitUntil = (...statuses: string[]) =>
      json('agent', 'wait', name, ...statuses.flatMap((s) => ['--until', s]), '--timeout', '90000').then((r) => r.result.agent);

    beforeAll(async () => {
      lab = await new AgentLab(agent).start();
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('starts and is idle, then detected in ps', async () => {
      const started = await json('agent', 'start', name, '--kind', agent, '--pane', pane, '--timeout', '90000');
      expect(started.result.agent).toMatchObject({ kind: agent, name, agent_status: 'idle', interactive_ready: true });
      expect(started.result.argv[0]).toBe(agent);
      const ps = JSON.parse((await cli('ps', '--json')).stdout);
      expect(ps.agents).toHaveLength(1);
      expect(ps.agents[0]).toMatchObject({ tool: agent, state: 'idle', pane_id: pane, name });
    });

    it('is working during a slow answer and done after it when nobody looked', async () => {
      const prompted = await json('agent', 'prompt', name, 'Say hello please');
      const baseline = prompted.result.agent.state_change_seq;
      const working = await waitUntil('working');
      expect(working.state).toBe('thinking');
      expect(working.state_change_seq).toBeGreaterThan(baseline);
      const done = await waitUntil('done');
      expect(done.seen).toBe(false);
      expect(done.completion_seq).toBe(done.state_change_seq);
      expect((await cli('agent', 'read', name, '--lines', '40')).stdout).toContain('Final line: Done');
    });

    it('is idle after agent focus', async () => {
      const focused = await json('agent', 'focus', name);
      expect(focused.result.agent).toMatchObject({ agent_status: 'idle', seen: true });
    });

    it('blocks on a permission prompt, shows waiting_for_input, and is done after approving', async () => {
      await json('agent', 'prompt', name, 'Please RUNTOOL now');
      const blocked = await waitUntil('blocked');
      expect(blocked.message).toBeTruthy();
      const status = JSON.parse((await cli('status', name, '--json')).stdout);
      expect(status).toMatchObject({ state: 'waiting_for_input', agent_status: 'blocked', tool: agent });
      const ps = JSON.parse((await cli('ps', '--json')).stdout);
      expect(ps.agents[0].state).toBe('waiting_for_input');
      // Prompting a blocked agent refuses and sends nothing.
      const refused = await cli('agent', 'prompt', name, 'anything');
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stderr).error.code).toBe('agent_blocked');
      await json('agent', 'send-keys', name, 'enter');
      const done = await waitUntil('done', 'idle');
      expect(done.agent_status).toBe('done');
      expect((await cli('agent', 'read', name, '--lines', '60')).stdout).toContain('All done');
    });

    it.runIf(asks)('blocks on a question and is done after answering', async () => {
      await json('agent', 'focus', name);
      await json('agent', 'prompt', name, 'Please ASKQ me');
      const blocked = await waitUntil('blocked');
      expect(blocked.message).toBeTruthy();
      await json('agent', 'send-keys', name, 'enter');
      const done = await waitUntil('done', 'idle');
      expect(['done', 'idle']).toContain(done.agent_status);
    });

    it('is idle (not done) after an interrupt', async () => {
      await json('agent', 'focus', name);
      // Interrupt mid-answer, as a person would (the agent-lab reference does the same):
      // `wait --pattern` sees only new output, and the first answer had the same lines.
      const streaming = cli('wait', '--match', pane, '--pattern', 'Line two', '--timeout', '60');
      await json('agent', 'prompt', name, 'Say hello once more');
      await waitUntil('working');
      expect((await streaming).code).toBe(0);
      await json('agent', 'send-keys', name, 'esc');
      const after = await waitUntil('idle', 'done');
      expect(after.agent_status).toBe('idle');
      expect(after.completion_seq).toBeUndefined();
    });

    it('explains its status', async () => {
      const explained = await cli('agent', 'explain', name);
      expect(explained.code).toBe(0);
      expect(explained.stdout).toContain(agent);
    });

    it('is gone after the agent exits', async () => {
      await json('agent', 'send-keys', name, 'ctrl+c');
      await json('agent', 'send-keys', name, 'ctrl+c');
      // Quitting keys differ per agent; ctrl+c twice leaves Claude, Gemini and Codex.
      let gone = false;
      for (let i = 0; i < 100 && !gone; i++) {
        const ps = JSON.parse((await cli('ps', '--json')).stdout);
        gone = ps.agents.length === 0;
      }
      expect(gone).toBe(true);
      const missing = await cli('agent', 'get', name);
      expect(missing.code).toBe(3);
    });
  });
}
