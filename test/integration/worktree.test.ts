/**
 * A worktree per agent (SPEC §15) on a real server, the real CLI and real git repositories:
 * two agents started in parallel in worktrees of one repository (indexes 1 and 2, `.env`
 * copied, the setup's environment), each one's changes in its own diff only, a restart that
 * puts each agent back in its worktree, one merge that goes in and one that conflicts and
 * leaves the main checkout exactly as it was, prune and discard that never take unmerged work
 * or a directory something runs in, the refusals that create nothing, setups that fail or
 * time out, `up` files, and the gate: merge, discard and forced prune from inside a pane.
 *
 * The agent is a stand-in installed as `claude` (test/fixtures/programs/worktree-agent.mjs).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer, type CliResult, type RawClient } from './harness.js';
import { GIT_TEST_ENV } from '../unit/support/git-repo.js';
import { processesInside } from '../../src/worktree/busy.js';

const PROMPT = 'wt$';
const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'worktree-agent.mjs');

/** A server whose panes run bash with PROMPT, the stand-in as `claude`, and a git identity. */
function worktreeServer(opts: { scripting?: boolean; config?: string } = {}): TestServer {
  const server = new TestServer({ scripting: opts.scripting, config: opts.config });
  writeFileSync(join(server.home, '.bashrc'), `PS1='${PROMPT} '\n`);
  const bin = join(server.dir, 'bin');
  mkdirSync(bin);
  symlinkSync(AGENT, join(bin, 'claude'));
  Object.assign(server.env, GIT_TEST_ENV, { PATH: `${bin}:${server.env.PATH}` });
  return server;
}

/** A repository with a tracked shared file, an ignored `.env` named by `.worktreeinclude`, and a setup script. */
function makeRepo(server: TestServer, name = 'repo'): { repo: string; git: (...args: string[]) => string } {
  const repo = join(server.home, name);
  mkdirSync(join(repo, '.corral'), { recursive: true });
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'shared.txt'), 'base line\n');
  writeFileSync(join(repo, '.gitignore'), '.env\n');
  writeFileSync(join(repo, '.worktreeinclude'), '.env\n');
  // The setup writes what it was given next to the repository, where no diff sees it.
  writeFileSync(
    join(repo, '.corral', 'worktree-setup'),
    '#!/bin/sh\necho "setting up $CORRAL_BRANCH"\nenv | grep ^CORRAL_ | sort > "$CORRAL_MAIN_REPO/../setup-$(basename "$CORRAL_WORKTREE_PATH").env"\n' +
      'ls -l /proc/$$/fd > "$CORRAL_MAIN_REPO/../setup-$(basename "$CORRAL_WORKTREE_PATH").fds"\n',
    { mode: 0o755 },
  );
  git('add', '--all');
  git('commit', '-q', '-m', 'initial');
  writeFileSync(join(repo, '.env'), 'TOKEN=secret\n');
  return { repo, git };
}

function errorOf(result: CliResult): { code: string; message: string } {
  return JSON.parse(result.stderr).error;
}

/** HEAD, index and status of a checkout, and the bytes of its files: what "unchanged" compares. */
function snapshot(git: (...args: string[]) => string, repo: string, files: string[]) {
  return {
    head: git('rev-parse', 'HEAD'),
    index: git('ls-files', '-s'),
    status: git('status', '--porcelain=v1', '--untracked-files=all'),
    files: files.map((f) => readFileSync(join(repo, f), 'utf8')),
  };
}

describe('two agents, each in its own worktree of one repository', { timeout: 120_000 }, () => {
  let server: TestServer;
  let repo: string;
  let git: (...args: string[]) => string;
  let paths: Record<string, string>;
  let panes: Record<string, string>;

  beforeAll(async () => {
    server = await worktreeServer({ scripting: true }).start();
    ({ repo, git } = makeRepo(server));
    const root = (await server.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id;
    const second = (await server.json(['pane', 'split', root, '--direction', 'right'])).result.pane.pane_id;
    panes = { alpha: root, beta: second };
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('start in parallel: indexes 1 and 2, .env copied, the setup ran with its environment and showed in the pane', async () => {
    const started = await Promise.all(
      (['alpha', 'beta'] as const).map((name) => server.json(['agent', 'start', name, '--kind', 'claude', '--pane', panes[name]!, '--worktree', '--timeout', '30000'])),
    );
    const worktrees = started.map((s) => s.result.worktree);
    expect(worktrees.map((w) => w.index).sort()).toEqual([1, 2]);
    expect(worktrees.map((w) => w.branch)).toEqual(['corral/alpha', 'corral/beta']);
    paths = { alpha: worktrees[0].path, beta: worktrees[1].path };
    for (const [i, name] of (['alpha', 'beta'] as const).entries()) {
      const w = worktrees[i];
      expect(w).toMatchObject({ name, repo, base: git('rev-parse', 'HEAD').trim(), include: { copied: ['.env'], skipped: [] }, setup: { status: 'ok', exit_code: 0 } });
      expect(readFileSync(join(w.path, '.env'), 'utf8')).toBe('TOKEN=secret\n');
      const env = readFileSync(join(server.home, `setup-${name}.env`), 'utf8');
      expect(env).toBe(
        [`CORRAL_BASE=${w.base}`, `CORRAL_BRANCH=corral/${name}`, `CORRAL_MAIN_REPO=${repo}`, `CORRAL_WORKTREE_INDEX=${w.index}`, `CORRAL_WORKTREE_PATH=${w.path}`, ''].join('\n'),
      );
      // The setup held no pane's terminal (SPEC §8): it started through the panes' fd-closing step.
      const fds = readFileSync(join(server.home, `setup-${name}.fds`), 'utf8');
      expect(fds).not.toMatch(/ptmx|\/dev\/pts/);
      const agent = (await server.json(['agent', 'get', name])).result.agent;
      expect(agent.cwd).toBe(w.path);
      expect(agent.worktree).toMatchObject({ name, branch: `corral/${name}` });
      const screen = (await server.cli(['pane', 'read', panes[name]!, '--lines', '40', '--source', 'recent-unwrapped'])).stdout;
      expect(screen).toMatch(new RegExp(`── worktree ${name}: setup ──\nsetting up corral\/${name}\n── setup done`));
      expect(screen).toContain(`FAKE-AGENT cwd=${w.path}`);
    }
    const list = (await server.json(['worktree', 'list', '--json'])).worktrees;
    expect(list.map((w: any) => [w.name, w.agent, w.panes])).toEqual([
      ['alpha', 'alpha', [panes.alpha]],
      ['beta', 'beta', [panes.beta]],
    ]);
  });

  it('each worktree\u2019s changes show in its own diff only: committed, unstaged and untracked', async () => {
    // alpha: a commit on its branch, an unstaged edit, an untracked file — made by the agent itself for one of them.
    writeFileSync(join(paths.alpha!, 'shared.txt'), 'alpha line\n');
    execFileSync('git', ['-C', paths.alpha!, 'commit', '-q', '-am', 'alpha edits shared'], { env: { ...process.env, ...GIT_TEST_ENV } });
    writeFileSync(join(paths.alpha!, 'notes.md'), 'alpha notes\n');
    await server.json(['agent', 'prompt', 'alpha', 'EDIT scratch.txt from alpha', '--wait', '--timeout', '20000']);
    // beta: the same file, differently, left uncommitted.
    writeFileSync(join(paths.beta!, 'shared.txt'), 'beta line\n');
    writeFileSync(join(paths.beta!, 'beta-only.txt'), 'b\n');

    const alpha = JSON.parse((await server.cli(['agent', 'diff', 'alpha', '--json'])).stdout);
    expect(alpha.files).toEqual([
      { path: 'notes.md', status: 'untracked', added: 1, removed: 0 },
      { path: 'scratch.txt', status: 'untracked', added: 1, removed: 0 },
      { path: 'shared.txt', status: 'modified', added: 1, removed: 1 },
    ]);
    const beta = JSON.parse((await server.cli(['worktree', 'diff', 'beta', '--json'])).stdout);
    expect(beta.files.map((f: any) => f.path)).toEqual(['beta-only.txt', 'shared.txt']);
    expect(beta.patch).toContain('+beta line');
    expect(beta.patch).not.toContain('alpha');
    // Piped: plain text, no colour.
    const plain = await server.cli(['worktree', 'diff', 'alpha']);
    expect(plain.stdout).toContain('+alpha line');
    expect(plain.stdout).not.toContain('\x1b[');
    expect((await server.cli(['worktree', 'diff', 'alpha', '--name-only'])).stdout).toBe('notes.md\nscratch.txt\nshared.txt\n');
    expect((await server.cli(['worktree', 'diff', 'alpha', '--stat'])).stdout).toContain('3 files changed, +3 \u22121');
    // The agent settled after its turn: its worktree's size was counted again, from that event alone.
    await expect.poll(async () => (await server.json(['agent', 'get', 'alpha'])).result.agent.worktree, { timeout: 10_000 }).toMatchObject({ added: 3, removed: 1 });
  });

  it('a restart puts each agent back in its worktree', async () => {
    await server.halt('SIGTERM');
    await server.start();
    for (const name of ['alpha', 'beta']) {
      await server.json(['pane', 'wait-output', panes[name]!, '--match', `FAKE-AGENT cwd=${paths[name]} args=["--resume","sess-${name}"]`, '--timeout', '20000']);
      await expect.poll(async () => (await server.cli(['agent', 'get', name])).code, { timeout: 20_000 }).toBe(0);
      const agent = (await server.json(['agent', 'get', name])).result.agent;
      expect(agent).toMatchObject({ cwd: paths[name], worktree: { name, branch: `corral/${name}` } });
    }
  });

  it('merging alpha goes in; merging beta conflicts, merges nothing and leaves the main checkout as it was', async () => {
    const merged = await server.cli(['worktree', 'merge', 'alpha']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(merged.stdout).toMatch(/committed its uncommitted work as [0-9a-f]{12}; corral\/alpha merged into main/);
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('alpha line\n');
    expect(readFileSync(join(repo, 'scratch.txt'), 'utf8')).toBe('from alpha\n');

    writeFileSync(join(repo, 'untracked-in-main.txt'), 'keep\n');
    const before = snapshot(git, repo, ['shared.txt', 'untracked-in-main.txt', '.env']);
    const conflict = await server.cli(['agent', 'merge', 'beta']);
    expect(conflict.code).toBe(1);
    const error = errorOf(conflict);
    expect(error.code).toBe('merge_conflict');
    expect(error.message).toContain('shared.txt');
    expect(snapshot(git, repo, ['shared.txt', 'untracked-in-main.txt', '.env'])).toEqual(before);
    // beta's own work was committed on its branch: nothing of it is lost.
    expect(execFileSync('git', ['-C', paths.beta!, 'show', 'HEAD:beta-only.txt'], { encoding: 'utf8' })).toBe('b\n');

    // A dirty main checkout is refused before anything happens.
    writeFileSync(join(repo, 'shared.txt'), 'edited in main\n');
    expect(errorOf(await server.cli(['worktree', 'merge', 'beta'])).code).toBe('main_checkout_dirty');
    git('checkout', '--', 'shared.txt');
  });

  it('prune keeps unmerged and busy worktrees, removes a merged idle one; discard asks and refuses while busy', async () => {
    const gamma = (await server.json(['workspace', 'create', '--cwd', repo, '--worktree', 'gamma', '--no-focus'])).result;
    expect(gamma.workspace.label).toBe('gamma');
    await server.json(['workspace', 'close', gamma.workspace.workspace_id]);
    await expect.poll(() => processesInside(gamma.worktree.path).length, { timeout: 10_000 }).toBe(0);

    const dry = JSON.parse((await server.cli(['worktree', 'prune', '--dry-run', '--json'])).stdout);
    expect(dry.removed).toEqual(['gamma']);
    expect(Object.fromEntries(dry.kept.map((k: any) => [k.name, k.reasons.join('; ')]))).toEqual({
      alpha: `pane ${panes.alpha} works in it`,
      beta: `pane ${panes.beta} works in it; its branch corral/beta has work not merged into repo's checked-out branch`,
    });
    expect(existsSync(gamma.worktree.path)).toBe(true);
    expect((await server.cli(['worktree', 'prune'])).stdout).toContain('removed gamma');
    expect(existsSync(gamma.worktree.path)).toBe(false);
    expect(git('branch', '--list', 'corral/gamma')).toBe('');

    // --force takes unmerged work, never a directory something runs in.
    const forced = JSON.parse((await server.cli(['worktree', 'prune', '--force', '--json'])).stdout);
    expect(forced.removed).toEqual([]);

    const asked = await server.cli(['worktree', 'discard', 'beta']);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('pass --yes');
    const busy = await server.cli(['worktree', 'discard', 'beta', '--yes']);
    expect(errorOf(busy).code).toBe('worktree_busy');
    expect(existsSync(paths.beta!)).toBe(true);

    await server.json(['pane', 'close', panes.beta!]);
    await expect.poll(() => processesInside(paths.beta!).length, { timeout: 10_000 }).toBe(0);
    const gone = await server.cli(['worktree', 'discard', 'beta', '--yes']);
    expect(gone.code, gone.stderr).toBe(0);
    expect(existsSync(paths.beta!)).toBe(false);
    expect(git('branch', '--list', 'corral/beta')).toBe('');
    expect((await server.json(['worktree', 'list', '--json'])).worktrees.map((w: any) => w.name)).toEqual(['alpha']);
  });
});

describe('one server, gate closed: refusals, setups, hooks, up files and the gate', { timeout: 120_000 }, () => {
  let server: TestServer;
  let client: RawClient;
  let repo: string;
  let git: (...args: string[]) => string;
  /** Markers beside the repository that make the configured setup fail or hang. */
  const marker = (name: 'fail' | 'slow') => join(server.home, name);

  beforeAll(async () => {
    server = await worktreeServer({
      config: '[worktree]\nsetup = "echo setup for $CORRAL_BRANCH; [ -e ~/slow ] && sleep 30; [ ! -e ~/fail ] || exit 3"\nsetup_timeout_secs = 2\n',
    }).start();
    client = await server.connect();
    ({ repo, git } = makeRepo(server));
  });
  afterAll(async () => {
    client?.close();
    await server?.stop();
  });

  it('a refusal creates nothing: not a repository, a bad name, a name or branch that exists, a base that names nothing', async () => {
    const plain = join(server.home, 'plain');
    mkdirSync(plain);
    const workspacesBefore = (await client.call('workspace.list', {})).workspaces.length;
    const cases: [string[], string, number][] = [
      [['--cwd', plain, '--worktree', 'x'], 'not_a_git_repo', 1],
      [['--cwd', repo, '--worktree', 'Bad_Name'], 'invalid_worktree_name', 1],
      [['--cwd', repo, '--worktree', 'x', '--base', 'nope'], 'ref_not_found', 1],
      [['--cwd', repo, '--worktree', 'x', '--branch', 'main'], 'worktree_exists', 1],
      [['--cwd', repo, '--worktree', 'x', '--branch', 'bad..name'], 'invalid_params', 2],
    ];
    for (const [args, code, exit] of cases) {
      const result = await server.cli(['workspace', 'create', ...args]);
      expect([result.code, errorOf(result).code], args.join(' ')).toEqual([exit, code]);
    }
    expect((await server.cli(['workspace', 'create', '--cwd', repo, '--branch', 'b'])).code).toBe(2);
    expect((await client.call('workspace.list', {})).workspaces.length).toBe(workspacesBefore);
    expect((await client.call('worktree.list', {})).worktrees).toEqual([]);
    expect(git('branch', '--list', '--format=%(refname:short)').trim()).toBe('main');
    const missing = await server.cli(['worktree', 'diff', 'nothing']);
    expect([missing.code, errorOf(missing).code]).toEqual([3, 'worktree_not_found']);
  });

  it('[worktree] setup (a command in config) runs instead of the repository\u2019s script; a failure stops the agent unless --keep-going; a timeout is stopped', async () => {
    const pane = (await client.call('workspace.create', { cwd: repo })).root_pane.pane_id;
    const started = await server.cli(['agent', 'start', 'configured', '--kind', 'claude', '--pane', pane, '--worktree']);
    expect(started.code, started.stderr).toBe(0);
    const setup = JSON.parse(started.stdout).result.worktree.setup;
    expect(setup).toMatchObject({ command: expect.stringMatching(/^echo setup for/), status: 'ok', output_tail: 'setup for corral/configured\n' });
    expect(existsSync(join(server.home, 'setup-configured.env'))).toBe(false);
    expect((await client.call('pane.read', { pane_id: pane, source: 'recent-unwrapped', lines: 60 })).read.text).toContain('setup for corral/configured');

    writeFileSync(marker('fail'), '');
    try {
      const second = (await client.call('pane.split', { pane_id: pane, direction: 'down' })).pane.pane_id;
      const failed = await server.cli(['agent', 'start', 'one', '--kind', 'claude', '--pane', second, '--worktree']);
      expect(errorOf(failed)).toMatchObject({ code: 'worktree_setup_failed', message: expect.stringContaining('failed (exit 3)') });
      // No agent by that name: it was never started.
      expect((await client.request('agent.get', { target: 'one' })).error.data.code).toBe('target_not_found');
      expect((await client.call('worktree.list', {})).worktrees.map((w: any) => w.name)).toContain('one');
      expect((await client.call('pane.read', { pane_id: second, source: 'recent-unwrapped', lines: 40 })).read.text).toMatch(/setup for corral\/one\n── setup failed \(exit 3\)/);
      const third = (await client.call('pane.split', { pane_id: second, direction: 'right' })).pane.pane_id;
      const kept = await server.cli(['agent', 'start', 'two', '--kind', 'claude', '--pane', third, '--worktree', '--keep-going']);
      expect(kept.code, kept.stderr).toBe(0);
      expect(JSON.parse(kept.stdout).result.worktree.setup.status).toBe('failed');
    } finally {
      rmSync(marker('fail'));
    }

    writeFileSync(marker('slow'), '');
    try {
      const started2 = Date.now();
      const slow = await server.cli(['workspace', 'create', '--cwd', repo, '--worktree', 'slow', '--no-focus']);
      expect(errorOf(slow).message).toContain('did not finish within setup_timeout_secs');
      expect(Date.now() - started2).toBeLessThan(15_000);
    } finally {
      rmSync(marker('slow'));
    }
  });

  it('a hook of the repository that git runs while making a worktree holds no pane\u2019s terminal', async () => {
    const record = join(server.home, 'hook.fds');
    writeFileSync(join(repo, '.git', 'hooks', 'post-checkout'), `#!/bin/sh\nls -l /proc/$$/fd > '${record}'\n`, { mode: 0o755 });
    // A pane whose terminal's master the server holds while git runs.
    await client.call('workspace.create', { cwd: server.home, focus: false });
    try {
      await client.call('workspace.create', { cwd: repo, worktree: 'hooked', focus: false });
      const fds = readFileSync(record, 'utf8');
      expect(fds).toContain('0 ->');
      expect(fds).not.toMatch(/ptmx|\/dev\/pts/);
    } finally {
      rmSync(join(repo, '.git', 'hooks', 'post-checkout'));
    }
  });

  it('up files take worktree = "NAME": the pane starts in it after its setup', async () => {
    const file = join(server.dir, 'up.toml');
    writeFileSync(file, `name = "upped"\n[[panes]]\ncwd = "${repo}"\nworktree = "from-up"\ncommand = "echo ran-in-$PWD"\n[[panes]]\ncwd = "${repo}"\n`);
    const up = await server.cli(['up', file, '--json']);
    expect(up.code, up.stderr).toBe(0);
    const out = JSON.parse(up.stdout).result;
    expect(out.worktrees.map((w: any) => [w.name, w.setup.status])).toEqual([['from-up', 'ok']]);
    await client.call('pane.wait_for_output', { pane_id: out.panes[0].pane_id, match: { type: 'substring', value: `ran-in-${out.worktrees[0].path}` }, timeout_ms: 10_000 });
    expect(out.panes[1].cwd).toBe(repo);
    // A second up with the same worktree name is refused before any pane is made.
    const panesBefore = (await client.call('pane.list', {})).panes.length;
    expect(errorOf(await server.cli(['up', file])).code).toBe('worktree_exists');
    expect((await client.call('pane.list', {})).panes.length).toBe(panesBefore);
  });

  it('the gate: merge, discard and a forced prune from inside a pane are refused, a plain prune is not; from outside, merge works', async () => {
    const made = await client.call('workspace.create', { cwd: repo, worktree: 'inner' });
    writeFileSync(join(made.worktree.path, 'work.txt'), 'agent work\n');
    // An `up` pane's command runs in a pane without the gate (SPEC §8): the attacker's shell.
    const file = join(server.dir, 'attack.toml');
    const out = join(server.dir, 'attack.out');
    writeFileSync(
      file,
      `[[panes]]\ncwd = "${server.home}"\ncommand = "for v in 'worktree merge inner' 'worktree discard inner --yes' 'worktree prune --force' 'worktree prune --dry-run'; do corral $v >> ${out} 2>&1; echo \\"exit=$?\\" >> ${out}; done; echo ATTACK-$((6*7))-DONE"\n`,
    );
    const up = JSON.parse((await server.cli(['up', file, '--json'])).stdout).result;
    await client.call('pane.wait_for_output', { pane_id: up.panes[0].pane_id, source: 'recent-unwrapped', match: { type: 'substring', value: 'ATTACK-42-DONE' }, timeout_ms: 30_000 });
    const lines = readFileSync(out, 'utf8');
    expect(lines.match(/"code":"scripting_disabled"/g)).toHaveLength(3);
    expect(lines).toContain('from inside pane');
    expect(lines.match(/exit=1/g)).toHaveLength(3);
    expect(lines).toMatch(/kept inner: pane .* works in it[^\n]*\n(kept [^\n]*\n)*exit=0/);
    // Nothing changed: the work is still only in the worktree.
    expect(existsSync(join(repo, 'work.txt'))).toBe(false);
    expect(existsSync(join(made.worktree.path, 'work.txt'))).toBe(true);
    // The person's own terminal (this test, outside every pane) may.
    const merged = await server.cli(['worktree', 'merge', 'inner', '--squash', '--message', 'inner work']);
    expect(merged.code, merged.stderr).toBe(0);
    expect(git('log', '-1', '--format=%s').trim()).toBe('inner work');
    expect(readFileSync(join(repo, 'work.txt'), 'utf8')).toBe('agent work\n');
  });
});
