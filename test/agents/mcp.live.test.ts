/**
 * Agents drive corral over MCP (SPEC §19, docs/mcp.md) with the real Claude Code and Codex: started
 * with `agent start --mcp` (corral registered for that run only), it is told by corral's
 * scripted model to call corral's tools by name (`MCPCALL <tool> <json>`, test/agents/model/
 * script.mjs): it starts a second lab agent with agent_start, prompts it with agent_prompt
 * (wait), and reads its answer with agent_read — each step checked through corral's CLI, and
 * the answer the lead got back is the second agent's, fenced as untrusted.
 * `npx vitest run -c vitest.agents.config.ts test/agents/mcp.live.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, modelRequestsSince, type LabAgent } from './lab.js';
import { ANSWER } from './model/script.mjs';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const START_MS = 120_000;

interface Case {
  lead: LabAgent;
  /** What the lead needs to call corral's tools without asking a person each time. */
  args: string[];
  /** How corral is registered: for the run (`agent start --mcp`) or in its config (`mcp config KIND --write`). */
  register: 'run' | 'write';
}

const CASES: Case[] = [
  // Claude Code asks before any MCP tool by default.
  { lead: 'claude', args: ['--allowedTools', 'mcp__corral'], register: 'run' },
  // Codex asks for approval of MCP tool calls under its lab policy (on-request).
  { lead: 'codex', args: ['-c', 'approval_policy="never"'], register: 'run' },
  // Gemini CLI reads MCP servers only from its settings: merged into the lab's own settings.json.
  { lead: 'gemini', args: ['--approval-mode', 'yolo'], register: 'write' },
];

for (const { lead, args: leadArgs, register } of CASES) describe(`${lead} drives a second agent (claude) over MCP`, () => {
  let lab: AgentLab;
  const cli = (...args: string[]) => lab.server.cli(args, { timeoutMs: 400_000 });
  const json = async (...args: string[]) => {
    const result = await cli(...args);
    if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  /** One prompt to the lead that makes it call one corral tool; resolves with the lead's answer. */
  const leadCalls = async (tool: string, args: Record<string, unknown>): Promise<string> => {
    await json('agent', 'prompt', 'lead', '--wait', '--until', 'done', '--until', 'idle', '--timeout', '300000', '--', `MCPCALL ${tool} ${JSON.stringify(args)}`);
    // Without whitespace (the answer may come from the screen, wrapped anywhere) and backslashes
    // (the tool's result arrives JSON-escaped once or twice, depending on the agent).
    return (await cli('agent', 'read', 'lead', '--answer')).stdout.replace(/\s+/g, '').replace(/\\/g, '');
  };

  beforeAll(async () => {
    lab = await new AgentLab(lead, { alsoAgents: lead === 'claude' ? [] : ['claude'] }).start();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it('agent_start, agent_prompt (wait), agent_read through the lead\u2019s MCP tools', { timeout: 900_000 }, async () => {
    const pane = await lab.workspace();
    const before = new Set(readdirSync(lab.dump));
    // corral for this run only; its tools allowed without asking.
    if (register === 'write') {
      const settings = join(lab.home, `.${lead}`, 'settings.json');
      const seeded = JSON.parse(readFileSync(settings, 'utf8'));
      const written = await cli('mcp', 'config', lead, '--write');
      expect(written.stdout).toBe(`registered corral in ${settings}\n`);
      // The lab's own settings are all still there, corral beside them.
      const merged = JSON.parse(readFileSync(settings, 'utf8'));
      expect(merged).toMatchObject(seeded);
      expect(merged.mcpServers.corral.args.slice(-1)).toEqual(['mcp']);
    }
    await json('agent', 'start', 'lead', '--kind', lead, '--pane', pane, ...(register === 'run' ? ['--mcp'] : []), '--timeout', String(START_MS), '--', ...leadArgs);
    // The lead declares corral's tools to its model (Claude Code: mcp__corral__agent_prompt; Codex:
    // a namespace mcp__corral holding agent_prompt; Gemini CLI: agent_prompt) once its MCP client has connected, which
    // Claude Code does in the background: a turn sent before that has no corral tools. Warm up
    // with plain turns until a request declares them.
    const declared = () => modelRequestsSince(lab.dump, before).some((body) => (lead === 'gemini' || body.includes('mcp__corral')) && body.includes('agent_prompt"'));
    for (let turn = 0; turn < 5 && !declared(); turn++) {
      await json('agent', 'prompt', 'lead', '--wait', '--until', 'done', '--until', 'idle', '--timeout', '120000', '--', 'Say hello please');
    }
    expect(declared()).toBe(true);
    const started = await leadCalls('agent_start', { name: 'second', kind: 'claude', cwd: lab.project, timeout_ms: START_MS });
    // Claude Code hands its model the tool's structuredContent (the agent object), Gemini CLI its
    // text (a line, then the object): either way the new agent.
    expect(started).toMatch(/Thecorraltoolanswered:.*"name":"second","kind":"claude"/);
    const second = (await json('agent', 'get', 'second')).result.agent;
    expect(second).toMatchObject({ kind: 'claude', name: 'second' });
    expect(second.workspace_id).not.toBe((await json('agent', 'get', 'lead')).result.agent.workspace_id);

    const prompted = await leadCalls('agent_prompt', { name: 'second', text: 'Say hello please', wait: true, timeout_ms: 240_000 });
    expect(prompted).toMatch(/Thecorraltoolanswered:.*"name":"second".*"agent_status":"(done|idle)"/);
    expect((await cli('agent', 'read', 'second', '--answer')).stdout.trim()).toBe(ANSWER);

    const read = await leadCalls('agent_read', { name: 'second', answer: true });
    // The second agent's answer, inside the fence: the structured object's `text`, or the text itself.
    const flat = read;
    expect(flat).toMatch(/Thecorraltoolanswered:.*<untrusted_terminal_outputsource="surface:\d+"total_lines="6"eof="false"id="([0-9a-f]{16})">/);
    for (const line of ANSWER.split('\n')) expect(flat).toContain(line.replace(/\s+/g, ''));
    expect(flat).toMatch(/<\/untrusted_terminal_outputid="[0-9a-f]{16}">/);
  });
});
