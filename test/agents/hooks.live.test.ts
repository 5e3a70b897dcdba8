/**
 * Hooks with the real agents (SPEC §4 "Hooks"): after `corral hooks install <agent>`, the
 * agent reports its lifecycle itself; the pane is `hooked: true`, `last_result` comes from the
 * Stop payload, the agent's own session id from every payload, and (Claude, Qwen) the
 * permission prompt arrives as a Notification with its message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab } from './lab.js';

// Qwen Code fires Claude's hook events with Claude's payloads; it gets the same checks.
const AGENTS = [
  { agent: 'claude', notifies: true },
  { agent: 'qwen', notifies: true },
  { agent: 'gemini', notifies: false },
  { agent: 'codex', notifies: false },
] as const;

for (const { agent, notifies } of AGENTS) {
  describe(`${agent} with corral hooks installed`, () => {
    let lab: AgentLab;
    let pane: string;
    beforeAll(async () => {
      lab = await new AgentLab(agent).start({ TOOL_CMD: 'touch marker.txt' });
      const installed = await lab.server.cli(['hooks', 'install', agent]);
      expect(installed.code, installed.stderr).toBe(0);
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('is hooked, with last_result from the Stop hook and the agent\u2019s own session id', async () => {
      await lab.server.json(['agent', 'start', 'hooked', '--kind', agent, '--pane', pane, '--timeout', '120000']);
      const info = (await lab.server.json(['agent', 'prompt', 'hooked', 'Say hello please', '--wait', '--timeout', '90000'])).result.agent;
      expect(info.hooked).toBe(true);
      expect(info.last_result).toContain('Final line: Done.');
      // From the hook payloads: what resumes this exact session later (SPEC §13).
      expect(info.session_id).toMatch(/^[0-9a-f-]{36}$/);
      const ps = JSON.parse((await lab.server.cli(['ps', '--json'])).stdout);
      expect(ps.agents[0]).toMatchObject({ hooked: true, reason: 'hook' });
    });

    it.runIf(notifies)('reports the permission prompt through the Notification hook', async () => {
      await lab.server.json(['agent', 'prompt', 'hooked', 'Please RUNTOOL now']);
      const blocked = (await lab.server.json(['agent', 'wait', 'hooked', '--until', 'blocked', '--timeout', '90000'])).result.agent;
      expect(blocked.message).toBeTruthy();
      await lab.server.json(['agent', 'send-keys', 'hooked', 'enter']);
      const done = (await lab.server.json(['agent', 'wait', 'hooked', '--until', 'done', '--until', 'idle', '--timeout', '90000'])).result.agent;
      expect(done.last_result).toContain('All done');
    });

    it.runIf(notifies)('uninstalls exactly what it installed', async () => {
      const removed = await lab.server.cli(['hooks', 'uninstall', agent]);
      expect(removed.code, removed.stderr).toBe(0);
      const status = await lab.server.cli(['hooks', 'status', agent, '--json']);
      expect(status.stdout).not.toMatch(/"installed":\s*true/);
    });
  });
}
