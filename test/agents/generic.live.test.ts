/**
 * The generic rules on real agents, live: a server started with CORRAL_AGENT_RULES=generic
 * reads every agent with the kind-independent rules only (their own rules set aside). Each
 * agent is still recognised by its process, and must read working during a slow answer and
 * done after it, marked `rules: generic`. All six agents' captures are checked the same way
 * offline (test/unit/agent-rules-generic.test.ts); live, the two that show the least: Codex
 * (only its title spinner shows a streaming turn) and pi (only a braille "Working..." line).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, type LabAgent } from './lab.js';

/**
 * The generic rules have no idle rule, so they cannot tell when an agent's input is live:
 * `agent start` returns at the first quiet non-working screen. Wait for the agent's own
 * prompt line before typing (what its own rules would have waited for).
 */
const READY: Partial<Record<LabAgent, string>> = { codex: '← for agents', pi: '\\d%/\\d+k' };

for (const agent of ['codex', 'pi'] as LabAgent[]) {
  describe(`${agent} read with the generic rules only`, () => {
    let lab: AgentLab;
    let pane: string;
    const json = (...args: string[]) => lab.server.json(args);
    beforeAll(async () => {
      lab = await new AgentLab(agent).start({}, { CORRAL_AGENT_RULES: 'generic' });
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('is working during a slow answer and done after it', async () => {
      const started = (await json('agent', 'start', 'g', '--kind', agent, '--pane', pane, '--timeout', '120000')).result.agent;
      expect(started).toMatchObject({ kind: agent, agent_status: 'idle' });
      await json('pane', 'wait-output', pane, '--regex', READY[agent]!, '--source', 'visible', '--timeout', '60000');
      await json('agent', 'prompt', 'g', 'Say hello please');
      const working = (await json('agent', 'wait', 'g', '--until', 'working', '--timeout', '60000')).result.agent;
      expect(working.rules).toBe('generic');
      const done = (await json('agent', 'wait', 'g', '--until', 'done', '--timeout', '90000')).result.agent;
      expect(done.completion_seq).toBe(done.state_change_seq);
      expect((await lab.server.cli(['agent', 'read', 'g', '--source', 'visible'])).stdout).toContain('Final line: Done.');
      const explained = (await lab.server.cli(['agent', 'explain', 'g'])).stdout;
      expect(explained).toContain('kind: generic (assets/agents/generic.toml');
    });
  });
}
