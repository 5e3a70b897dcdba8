/**
 * The live proof of SPEC §13's native resume: a real Claude Code, Gemini CLI and Codex in a
 * corral pane are prompted, the server is stopped with `corral kill-server`, a new server
 * starts on the saved session, and each agent is back under its name in the same pane,
 * resumed by its own session id (never "the latest session"), and its next model request
 * carries the conversation from before the restart. No hooks are installed: the session id
 * comes from the agent's own session files.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, labSessionId, modelRequestsSince, type LabAgent } from './lab.js';

const AGENTS: LabAgent[] = ['claude', 'gemini', 'codex'];
const FIRST_PROMPT = 'Remember the word PELICAN please';
const SECOND_PROMPT = 'Which word did I ask you to remember';

for (const agent of AGENTS) {
  describe(`${agent} survives kill-server`, () => {
    let lab: AgentLab;
    let pane: string;
    let sessionId: string;
    const name = `${agent}-kept`;
    const json = async (...args: string[]) => {
      const result = await lab.server.cli(args);
      if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    /** Polls `agent get` (the agent is found by the registry, not announced) until `ok`, bounded. */
    const agentWhen = async (ok: (agent: any) => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      let last: unknown = null;
      while (Date.now() < deadline) {
        const got = await lab.server.cli(['agent', 'get', name]);
        if (got.code === 0) {
          last = JSON.parse(got.stdout).result.agent;
          if (ok(last)) return last as any;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`agent ${name} not as expected within ${ms} ms; last: ${JSON.stringify(last)}`);
    };

    /** `agent wait` that, when it times out, says what the pane shows (a dialog, a queued prompt). */
    const waitFor = (...statuses: string[]) =>
      json('agent', 'wait', name, ...statuses.flatMap((st) => ['--until', st]), '--timeout', '90000').catch(async (error: Error) => {
        throw new Error(`${error.message}\nscreen:\n${(await lab.server.cli(['pane', 'read', pane, '--lines', '40'])).stdout}`);
      });

    beforeAll(async () => {
      lab = await new AgentLab(agent).start();
      pane = await lab.workspace();
    }, 180_000);
    afterAll(async () => {
      await lab?.stop();
    });

    it('is prompted and its own session id recorded', { timeout: 240_000 }, async () => {
      await json('agent', 'start', name, '--kind', agent, '--pane', pane, '--timeout', '120000');
      await json('agent', 'prompt', name, FIRST_PROMPT);
      await waitFor('working');
      await waitFor('done', 'idle');
      sessionId = (await agentWhen((a) => typeof a.session_id === 'string', 15_000)).session_id;
      expect(sessionId).toBe(labSessionId(agent, lab.home));
    });

    it('is back under its name in the same pane after kill-server and a new server, in its own session', { timeout: 240_000 }, async () => {
      const killed = await lab.server.cli(['kill-server']);
      expect(killed.code, killed.stderr).toBe(0);
      for (let i = 0; i < 200 && lab.server.alive; i++) await new Promise((r) => setTimeout(r, 50));
      expect(lab.server.alive).toBe(false);
      lab.server.stderr = '';
      await lab.server.start();
      const back = await agentWhen((a) => a.interactive_ready && ['idle', 'done'].includes(a.agent_status), 150_000);
      expect(back).toMatchObject({ name, kind: agent, pane_id: pane, session_id: sessionId });
    });

    it('sends the conversation from before the restart with its next prompt; agent wait works as before', { timeout: 240_000 }, async () => {
      const before = new Set(readdirSync(lab.dump));
      await json('agent', 'prompt', name, SECOND_PROMPT);
      await waitFor('working', 'blocked');
      const done = (await waitFor('done', 'idle')).result.agent;
      expect(['done', 'idle']).toContain(done.agent_status);
      const requests = modelRequestsSince(lab.dump, before).filter((body) => body.includes(SECOND_PROMPT));
      expect(requests.length, 'the new prompt reached the model').toBeGreaterThan(0);
      expect(requests.some((body) => body.includes(FIRST_PROMPT)), 'the request carries the turn from before the restart').toBe(true);
    });
  });
}
