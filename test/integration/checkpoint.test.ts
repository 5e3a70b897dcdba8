/**
 * Every turn a checkpoint (SPEC §20) on a real server, the real CLI and real git repositories:
 * a stand-in agent started `--kind generic` edits files on each prompt
 * (test/fixtures/programs/edit-agent.mjs). Each turn gets a checkpoint; a turn's diff names
 * exactly its files; a rewind restores changed, deleted and created files, keeps ignored files
 * and the user's staged index, and can itself be rewound; it is refused while the agent works;
 * a person's prompt (keys into the pane) counts; nothing of the user's git state moves (HEAD,
 * index, stash, branches, HEAD's reflog), in the middle of a merge too; `keep` drops the
 * oldest; the list outlives a restart; discarding a worktree removes its agent's refs.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer, type CliResult } from './harness.js';
import { GIT_TEST_ENV } from '../unit/support/git-repo.js';

const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'edit-agent.mjs');

function checkpointServer(config?: string): TestServer {
  const server = new TestServer({ scripting: true, config });
  Object.assign(server.env, GIT_TEST_ENV);
  return server;
}

/** A repository with tracked files, an ignored file, a staged change, a stash entry and a second branch. */
function makeRepo(server: TestServer, name = 'repo') {
  const repo = join(server.home, name);
  mkdirSync(repo, { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'a.txt'), 'a original\n');
  writeFileSync(join(repo, 'b.txt'), 'b original\n');
  writeFileSync(join(repo, 'staged.txt'), 'staged original\n');
  writeFileSync(join(repo, '.gitignore'), '*.log\n');
  git('add', '--all');
  git('commit', '-q', '-m', 'initial');
  git('branch', 'feature');
  writeFileSync(join(repo, 'stashed.txt'), 'x\n');
  git('add', 'stashed.txt');
  git('stash', 'push', '-q', '-m', 'users stash');
  writeFileSync(join(repo, 'keep.log'), 'an ignored file\n');
  writeFileSync(join(repo, 'staged.txt'), 'staged by the user\n');
  git('add', 'staged.txt');
  return { repo, git };
}

/** Everything of the user's git state a checkpoint or a rewind must leave alone. */
function gitState(git: (...args: string[]) => string) {
  return {
    head: git('rev-parse', 'HEAD'),
    index: git('ls-files', '-s', '--stage'),
    cached: git('diff', '--cached'),
    stash: git('stash', 'list'),
    branches: git('for-each-ref', 'refs/heads', 'refs/tags'),
    reflog: git('reflog', 'HEAD'),
  };
}

function read(repo: string, file: string): string | null {
  return existsSync(join(repo, file)) ? readFileSync(join(repo, file), 'utf8') : null;
}

function errorOf(result: CliResult): { code: string; message: string } {
  return JSON.parse(result.stderr).error;
}

describe('checkpoints of a stand-in agent editing a repository', { timeout: 120_000 }, () => {
  let server: TestServer;
  let repo: string;
  let git: (...args: string[]) => string;
  let pane: string;
  let before: ReturnType<typeof gitState>;

  const prompt = (text: string) => server.json(['agent', 'prompt', 'ed', text, '--wait', '--timeout', '30000']);
  const checkpoints = async () => (await server.json(['agent', 'checkpoints', 'ed', '--json'])).checkpoints as { id: number; turn: number; reason: string; prompt: string; ms: number; commit: string }[];

  beforeAll(async () => {
    server = await checkpointServer().start();
    ({ repo, git } = makeRepo(server));
    before = gitState(git);
    pane = (await server.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id;
    await server.json(['agent', 'start', 'ed', '--kind', 'generic', '--pane', pane, '--', 'node', AGENT]);
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('takes a checkpoint before each turn, and a turn diff names exactly its files', async () => {
    await prompt('WRITE a.txt a from turn one ;; WRITE new.txt created ;; DELETE b.txt');
    await prompt('APPEND a.txt more ;; WRITE noise.log ignored output');
    expect(read(repo, 'b.txt')).toBeNull();
    const list = await checkpoints();
    expect(list.map((c) => [c.id, c.turn, c.reason])).toEqual([
      [1, 1, 'turn'],
      [2, 2, 'turn'],
    ]);
    expect(list[0]!.prompt).toBe('WRITE a.txt a from turn one ;; WRITE new.txt created ;; DELETE b.txt');
    expect(list.every((c) => c.ms >= 0 && /^[0-9a-f]{40}$/.test(c.commit))).toBe(true);
    // The checkpoint holds the files as they were before the turn: the user's staged version included.
    expect(git('show', `${list[0]!.commit}:a.txt`)).toBe('a original\n');
    expect(git('show', `${list[0]!.commit}:staged.txt`)).toBe('staged by the user\n');
    expect(git('for-each-ref', '--format=%(refname)', 'refs/corral/').trim().split('\n')).toEqual(['refs/corral/checkpoints/ed/1', 'refs/corral/checkpoints/ed/2']);

    const one = await server.cli(['agent', 'diff', 'ed', '--turn', '1', '--name-only']);
    expect(one.stdout.trim().split('\n').sort()).toEqual(['a.txt', 'b.txt', 'new.txt']);
    const oneJson = await server.json(['agent', 'diff', 'ed', '--turn', '1', '--json']);
    expect(oneJson).toMatchObject({ agent: 'ed', turn: 1, from: 1, to: 2 });
    expect(Object.fromEntries(oneJson.files.map((f: { path: string; status: string }) => [f.path, f.status]))).toEqual({ 'a.txt': 'modified', 'b.txt': 'deleted', 'new.txt': 'added' });
    expect(oneJson.patch).toContain('+a from turn one');
    // The current turn is compared with the files now; the ignored file is in no diff.
    const two = await server.json(['agent', 'diff', 'ed', '--turn', '2', '--json']);
    expect(two).toMatchObject({ turn: 2, from: 2, to: null });
    expect(two.files.map((f: { path: string }) => f.path)).toEqual(['a.txt']);
    const missing = await server.cli(['agent', 'diff', 'ed', '--turn', '9']);
    expect(missing.code).toBe(3);
    expect(errorOf(missing)).toMatchObject({ code: 'checkpoint_not_found', message: expect.stringContaining('its turns here are 1–2') });
    expect(gitState(git)).toEqual(before);
  });

  it('rewinds: changed, deleted and created files put back; ignored files and the staged index kept; undoable', async () => {
    const afterTurns = { a: read(repo, 'a.txt'), created: read(repo, 'new.txt') };
    const rewound = await server.json(['agent', 'rewind', 'ed', '--to', '1', '--yes', '--json']);
    expect(rewound).toMatchObject({ agent: 'ed', rewound_to: 1, checkpoint: { id: 3, turn: 2, reason: 'rewind' } });
    expect(rewound.files.map((f: { path: string }) => f.path).sort()).toEqual(['a.txt', 'b.txt', 'new.txt']);
    expect(read(repo, 'a.txt')).toBe('a original\n');
    expect(read(repo, 'b.txt')).toBe('b original\n');
    expect(read(repo, 'new.txt')).toBeNull();
    expect(read(repo, 'keep.log')).toBe('an ignored file\n');
    expect(read(repo, 'noise.log')).toBe('ignored output\n');
    expect(read(repo, 'staged.txt')).toBe('staged by the user\n');
    expect(gitState(git)).toEqual(before);

    // The rewind's own checkpoint undoes it.
    const text = await server.cli(['agent', 'rewind', 'ed', '--to', '3', '--yes']);
    expect(text.stdout).toMatch(/^ed rewound to checkpoint 3: 3 files put back; undo with: corral agent rewind ed --to 4\n$/);
    expect(read(repo, 'a.txt')).toBe(afterTurns.a);
    expect(read(repo, 'new.txt')).toBe(afterTurns.created);
    expect(read(repo, 'b.txt')).toBeNull();
    expect(gitState(git)).toEqual(before);
  });

  it('is refused while the agent works, and asks first without --yes', async () => {
    await server.json(['agent', 'prompt', 'ed', 'SLOW 1500', '--wait', '--until', 'working', '--timeout', '10000']);
    const busy = await server.cli(['agent', 'rewind', 'ed', '--to', '1', '--yes']);
    expect(busy.code).not.toBe(0);
    expect(errorOf(busy)).toMatchObject({ code: 'agent_busy' });
    await server.json(['agent', 'wait', 'ed', '--until', 'done', '--until', 'idle', '--timeout', '20000']);
    const unasked = await server.cli(['agent', 'rewind', 'ed', '--to', '1']);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toContain('pass --yes');
    expect(read(repo, 'b.txt')).toBeNull();
  });

  it("counts a person's prompt typed into the pane", async () => {
    const count = (await checkpoints()).length;
    await server.json(['pane', 'send-text', pane, 'WRITE typed.txt by a person']);
    await server.json(['pane', 'send-keys', pane, 'enter']);
    // Kept once the agent is seen working on it.
    await expect.poll(async () => (await checkpoints()).length, { timeout: 10_000 }).toBe(count + 1);
    await expect.poll(() => read(repo, 'typed.txt'), { timeout: 10_000 }).toBe('by a person\n');
    await server.json(['agent', 'wait', 'ed', '--until', 'done', '--until', 'idle', '--timeout', '20000']);
    const last = (await checkpoints()).at(-1)!;
    expect(last).toMatchObject({ reason: 'turn', prompt: 'WRITE typed.txt by a person' });
    expect(git('ls-tree', '--name-only', last.commit)).not.toContain('typed.txt');
    expect(read(repo, 'typed.txt')).toBe('by a person\n');
  });

  it('leaves out an untracked file over 16 MiB, names it, and a rewind leaves it be', async () => {
    writeFileSync(join(repo, 'big.bin'), Buffer.alloc(17 * 1024 * 1024, 7));
    await prompt('WRITE small.txt next to a big file');
    const last = (await checkpoints()).at(-1)! as { commit: string; left_out?: string[]; id: number };
    expect(last.left_out).toEqual(['big.bin']);
    expect(git('ls-tree', '--name-only', last.commit)).not.toContain('big.bin');
    await server.cli(['agent', 'rewind', 'ed', '--to', String(last.id), '--yes']);
    expect(read(repo, 'small.txt')).toBeNull();
    expect(existsSync(join(repo, 'big.bin'))).toBe(true);
  });

  it('checkpoints a repository in the middle of a merge without touching it', async () => {
    git('checkout', '-q', 'feature');
    writeFileSync(join(repo, 'conflict.txt'), 'feature side\n');
    git('add', 'conflict.txt');
    git('commit', '-q', '-m', 'feature side');
    git('checkout', '-q', 'main');
    // The user's staged change rides along; the merge conflicts on conflict.txt.
    writeFileSync(join(repo, 'conflict.txt'), 'main side\n');
    git('add', 'conflict.txt');
    git('commit', '-q', '-m', 'main side');
    try {
      git('merge', '-q', 'feature');
    } catch {
      // the conflict is the point
    }
    expect(existsSync(join(repo, '.git', 'MERGE_HEAD'))).toBe(true);
    const mid = gitState(git);
    const unmerged = git('ls-files', '-u');
    expect(unmerged).not.toBe('');
    await prompt('WRITE during-merge.txt x');
    const last = (await checkpoints()).at(-1)!;
    expect(git('show', `${last.commit}:conflict.txt`)).toContain('<<<<<<<');
    expect(gitState(git)).toEqual(mid);
    expect(git('ls-files', '-u')).toBe(unmerged);
    expect(existsSync(join(repo, '.git', 'MERGE_HEAD'))).toBe(true);
    git('merge', '--abort');
  });

  it('keeps the list across a restart: the same agent name in the same checkout', async () => {
    const list = await checkpoints();
    await server.halt();
    await server.start();
    pane = (await server.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id;
    await server.json(['agent', 'start', 'ed', '--kind', 'generic', '--pane', pane, '--', 'node', AGENT]);
    expect((await checkpoints()).map((c) => c.id)).toEqual(list.map((c) => c.id));
    await prompt('WRITE after-restart.txt x');
    const now = await checkpoints();
    expect(now.at(-1)).toMatchObject({ id: list.at(-1)!.id + 1, turn: list.at(-1)!.turn + 1, reason: 'turn' });
  });
});

describe('checkpoint clean-up', { timeout: 120_000 }, () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await checkpointServer('[checkpoints]\nkeep = 2\n').start();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('keeps the newest `keep` per agent, and discarding a worktree removes its agent\u2019s refs', async () => {
    const { repo, git } = makeRepo(server, 'kept');
    const made = (await server.json(['workspace', 'create', '--cwd', repo, '--worktree', 'cp-wt'])).result;
    const wtPane = made.root_pane.pane_id;
    await server.json(['agent', 'start', 'wt', '--kind', 'generic', '--pane', wtPane, '--', 'node', AGENT]);
    for (const n of [1, 2, 3]) await server.json(['agent', 'prompt', 'wt', `WRITE f${n}.txt ${n}`, '--wait', '--timeout', '30000']);
    const refs = () => git('for-each-ref', '--format=%(refname)', 'refs/corral/').trim();
    expect(refs().split('\n')).toEqual(['refs/corral/checkpoints/wt/2', 'refs/corral/checkpoints/wt/3']);
    await server.json(['workspace', 'close', made.workspace.workspace_id]);
    const discarded = await server.cli(['worktree', 'discard', 'cp-wt', '--yes']);
    expect(discarded.code, discarded.stderr).toBe(0);
    expect(refs()).toBe('');
  });
});
