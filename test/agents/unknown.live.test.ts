/**
 * Leave-one-out, live: each lab agent run as a CLI corral has never seen. The server is told to
 * forget the agent's kind (CORRAL_FORGET_KINDS: its rule file, process facts, submit delay,
 * hooks and resume data set aside), so the agent is started as `agent start --kind generic --
 * <command>` and read with the generic rules, the prompt probe and what the process shows.
 * Each must still get the five checks of docs/agents-live.md's leave-one-out matrix: a prompt
 * that works and finishes (`agent prompt --wait` returns done, no `agent_prompt_stalled`),
 * permission → blocked, question → blocked, interrupt → idle, and `agent wait` exit 4.
 * One agent at a time: `npx vitest run -c vitest.agents.config.ts test/agents/unknown.live.test.ts -t 'kilo as an unknown'`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, type LabAgent, type LabOptions } from './lab.js';

interface Case {
  agent: LabAgent;
  label?: string;
  opts?: LabOptions;
  /** It asks before running the shell tool. */
  permits: boolean;
  /** It has an ask-the-user tool. */
  asks: boolean;
  /** Esc presses that stop a running turn. */
  escapes?: number;
  /** `agent start --timeout` (Kilo's start is minutes of CPU on this machine). */
  startMs?: number;
}

const AGENTS: Case[] = [
  { agent: 'claude', permits: true, asks: true },
  { agent: 'gemini', permits: true, asks: true },
  { agent: 'codex', permits: true, asks: false },
  { agent: 'qwen', permits: true, asks: true },
  { agent: 'pi', label: 'pi with extensions', opts: { piExt: true }, permits: true, asks: true },
  { agent: 'kilo', permits: true, asks: true, escapes: 2, startMs: 240_000 },
  { agent: 'opencode', permits: true, asks: true, escapes: 2, startMs: 180_000 },
];

/** A tool command inside the project, so no agent first asks about an outside directory. */
const MODEL_ENV = { TOOL_CMD: 'touch marker.txt' };

for (const { agent, label, opts, permits, asks, escapes = 1, startMs = 90_000 } of AGENTS) {
  describe(`${label ?? agent} as an unknown CLI (its kind forgotten)`, () => {
    let lab: AgentLab;
    let pane: string;
    const name = 'unknown';
    const cli = (...args: string[]) => lab.server.cli(args);
    const json = async (...args: string[]) => {
      const result = await cli(...args);
      if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}\nscreen:\n${(await cli('pane', 'read', pane, '--source', 'visible')).stdout}`);
      return JSON.parse(result.stdout);
    };
    const waitUntil = (...statuses: string[]) =>
      json('agent', 'wait', name, ...statuses.flatMap((s) => ['--until', s]), '--timeout', '90000').then((r) => r.result.agent);

    beforeAll(async () => {
      lab = await new AgentLab(agent, opts).start(MODEL_ENV, { CORRAL_FORGET_KINDS: agent });
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('starts as a generic agent: its own kind is refused, the command is read with the generic rules', { timeout: startMs + 30_000 }, async () => {
      const refused = await cli('agent', 'start', name, '--kind', agent, '--pane', pane);
      expect(JSON.parse(refused.stderr).error.code).toBe('unsupported_agent_kind');
      const started = (await json('agent', 'start', name, '--kind', 'generic', '--pane', pane, '--timeout', String(startMs), '--', agent)).result;
      expect(started.argv).toEqual([agent]);
      expect(started.agent).toMatchObject({ name, resume: 'unsupported' });
      const explained = (await cli('agent', 'explain', name)).stdout;
      expect(explained).toContain('kind: generic (assets/agents/generic.toml');
    });

    it('check 1: a prompt works and finishes — agent prompt --wait returns done', async () => {
      const done = (await json('agent', 'prompt', name, 'Say hello please', '--wait', '--timeout', '120000')).result.agent;
      expect(done.agent_status).toBe('done');
      // Done after real work: the turn's completion is the current transition.
      expect(done.completion_seq).toBe(done.state_change_seq);
      expect((await cli('agent', 'read', name, '--lines', '60')).stdout).toContain('Final line: Done');
    });

    it.runIf(permits)('check 2: a permission prompt is blocked', async () => {
      await json('agent', 'focus', name);
      await json('agent', 'prompt', name, 'Please RUNTOOL now');
      const blocked = await waitUntil('blocked');
      expect(blocked.message).toBeTruthy();
      await json('agent', 'send-keys', name, 'enter');
      const after = await waitUntil('done', 'idle');
      expect(['done', 'idle']).toContain(after.agent_status);
      expect((await cli('agent', 'read', name, '--lines', '60')).stdout).toContain('All done');
    });

    it.runIf(asks)('check 3: a question is blocked', async () => {
      await json('agent', 'focus', name);
      await json('agent', 'prompt', name, 'Please ASKQ me');
      const blocked = await waitUntil('blocked');
      expect(blocked.message).toBeTruthy();
      await json('agent', 'send-keys', name, 'enter');
      const after = await waitUntil('done', 'idle');
      expect(['done', 'idle']).toContain(after.agent_status);
    });

    it('check 4: an interrupt leaves it idle, not done', async () => {
      await json('agent', 'focus', name);
      const streaming = cli('wait', '--match', pane, '--pattern', 'Line two', '--timeout', '60');
      await json('agent', 'prompt', name, 'Say hello once more');
      await waitUntil('working');
      expect((await streaming).code).toBe(0);
      for (let i = 0; i < escapes; i++) await json('agent', 'send-keys', name, 'esc');
      const after = await waitUntil('idle', 'done');
      expect(after.agent_status).toBe('idle');
      expect(after.completion_seq).toBeUndefined();
    });

    it('check 5: a wait for a state that does not come times out with exit 4', async () => {
      const waited = await cli('agent', 'wait', name, '--until', 'blocked', '--timeout', '1500');
      expect(waited.code).toBe(4);
    });
  });
}
