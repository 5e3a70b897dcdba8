/**
 * Leave-one-out, live: each lab agent run as a CLI corral has never seen. The server is told to
 * forget the agent's kind (CORRAL_FORGET_KINDS: its rule file, process facts, submit delay,
 * hooks and resume data set aside), so the agent is started as `agent start --kind generic --
 * <command>` and read with the generic rules, the prompt probe and what the process shows.
 * Each must still get the seven checks of docs/agents-live.md's leave-one-out matrix: a prompt
 * that works and finishes (`agent prompt --wait` returns done, no `agent_prompt_stalled`),
 * permission → blocked, question → blocked, interrupt → idle, `agent wait` exit 4, and (issue
 * 43) its answer and its transcript read with no rules of its own: `agent read --answer` is the
 * model's six lines and none of the UI (`answer_source: "screen-generic"`), and `agent read
 * --lines 200` holds an answer two more turns scrolled off the screen, in order, without the
 * fixed chrome in between.
 * One agent at a time: `npx vitest run -c vitest.agents.config.ts test/agents/unknown.live.test.ts -t 'kilo as an unknown'`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentLab, type LabAgent, type LabOptions } from './lab.js';
import { ANSWER } from './model/script.mjs';

/** The scripted model's answer to an ordinary prompt, line by line. */
const ANSWER_LINES = ANSWER.split('\n');

/**
 * Text that is the agents' UI, never the model's answer (as test/agents/answer.live.test.ts):
 * banners, tips, input boxes, footers, turn timings, the prompt.
 */
const UI_TEXT = [
  'Claude Code', 'Tips for getting started', 'for shortcuts', 'OpenAI Codex', 'Ask Codex', 'Gemini CLI', 'Type your message',
  'Qwen Code', 'pi v', 'ctrl+p commands', 'Say hello please', '╭', '│', '────', '▀▀▀', '▄▄▄', 'Worked for', 'Cooked for', 'Fake Model', 'GPT Fake', '/tmp/', 'fake-model',
];

/** Turns check 7 takes at most to scroll its first answer off the screen. */
const MAX_TRANSCRIPT_TURNS = 6;

/** Rows of the agents' fixed chrome (input boxes, footers) that a transcript holds at most once, at its end. */
const CHROME_TEXT = ['for shortcuts', 'Ask Codex', 'Type your message', 'ctrl+p commands', 'Shift+Tab to accept', '(auto)'];

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
    /** What a failed answer check shows: how the answer was cut, and the screen. */
    const shown = async () => `${(await cli('agent', 'explain', name)).stdout}\nscreen:\n${(await cli('pane', 'read', pane, '--source', 'visible')).stdout}`;
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

    it('check 6: agent read --answer is the model\'s answer and none of the UI (screen-generic)', async () => {
      // Check 1's turn, finished even where check 1 failed its 5 s activity window (OpenCode's first turn at load 9).
      // `pane wait-output` (not `wait --pattern`, which counts only lines drawn after it began): the answer may be there already.
      expect((await cli('pane', 'wait-output', pane, '--match', 'Final line: Done', '--timeout', '90000')).code).toBe(0);
      await waitUntil('done', 'idle');
      const read = (await json('agent', 'read', name, '--answer', '--json')).result.read;
      expect(read.answer_source).toBe('screen-generic');
      const text: string = read.text;
      expect(text.split('\n').map((line) => line.trim()), await shown()).toEqual(ANSWER_LINES);
      for (const ui of UI_TEXT) expect(text).not.toContain(ui);
      const explained = (await cli('agent', 'explain', name)).stdout;
      expect(explained).toMatch(/answer: .*screen-generic/);
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

    it('check 7: read --lines 200 holds an answer two more turns scrolled off the screen, in order, no chrome between', { timeout: 400_000 }, async () => {
      const prompts = ['Say hello for the transcript'];
      const turn = async (prompt: string) => {
        await json('agent', 'prompt', name, prompt);
        await waitUntil('working');
        await waitUntil('done', 'idle');
      };
      await turn(prompts[0]!);
      const answer = (await json('agent', 'read', name, '--answer', '--json')).result.read.text as string;
      expect(answer.split('\n').map((line) => line.trim()), await shown()).toEqual(ANSWER_LINES);
      // Two more turns at least, more while the first prompt still shows (a tall pane, a short UI).
      const onScreen = async () => (await cli('agent', 'read', name, '--source', 'visible')).stdout.includes(prompts[0]!);
      while (prompts.length < 3 || (prompts.length < MAX_TRANSCRIPT_TURNS && (await onScreen()))) {
        prompts.push(`Say hello turn ${prompts.length + 1}`);
        await turn(prompts[prompts.length - 1]!);
      }
      expect(await onScreen(), 'the first answer is off the screen').toBe(false);
      const read = await cli('agent', 'read', name, '--lines', '200');
      expect(read.code, read.stderr).toBe(0);
      const rows = read.stdout.split('\n').map((row) => row.trim());
      // Each prompt, then its six lines in order, before the next prompt.
      let at = 0;
      for (const prompt of prompts) {
        const echo = rows.findIndex((row, i) => i >= at && row.includes(prompt));
        expect(echo, `"${prompt}" in the transcript after row ${at}:\n${read.stdout}`).toBeGreaterThanOrEqual(0);
        at = echo + 1;
        for (const line of ANSWER_LINES) {
          const found = rows.findIndex((row, i) => i >= at && row.endsWith(line));
          expect(found, `"${line}" after "${prompt}":\n${read.stdout}`).toBeGreaterThanOrEqual(0);
          at = found + 1;
        }
        const next = prompts[prompts.indexOf(prompt) + 1];
        if (next !== undefined) {
          const between = rows.slice(echo, rows.findIndex((row) => row.includes(next))).join('\n');
          for (const chrome of CHROME_TEXT) expect(between, `${chrome} between turns:\n${read.stdout}`).not.toContain(chrome);
        }
      }
    });
  });
}
