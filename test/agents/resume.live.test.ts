/**
 * Each verified agent's own session id and resume form (the `[resume]` data of its rule file,
 * SPEC §13), proven on the pinned versions: run a turn, take the session id from where
 * `id_from` says it is, quit, start the agent again with the resume arguments, and check that
 * the next model request carries the earlier conversation (the fake model saves request bodies).
 */
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadAllRules, resumeArgs } from '../../src/agents/rules.js';
import { AgentLab, type LabAgent } from './lab.js';

/** Every file under `dir` whose name matches, newest first. */
function filesUnder(dir: string, name: RegExp): string[] {
  const found: string[] = [];
  const walk = (d: string, depth: number): void => {
    let entries: string[];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const entry of entries) {
      const file = join(d, entry);
      const stat = statSync(file);
      if (stat.isDirectory() && depth < 8) walk(file, depth + 1);
      else if (stat.isFile() && name.test(entry)) found.push(file);
    }
  };
  walk(dir, 0);
  return found.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** The session id where each kind's `id_from` says it is (its own session files). */
const SESSION_ID: Record<LabAgent, (home: string) => string | undefined> = {
  claude: (home) => filesUnder(join(home, '.claude', 'projects'), new RegExp(`^${UUID}\\.jsonl$`))[0]?.match(UUID)?.[0],
  codex: (home) => filesUnder(join(home, '.codex', 'sessions'), new RegExp(`^rollout-.*-${UUID}\\.jsonl$`))[0]?.match(new RegExp(`${UUID}(?=\\.jsonl$)`))?.[0],
  gemini: (home) => {
    const file = filesUnder(join(home, '.gemini', 'tmp'), /^session-.*\.json$/)[0];
    return file ? (JSON.parse(readFileSync(file, 'utf8')).sessionId as string) : undefined;
  },
  qwen: (home) => filesUnder(join(home, '.qwen', 'projects'), new RegExp(`^${UUID}\\.jsonl$`))[0]?.match(UUID)?.[0],
  pi: (home) => filesUnder(join(home, '.pi', 'agent', 'sessions'), new RegExp(`_${UUID}\\.jsonl$`))[0]?.match(new RegExp(`${UUID}(?=\\.jsonl$)`))?.[0],
  kilo: (home) => filesUnder(join(home, '.local', 'share', 'kilo', 'storage', 'session_diff'), /^ses_\w+\.json$/)[0]?.match(/ses_\w+/)?.[0],
};

const rules = loadAllRules();

for (const agent of ['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo'] as const) {
  describe(`${agent} resumes its own session`, () => {
    let lab: AgentLab;
    let pane: string;
    let dump: string;
    const json = (...args: string[]) => lab.server.json(args);
    // Prompt, see the turn start, wait for it to end (a loaded machine can take more than the
    // 5 s `prompt --wait` allows to show activity).
    const screen = async () => (await lab.server.cli(['pane', 'read', pane, '--source', 'visible'])).stdout;
    const step = async <T>(what: string, run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        throw new Error(`${what}: ${(error as Error).message}\n--- screen ---\n${await screen()}`);
      }
    };
    const turn = (name: string, text: string) =>
      step(`turn "${text}"`, async () => {
        await json('agent', 'prompt', name, text);
        await json('agent', 'wait', name, '--until', 'working', '--until', 'blocked', '--timeout', '60000');
        await json('agent', 'wait', name, '--until', 'done', '--until', 'idle', '--timeout', '120000');
      });
    beforeAll(async () => {
      const probe = new AgentLab(agent);
      dump = join(process.env.TMPDIR ?? '/tmp', `corral-resume-${agent}-${process.pid}`);
      mkdirSync(dump, { recursive: true });
      lab = await probe.start({ DUMP_DIR: dump });
      pane = await lab.workspace();
    });
    afterAll(async () => {
      await lab?.stop();
    });

    it(`restarts with ${rules.get(agent)?.resume?.args.join(' ')} and the model sees the earlier turn`, { timeout: 600_000 }, async () => {
      const spec = rules.get(agent)!.resume!;
      const marker = `RESUME-MARKER-${agent.toUpperCase()}`;
      await step('start', () => json('agent', 'start', 'first', '--kind', agent, '--pane', pane, '--timeout', '240000'));
      await turn('first', `Say hello ${marker}`);
      const id = SESSION_ID[agent](lab.home);
      expect(id, `session id of ${agent} (${spec.idFrom})`).toBeTruthy();

      // End it as a closing terminal would (SIGHUP to its process group): what the session
      // files hold then is what a restore after a crash or reboot would find.
      const pid = (await json('agent', 'get', 'first')).result.agent.pid as number;
      process.kill(-pid, 'SIGHUP');
      let gone = false;
      for (let i = 0; i < 150 && !gone; i++) gone = (await json('ps', '--json')).agents.length === 0;
      expect(gone).toBe(true);

      const before = new Set(readdirSync(dump));
      await step('resume', () => json('agent', 'start', 'again', '--kind', agent, '--pane', pane, '--timeout', '240000', '--', ...resumeArgs(spec, id!)));
      await turn('again', 'Say hello once more');
      const bodies = readdirSync(dump)
        .filter((f) => !before.has(f))
        .map((f) => readFileSync(join(dump, f), 'utf8'))
        .filter((body) => body.includes('Say hello once more'));
      expect(bodies.length, 'the new prompt reached the model').toBeGreaterThan(0);
      const screen = (await lab.server.cli(['agent', 'read', 'again', '--lines', '60'])).stdout;
      expect(bodies.some((body) => body.includes(marker)), `the resumed request carries the first turn (id ${id})\n${screen}`).toBe(true);
    });
  });
}
