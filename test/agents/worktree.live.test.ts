/**
 * A worktree per agent with the real agents (SPEC §15, issue 30): Claude Code and Codex,
 * started in one repository with `agent start --worktree`, are each told to edit the same file
 * — the lab model's RUNTOOL, whose TOOL_CMD appends a line naming the directory it runs in —
 * and approve the edit. Both edits exist, apart: each worktree holds only its own line, the
 * main checkout neither, and `agent diff` shows each agent only its own change; the sidebar's
 * count (the agent object's `worktree`) follows the finished turn.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../integration/harness.js';
import { GIT_TEST_ENV } from '../unit/support/git-repo.js';
import { AGENTS_DIR, agentEnvironment, endCodexDaemonsOf, startFakeModel } from './lab.js';

const AGENTS = [
  { kind: 'claude', name: 'claude-wt' },
  { kind: 'codex', name: 'codex-wt' },
] as const;

/** The edit each agent's tool makes: one line naming the worktree it runs in, appended to the shared file. */
const TOOL_CMD = 'echo "edited in $(basename "$PWD")" >> shared.txt';

describe('Claude Code and Codex edit the same file, each in its own worktree', () => {
  let server: TestServer;
  let model: { stop: () => void };
  let repo: string;
  let root: string;
  let home: string;
  const panes: Record<string, string> = {};

  beforeAll(async () => {
    const probe = new TestServer({ scripting: true });
    home = probe.home;
    root = join(probe.dir, 'worktrees');
    mkdirSync(root, { mode: 0o700 });
    writeFileSync(join(probe.home, '.config', 'corral', 'config.toml'), `[worktree]\nroot = "${root}"\n`);
    const started = await startFakeModel(probe.dir, { TOOL_CMD });
    model = started;
    // Each agent trusts the directory it will work in: its worktree, known before it exists.
    const env: Record<string, string> = {};
    for (const { kind, name } of AGENTS) Object.assign(env, agentEnvironment(kind, probe.home, join(root, name), started.port));
    Object.assign(probe.env, env, GIT_TEST_ENV, { PATH: `${join(AGENTS_DIR, 'node_modules', '.bin')}:${process.env.PATH}` });
    repo = join(probe.dir, 'repo');
    mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV } });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'shared.txt'), 'the shared file\n');
    git('add', '--all');
    git('commit', '-q', '-m', 'initial');
    server = await probe.start();
    const first = (await server.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id;
    const second = (await server.json(['pane', 'split', first, '--direction', 'right'])).result.pane.pane_id;
    panes[AGENTS[0].name] = first;
    panes[AGENTS[1].name] = second;
  });
  afterAll(async () => {
    await server?.stop();
    model?.stop();
    if (home) endCodexDaemonsOf(home);
  });

  it('start in worktrees of their own names, one after the other in one repository', async () => {
    for (const { kind, name } of AGENTS) {
      const started = await server.json(['agent', 'start', name, '--kind', kind, '--pane', panes[name]!, '--worktree', '--timeout', '120000']);
      expect(started.result.worktree).toMatchObject({ name, branch: `corral/${name}`, path: join(root, name), repo });
      expect(started.result.agent).toMatchObject({ kind, name, cwd: join(root, name), agent_status: 'idle' });
    }
  });

  it('each edits shared.txt in its own worktree; both edits exist, apart; agent diff shows each only its own', async () => {
    // Both turns at once: the agents work side by side, as they would for a person.
    await Promise.all(
      AGENTS.map(async ({ name }) => {
        await server.json(['agent', 'prompt', name, 'Please RUNTOOL now']);
        await server.json(['agent', 'wait', name, '--until', 'blocked', '--timeout', '120000']);
        await server.json(['agent', 'send-keys', name, 'enter']);
        await server.json(['agent', 'wait', name, '--until', 'done', '--until', 'idle', '--timeout', '120000']);
      }),
    );
    for (const { name } of AGENTS) {
      const other = AGENTS.find((a) => a.name !== name)!.name;
      expect(readFileSync(join(root, name, 'shared.txt'), 'utf8')).toBe(`the shared file\nedited in ${name}\n`);
      const diff = JSON.parse((await server.cli(['agent', 'diff', name, '--json'])).stdout);
      expect(diff.files).toEqual([{ path: 'shared.txt', status: 'modified', added: 1, removed: 0 }]);
      expect(diff.patch).toContain(`+edited in ${name}`);
      expect(diff.patch).not.toContain(other);
      // The finished turn refreshed the agent's count (what the sidebar shows).
      const agent = (await server.json(['agent', 'get', name])).result.agent;
      expect(agent.worktree).toMatchObject({ name, branch: `corral/${name}`, added: 1, removed: 0 });
    }
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('the shared file\n');
  });
});
