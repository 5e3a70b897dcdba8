/**
 * Checkpoints with the real agents (SPEC §20, issue 41): Claude Code and Codex, each in its own
 * repository, are told to edit files — the lab model's RUNTOOL, whose TOOL_CMD rewrites a
 * tracked file, deletes another and creates a third — and approve the edit. The turn's
 * checkpoint was taken before the edit; `agent diff --turn 1` names exactly those files;
 * `agent rewind --to 1 --yes` through the CLI puts them back, leaves the user's staged index
 * and HEAD alone, and its own checkpoint undoes it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from '../integration/harness.js';
import { GIT_TEST_ENV } from '../unit/support/git-repo.js';
import { AGENTS_DIR, agentEnvironment, endCodexDaemonsOf, startFakeModel } from './lab.js';

const AGENTS = [
  { kind: 'claude', name: 'claude-cp' },
  { kind: 'codex', name: 'codex-cp' },
] as const;

/** The turn's edit: one file rewritten, one deleted, one created. */
const TOOL_CMD = 'echo "rewritten by the agent" > a.txt && rm b.txt && echo "made by the agent" > made.txt';

describe.each(AGENTS)('$kind: a turn that edits files, rewound through the CLI', ({ kind, name }) => {
  let server: TestServer;
  let model: { stop: () => void };
  let repo: string;
  let home: string;
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  const read = (file: string) => (existsSync(join(repo, file)) ? readFileSync(join(repo, file), 'utf8') : null);

  beforeAll(async () => {
    const probe = new TestServer({ scripting: true });
    home = probe.home;
    repo = join(probe.dir, 'repo');
    const started = await startFakeModel(probe.dir, { TOOL_CMD });
    model = started;
    Object.assign(probe.env, agentEnvironment(kind, probe.home, repo, started.port), GIT_TEST_ENV, { PATH: `${join(AGENTS_DIR, 'node_modules', '.bin')}:${process.env.PATH}` });
    mkdirSync(repo);
    git('init', '-q', '-b', 'main');
    writeFileSync(join(repo, 'a.txt'), 'a original\n');
    writeFileSync(join(repo, 'b.txt'), 'b original\n');
    writeFileSync(join(repo, 'staged.txt'), 'one\n');
    git('add', '--all');
    git('commit', '-q', '-m', 'initial');
    writeFileSync(join(repo, 'staged.txt'), 'staged by the user\n');
    git('add', 'staged.txt');
    server = await probe.start();
    const pane = (await server.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id;
    await server.json(['agent', 'start', name, '--kind', kind, '--pane', pane, '--timeout', '120000']);
  });
  afterAll(async () => {
    await server?.stop();
    model?.stop();
    if (home) endCodexDaemonsOf(home);
  });

  it('checkpoints the turn, diffs it, rewinds it and undoes the rewind', async () => {
    const user = { head: git('rev-parse', 'HEAD'), index: git('ls-files', '-s') };
    await server.json(['agent', 'prompt', name, 'Please RUNTOOL now']);
    await server.json(['agent', 'wait', name, '--until', 'blocked', '--timeout', '120000']);
    await server.json(['agent', 'send-keys', name, 'enter']);
    await server.json(['agent', 'wait', name, '--until', 'done', '--until', 'idle', '--timeout', '120000']);
    expect(read('a.txt')).toBe('rewritten by the agent\n');
    expect(read('b.txt')).toBeNull();
    expect(read('made.txt')).toBe('made by the agent\n');

    const list = (await server.json(['agent', 'checkpoints', name, '--json'])).checkpoints;
    expect(list.map((c: { id: number; turn: number; reason: string }) => [c.id, c.turn, c.reason])).toEqual([[1, 1, 'turn']]);
    expect(list[0].prompt).toBe('Please RUNTOOL now');
    expect(list[0].late).toBeUndefined();
    const names = (await server.cli(['agent', 'diff', name, '--turn', '1', '--name-only'])).stdout.trim().split('\n').sort();
    // The agent's own files (a session log it keeps in the repository) would show here too: none are expected.
    expect(names).toEqual(['a.txt', 'b.txt', 'made.txt']);

    const rewound = await server.cli(['agent', 'rewind', name, '--to', '1', '--yes']);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain(`undo with: corral agent rewind ${name} --to 2`);
    expect(read('a.txt')).toBe('a original\n');
    expect(read('b.txt')).toBe('b original\n');
    expect(read('made.txt')).toBeNull();
    expect(read('staged.txt')).toBe('staged by the user\n');
    expect({ head: git('rev-parse', 'HEAD'), index: git('ls-files', '-s') }).toEqual(user);

    expect((await server.cli(['agent', 'rewind', name, '--to', '2', '--yes'])).code).toBe(0);
    expect(read('a.txt')).toBe('rewritten by the agent\n');
    expect(read('made.txt')).toBe('made by the agent\n');
  });
});
