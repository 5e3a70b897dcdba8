/**
 * `agent prompt` presses Enter only once the agent's screen shows the typed text (SPEC §5
 * submission; src/agents/prompt-probe.ts). The agent is a stand-in installed as `claude`
 * (test/fixtures/programs/deaf-agent.mjs): it draws Claude Code's ready footer but drops
 * keys for a while after, as a real agent does while it loads a resumed session.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TestServer } from './harness.js';

const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'deaf-agent.mjs');
let server: TestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** A started server whose PATH has the stand-in as `claude`, dropping keys for `deafMs` after it is drawn. */
async function serverWithStandIn(deafMs: number): Promise<{ server: TestServer; submitted: () => string[] }> {
  const s = new TestServer({ scripting: true });
  const bin = join(s.dir, 'bin');
  mkdirSync(bin);
  // Found as Claude Code by its script's name (argv: node …/bin/claude).
  symlinkSync(PROGRAM, join(bin, 'claude'));
  const log = join(s.dir, 'submitted.log');
  Object.assign(s.env, { PATH: `${bin}:${s.env.PATH}`, DEAF_MS: String(deafMs), SUBMIT_LOG: log });
  server = await s.start();
  const submitted = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as string) : []);
  return { server: s, submitted };
}

/** The same, with the stand-in started as agent `deaf` in a new workspace's pane. */
async function serverWithAgent(deafMs: number): Promise<{ server: TestServer; pane: string; submitted: () => string[] }> {
  const { server: s, submitted } = await serverWithStandIn(deafMs);
  const pane = (await s.json(['workspace', 'create', '--cwd', s.home])).result.root_pane.pane_id;
  await s.json(['agent', 'start', 'deaf', '--kind', 'claude', '--pane', pane, '--timeout', '20000']);
  return { server: s, pane, submitted };
}

describe('agent prompt delivers the text before it presses Enter', () => {
  it('types the prompt again when the agent dropped it, and submits it once', { timeout: 60_000 }, async () => {
    const { server: s, submitted } = await serverWithAgent(1500);
    const prompted = await s.cli(['agent', 'prompt', 'deaf', 'Remember the word PELICAN please']);
    expect(prompted.code, prompted.stderr).toBe(0);
    // Not an empty Enter into a deaf input: the text, once.
    expect(submitted()).toEqual(['Remember the word PELICAN please']);
  });

  it('an agent that never shows the text gets no Enter: agent_not_ready, nothing submitted', { timeout: 60_000 }, async () => {
    const { server: s, submitted } = await serverWithAgent(-1);
    const prompted = await s.cli(['agent', 'prompt', 'deaf', 'hello there']);
    expect(prompted.code).toBe(1);
    expect(JSON.parse(prompted.stderr).error.code).toBe('agent_not_ready');
    expect(submitted()).toEqual([]);
  });
});

/**
 * `up` and `flow run` type a pane's prompt (not submitted) once the agent is ready, through the
 * same landing check as `agent prompt`. The stand-in drops keys for longer than corral takes
 * to find it ready, so a prompt typed once, unchecked, is lost: the input line stays empty.
 */
describe('up and flow run type the prompt until it lands', () => {
  const DEAF_MS = 3000;
  const PROMPT = 'Remember the word PELICAN please';
  /** The pane's input line: what is typed there, not submitted. */
  const inputLine = async (s: TestServer, pane: string) => {
    const read = await s.cli(['pane', 'read', pane, '--lines', '5']);
    return read.stdout.split('\n').find((line) => line.startsWith('>'))?.trimEnd() ?? null;
  };

  it('corral up FILE: the prompt stands typed in the agent\u2019s input, not submitted', { timeout: 60_000 }, async () => {
    const { server: s, submitted } = await serverWithStandIn(DEAF_MS);
    const file = join(s.dir, 'up.toml');
    writeFileSync(file, `name = "deaf"\n[[panes]]\nname = "agent"\nagent = "claude"\nprompt = "${PROMPT}"\n`);
    const up = await s.cli(['up', file, '--json']);
    expect(up.code, up.stderr).toBe(0);
    const pane = JSON.parse(up.stdout).result.panes[0].pane_id as string;
    expect(await inputLine(s, pane)).toBe(`> ${PROMPT}`);
    expect(submitted()).toEqual([]);
  });

  it('corral flow run: a pane step\u2019s prompt stands typed in the agent\u2019s input, not submitted', { timeout: 60_000 }, async () => {
    const { server: s, submitted } = await serverWithStandIn(DEAF_MS);
    const file = join(s.dir, 'flow.toml');
    writeFileSync(file, `name = "deaf"\n[[step]]\nid = "agent"\npane = { agent = "claude", prompt = "${PROMPT}" }\n`);
    const run = await s.cli(['flow', 'run', file, '--json']);
    expect(run.code, run.stderr).toBe(0);
    const pane = JSON.parse(run.stdout).steps[0].pane_id as string;
    expect(await inputLine(s, pane)).toBe(`> ${PROMPT}`);
    expect(submitted()).toEqual([]);
  });
});
