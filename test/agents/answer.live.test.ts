/**
 * `agent read --answer` on the real agents (issue 29): each lab kind answers one prompt, and
 * the read returns the model's six lines — from the agent's own session record where its kind
 * keeps one, else from the screen — with none of the agent's UI around them (banner, tips,
 * input box, footer). Then a flow hands one agent's answer to the next with
 * `capture = { var, answer = true }`, and the second agent's model request carries the
 * answer's lines and not the first agent's banner.
 * One agent at a time: `npx vitest run -c vitest.agents.config.ts test/agents/answer.live.test.ts -t claude`.
 *
 * CORRAL_ANSWER_CAPTURE=dir copies each agent's session files there (how the fixtures under
 * test/fixtures/agents/<kind>/session-answer.* were captured).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, modelRequestsSince, type LabAgent } from './lab.js';
import { ANSWER } from './model/script.mjs';

/** The scripted model's answer to an ordinary prompt, line by line. */
const ANSWER_LINES = ANSWER.split('\n');

/** Text that is the agents' UI, never the model's answer: banners, tips, input boxes, footers. */
const UI_TEXT = [
  'Claude Code', 'Tips for getting started', 'for shortcuts', 'OpenAI Codex', 'Ask Codex', 'Gemini CLI', 'Type your message',
  'Qwen Code', 'pi v', 'ctrl+p commands', 'Say hello please', '╭', '│', '────', '▀▀▀', '▄▄▄', 'Worked for', 'Cooked for',
];

interface Case {
  agent: LabAgent;
  /** Where the answer comes from for this kind. */
  source: 'session' | 'screen';
  startMs?: number;
}

const CASES: Case[] = [
  { agent: 'claude', source: 'session' },
  { agent: 'codex', source: 'session' },
  { agent: 'gemini', source: 'session' },
  { agent: 'qwen', source: 'session' },
  { agent: 'pi', source: 'session' },
  // Kilo keeps its sessions in SQLite: its answer comes from the screen (a transcript gather).
  { agent: 'kilo', source: 'screen', startMs: 240_000 },
];

/** Copies the agent's session directories out of the lab HOME for fixtures. */
function captureSessions(agent: LabAgent, home: string): void {
  const to = process.env.CORRAL_ANSWER_CAPTURE;
  if (!to) return;
  const dirs = ['.claude/projects', '.codex/sessions', '.gemini/tmp', '.qwen/projects', '.pi/agent/sessions', '.local/share/kilo'];
  for (const dir of dirs) {
    const from = join(home, dir);
    if (existsSync(from)) cpSync(from, join(to, agent, dir), { recursive: true });
  }
}

for (const { agent, source, startMs = 90_000 } of CASES) {
  describe(`${agent} answer`, () => {
    let lab: AgentLab;
    let pane: string;
    const name = `${agent}-answers`;
    const cli = (...args: string[]) => lab.server.cli(args);
    const json = async (...args: string[]) => {
      const result = await cli(...args);
      if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout);
    };

    beforeAll(async () => {
      // A tool command inside the project, so no agent first asks about an outside directory.
      lab = await new AgentLab(agent).start({ TOOL_CMD: 'touch marker.txt' });
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it('answers one prompt; agent read --answer returns the answer and none of the UI', { timeout: startMs + 150_000 }, async () => {
      await json('agent', 'start', name, '--kind', agent, '--pane', pane, '--timeout', String(startMs));
      // Not `prompt --wait`: Kilo's first turn can take longer than its 5 s window to show activity.
      await json('agent', 'prompt', name, 'Say hello please');
      await json('agent', 'wait', name, '--until', 'working', '--timeout', '120000');
      const finished = await json('agent', 'wait', name, '--until', 'done', '--until', 'idle', '--timeout', '120000');
      expect(['done', 'idle']).toContain(finished.result.agent.agent_status);
      captureSessions(agent, lab.home);
      if (source === 'session') {
        // The session id is found in the agent's files shortly after its turn.
        for (let i = 0; i < 100 && (await json('agent', 'get', name)).result.agent.session_id === undefined; i++) await new Promise((r) => setTimeout(r, 200));
      }
      if (process.env.CORRAL_ANSWER_CAPTURE) {
        const screen = await cli('agent', 'read', name, '--lines', '300');
        writeFileSync(join(process.env.CORRAL_ANSWER_CAPTURE, `${agent}.screen.txt`), screen.stdout);
      }
      const read = await json('agent', 'read', name, '--answer', '--json');
      const text: string = read.result.read.text;
      if (process.env.CORRAL_ANSWER_CAPTURE) writeFileSync(join(process.env.CORRAL_ANSWER_CAPTURE, `${agent}.answer.json`), JSON.stringify(read, null, 2));
      expect(read.result.read.answer_source).toBe(source);
      expect(text.split('\n').map((line) => line.trim())).toEqual(ANSWER_LINES);
      for (const ui of UI_TEXT) expect(text).not.toContain(ui);
      // Plain output is the answer text alone: what `$(corral agent read x --answer)` takes.
      const plain = await cli('agent', 'read', name, '--answer');
      expect(plain.code, plain.stderr).toBe(0);
      expect(plain.stdout.trimEnd().split('\n').map((line) => line.trim())).toEqual(ANSWER_LINES);
    });

    it('after a turn that ran a tool: the text the model wrote, not the tool call; --turns 2 gives both', async () => {
      await json('agent', 'prompt', name, 'Please RUNTOOL now');
      await json('agent', 'wait', name, '--until', 'working', '--timeout', '120000');
      const settled = await json('agent', 'wait', name, '--until', 'blocked', '--until', 'done', '--until', 'idle', '--timeout', '120000');
      // Approve the tool where the agent asks (the first option of every lab kind's dialog).
      if (settled.result.agent.agent_status === 'blocked') await json('agent', 'send-keys', name, 'enter');
      await json('agent', 'wait', name, '--until', 'done', '--until', 'idle', '--timeout', '120000');
      captureSessions(agent, lab.home);
      const read = await json('agent', 'read', name, '--answer', '--turns', '2', '--json');
      expect(read.result.read.answer_source).toBe(source);
      const [first, second] = read.result.read.answers as string[];
      expect(first!.split('\n').map((line) => line.trim())).toEqual(ANSWER_LINES);
      // The lab model says a sentence before it calls the tool: that is its text too.
      if (source === 'session') expect(second).toBe('I will use a tool now.\n\nThe command finished. All done.');
      else expect(second).toContain('The command finished. All done.');
      // The session record holds the model's words only: no tool call, no tool output.
      if (source === 'session') expect(second).not.toContain('touch marker.txt');
    });
  });
}

describe('claude → codex flow with an answer capture', () => {
  let lab: AgentLab;
  beforeAll(async () => {
    lab = await new AgentLab('claude', { alsoAgents: ['codex'] }).start();
  });
  afterAll(async () => {
    await lab?.stop();
  });

  it("types Claude's answer, not its UI, into Codex's prompt", { timeout: 240_000 }, async () => {
    const flow = join(lab.project, 'answer-flow.toml');
    writeFileSync(
      flow,
      [
        'name = "answer-handoff"',
        'layout = "even_h"',
        '[defaults]',
        'timeout_secs = 150',
        '[[step]]',
        'id = "writer"',
        'pane = { agent = "claude", name = "writer", cwd = ".", prompt = "Say hello please" }',
        '[[step]]',
        'id = "write"',
        'needs = ["writer"]',
        'send = { target = "writer", text = "", submit = true }',
        'ready = { idle = true }',
        'capture = { var = "said", answer = true }',
        '[[step]]',
        'id = "reviewer"',
        'needs = ["write"]',
        'pane = { agent = "codex", name = "reviewer", cwd = ".", prompt = "Review this answer: ${said}" }',
        '[[step]]',
        'id = "review"',
        'needs = ["reviewer"]',
        'send = { target = "reviewer", text = "", submit = true }',
        'ready = { idle = true }',
      ].join('\n'),
    );
    mkdirSync(lab.dump, { recursive: true });
    const before = new Set(readdirSync(lab.dump));
    const run = await lab.server.cli(['flow', 'run', flow, '--json'], { timeoutMs: 230_000 });
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const requests = modelRequestsSince(lab.dump, before).filter((body) => body.includes('Review this answer'));
    expect(requests.length).toBeGreaterThan(0);
    const request = requests[requests.length - 1]!;
    for (const line of ANSWER_LINES) expect(request).toContain(line);
    for (const ui of ['Claude Code v', 'Tips for getting started', 'for shortcuts', '╭───']) expect(request).not.toContain(ui);
  });
});
