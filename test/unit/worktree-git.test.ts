/**
 * src/worktree/ against real git in temporary repositories (SPEC §15): creation and its
 * refusals, `.worktreeinclude`, the diff (committed, staged, unstaged, untracked), merges in
 * three modes, a conflict that leaves the main checkout unchanged, removal, and the paths
 * that must never go through a planted symbolic link.
 */
import { existsSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Worktrees } from '../../src/worktree/worktrees.js';
import { parseRawNumstat } from '../../src/worktree/diff.js';
import { porcelainPaths } from '../../src/worktree/repo.js';
import { processesInside } from '../../src/worktree/busy.js';
import { ScratchRepo } from './support/git-repo.js';

const CONFIG = { root: '', setup: '', setup_timeout_secs: 300 };
let scratch: ScratchRepo | null = null;
afterEach(() => {
  scratch?.remove();
  scratch = null;
});

function setUp(files?: Record<string, string>, config = CONFIG): { s: ScratchRepo; wt: Worktrees } {
  scratch = new ScratchRepo(files);
  return { s: scratch, wt: new Worktrees(config, scratch.env) };
}

const codeOf = async (promise: Promise<unknown>): Promise<string | null> =>
  promise.then(
    () => null,
    (error: { code?: string }) => error.code ?? String(error),
  );

describe('creating a worktree', () => {
  it('makes <root>/<name> on branch corral/<name> from HEAD, with index 1 then 2, records owner-only', async () => {
    const { s, wt } = setUp();
    const a = await wt.create(s.repo, { name: 'alpha' });
    const b = await wt.create(path.join(s.repo), { name: 'beta', branch: 'feature/beta' });
    expect(a.record).toMatchObject({ name: 'alpha', repo: s.repo, branch: 'corral/alpha', index: 1, base: s.git(s.repo, 'rev-parse', 'HEAD').trim() });
    expect(b.record).toMatchObject({ branch: 'feature/beta', index: 2 });
    expect(path.dirname(a.record.path)).toMatch(new RegExp(`${s.dir}/data/corral/worktrees/repo-[0-9a-f]{8}$`));
    expect(s.git(a.record.path, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('corral/alpha');
    expect(readFileSync(path.join(a.record.path, 'README.md'), 'utf8')).toBe('hello\n');
    const registry = path.join(s.dir, 'state', 'corral', 'worktrees');
    expect(statSync(registry).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(registry, 'alpha.json')).mode & 0o777).toBe(0o600);
    // A freed index is given again.
    await wt.remove(a.record);
    expect((await wt.create(s.repo, { name: 'gamma' })).record.index).toBe(1);
  });

  it('parallel creations in one repository get distinct indexes', async () => {
    const { s, wt } = setUp();
    const made = await Promise.all(['p1', 'p2', 'p3'].map((name) => wt.create(s.repo, { name })));
    expect(made.map((m) => m.record.index).sort()).toEqual([1, 2, 3]);
  });

  it('refuses, creating nothing: not a repository, a bad name, a name, branch or path that exists, a base that names nothing', async () => {
    const { s, wt } = setUp();
    mkdirSync(path.join(s.dir, 'plain'));
    expect(await codeOf(wt.create(path.join(s.dir, 'plain'), { name: 'x' }))).toBe('not_a_git_repo');
    for (const bad of ['Upper', '-dash', '', 'a/b', 'x'.repeat(65), '..']) expect(await codeOf(wt.create(s.repo, { name: bad })), bad).toBe('invalid_worktree_name');
    expect(await codeOf(wt.create(s.repo, { name: 'x', branch: 'bad..branch' }))).toBe('invalid_params');
    expect(await codeOf(wt.create(s.repo, { name: 'x', branch: '-f' }))).toBe('invalid_params');
    expect(await codeOf(wt.create(s.repo, { name: 'x', base: 'no-such-ref' }))).toBe('ref_not_found');
    expect(await codeOf(wt.create(s.repo, { name: 'x', base: '--output=/tmp/pwned' }))).toBe('ref_not_found');
    s.git(s.repo, 'branch', 'corral/taken');
    expect(await codeOf(wt.create(s.repo, { name: 'taken' }))).toBe('worktree_exists');
    await wt.create(s.repo, { name: 'once' });
    expect(await codeOf(wt.create(s.repo, { name: 'once', branch: 'other' }))).toBe('worktree_exists');
    // Something planted where the next worktree would go: even a symbolic link is "in the way".
    const root = path.dirname((await wt.get('once')).path);
    symlinkSync(path.join(s.dir, 'plain'), path.join(root, 'planted'));
    expect(await codeOf(wt.create(s.repo, { name: 'planted' }))).toBe('worktree_exists');
    expect((await wt.records()).map((r) => r.name)).toEqual(['once']);
    expect(s.git(s.repo, 'branch', '--list', '--format=%(refname:short)', 'corral/*').trim().split('\n')).toEqual(['corral/once', 'corral/taken']);
  });

  it('starts from --base, and from inside a linked worktree belongs to the main checkout', async () => {
    const { s, wt } = setUp();
    const first = s.git(s.repo, 'rev-parse', 'HEAD').trim();
    s.write(s.repo, { 'next.txt': 'n\n' });
    s.commitAll(s.repo, 'next');
    const old = await wt.create(s.repo, { name: 'old', base: 'HEAD~1' });
    expect(old.record.base).toBe(first);
    expect(existsSync(path.join(old.record.path, 'next.txt'))).toBe(false);
    const nested = await wt.create(old.record.path, { name: 'nested' });
    expect(nested.record.repo).toBe(s.repo);
    expect(nested.record.base).toBe(first);
  });

  it('copies the ignored files .worktreeinclude names, where missing, never through a link', async () => {
    const { s, wt } = setUp({ '.gitignore': '.env\nsecrets/\n*.log\nlinked\n', '.worktreeinclude': '.env\nsecrets/\n*.local\nlinked\n', 'tracked.local': 't\n' });
    s.write(s.repo, { '.env': 'TOKEN=1\n', 'secrets/deep/key.json': '{}\n', 'debug.log': 'no\n', 'untracked.local': 'not ignored\n' });
    symlinkSync('/etc/hostname', path.join(s.repo, 'linked'));
    const { record, include } = await wt.create(s.repo, { name: 'inc' });
    expect(include.copied.sort()).toEqual(['.env', 'secrets/deep/key.json']);
    expect(include.skipped).toEqual([{ path: 'linked', why: 'a symbolic link in the main checkout' }]);
    expect(readFileSync(path.join(record.path, '.env'), 'utf8')).toBe('TOKEN=1\n');
    expect(existsSync(path.join(record.path, 'debug.log'))).toBe(false);
    expect(existsSync(path.join(record.path, 'untracked.local'))).toBe(false);
  });

  it('does not copy through a tracked symbolic link in the worktree', async () => {
    const { s, wt } = setUp({ '.gitignore': 'conf/\n', '.worktreeinclude': 'conf/\n' });
    mkdirSync(path.join(s.dir, 'outside'));
    // The branch tracks `conf` as a link out of the repository; main has a real, ignored conf/.
    symlinkSync(path.join(s.dir, 'outside'), path.join(s.repo, 'conf'));
    s.git(s.repo, 'add', '-f', 'conf');
    s.commitAll(s.repo, 'link');
    s.git(s.repo, 'rm', '-q', '--cached', 'conf');
    s.commitAll(s.repo, 'unlink');
    const linkCommit = s.git(s.repo, 'rev-parse', 'HEAD~1').trim();
    s.git(s.repo, 'rm', '-q', '--cached', '--ignore-unmatch', 'conf');
    await import('node:fs').then((fs) => fs.unlinkSync(path.join(s.repo, 'conf')));
    s.write(s.repo, { 'conf/secret.txt': 's\n' });
    const { include } = await wt.create(s.repo, { name: 'linky', base: linkCommit });
    expect(include.copied).toEqual([]);
    expect(include.skipped).toEqual([{ path: 'conf/secret.txt', why: 'conf is a symbolic link in the worktree' }]);
    expect(existsSync(path.join(s.dir, 'outside', 'secret.txt'))).toBe(false);
  });
});

describe('the diff against the base', () => {
  it('holds commits, staged, unstaged and untracked changes, with counts and a patch', async () => {
    const { s, wt } = setUp({ 'a.txt': 'one\ntwo\n', 'b.txt': 'bee\n', 'c.txt': 'sea\n' });
    const { record } = await wt.create(s.repo, { name: 'd' });
    s.write(record.path, { 'a.txt': 'one\ntwo\nthree\n' });
    s.commitAll(record.path, 'committed');
    s.write(record.path, { 'b.txt': 'bee\nstaged\n' });
    s.git(record.path, 'add', 'b.txt');
    s.write(record.path, { 'c.txt': 'changed\n', 'new dir/u.txt': 'u1\nu2\n' });
    const diff = await wt.diff(record, { patch: true });
    expect(diff.files).toEqual([
      { path: 'a.txt', status: 'modified', added: 1, removed: 0 },
      { path: 'b.txt', status: 'modified', added: 1, removed: 0 },
      { path: 'c.txt', status: 'modified', added: 1, removed: 1 },
      { path: 'new dir/u.txt', status: 'untracked', added: 2, removed: 0 },
    ]);
    expect([diff.added, diff.removed]).toEqual([5, 1]);
    expect(diff.patch).toContain('+three');
    expect(diff.patch).toContain('b/new dir/u.txt');
    // The worktree's own index was not touched: the untracked file is still untracked.
    expect(s.git(record.path, 'status', '--porcelain')).toContain('?? "new dir/"');
  });

  it('another worktree of the same repository shows none of it', async () => {
    const { s, wt } = setUp();
    const one = await wt.create(s.repo, { name: 'one' });
    const two = await wt.create(s.repo, { name: 'two' });
    s.write(one.record.path, { 'only-one.txt': 'x\n' });
    expect((await wt.diff(two.record, { patch: false })).files).toEqual([]);
    expect((await wt.diff(one.record, { patch: false })).files.map((f) => f.path)).toEqual(['only-one.txt']);
  });

  it('parses renames and binary files from raw + numstat', () => {
    const out = [':100644 100644 a b R090', 'old.txt', 'new.txt', ':000000 100644 0 c A', 'pic.png', '3\t1\t', 'old.txt', 'new.txt', '-\t-\tpic.png', ''].join('\0');
    expect(parseRawNumstat(out, new Set())).toEqual([
      { path: 'new.txt', old_path: 'old.txt', status: 'renamed', added: 3, removed: 1 },
      { path: 'pic.png', status: 'added', added: null, removed: null },
    ]);
    expect(porcelainPaths(['R  new', 'old', ' M a b', '?? c', ''].join('\0'))).toEqual(['new', 'a b', 'c']);
  });
});

describe('merging back', () => {
  it('commits uncommitted work, merges into the main checkout, and then counts as merged', async () => {
    const { s, wt } = setUp();
    const { record } = await wt.create(s.repo, { name: 'm' });
    s.write(record.path, { 'feature.txt': 'f\n' });
    expect(await wt.state(record)).toMatchObject({ dirty: true, merged: true, ahead: 0 });
    const merged = await wt.merge(record, { mode: 'merge' });
    expect(merged).toMatchObject({ worktree: 'm', into: 'main', mode: 'merge', up_to_date: false });
    expect(merged.committed).toMatch(/^[0-9a-f]{40}$/);
    expect(s.git(record.path, 'log', '-1', '--format=%s').trim()).toBe('corral: m');
    expect(readFileSync(path.join(s.repo, 'feature.txt'), 'utf8')).toBe('f\n');
    expect(await wt.state(record)).toMatchObject({ dirty: false, merged: true });
    expect((await wt.merge(record, { mode: 'merge' })).up_to_date).toBe(true);
  });

  it('a conflict leaves the main checkout unchanged (HEAD, index, files) and names the files', async () => {
    const { s, wt } = setUp({ 'shared.txt': 'base\n' });
    const { record } = await wt.create(s.repo, { name: 'c' });
    s.write(record.path, { 'shared.txt': 'theirs\n' });
    s.write(s.repo, { 'shared.txt': 'ours\n' });
    s.commitAll(s.repo, 'ours');
    s.write(s.repo, { 'scratch-untracked.txt': 'keep me\n' });
    const before = s.snapshot(s.repo);
    const error = await wt.merge(record, { mode: 'merge' }).catch((e: { code: string; data: { files: string[] } }) => e);
    expect(error).toMatchObject({ code: 'merge_conflict', data: { files: ['shared.txt'] } });
    expect(s.snapshot(s.repo)).toEqual(before);
    expect(readFileSync(path.join(s.repo, 'shared.txt'), 'utf8')).toBe('ours\n');
    expect(await wt.state(record)).toMatchObject({ merged: false, ahead: 1, behind: 1 });
  });

  it('refuses a dirty main checkout before committing anything in the worktree', async () => {
    const { s, wt } = setUp({ 'x.txt': 'x\n' });
    const { record } = await wt.create(s.repo, { name: 'dm' });
    s.write(record.path, { 'y.txt': 'y\n' });
    s.write(s.repo, { 'x.txt': 'edited\n' });
    expect(await wt.merge(record, { mode: 'merge' }).catch((e: { code: string; data: unknown }) => [e.code, e.data])).toEqual(['main_checkout_dirty', { repo: s.repo, files: ['x.txt'] }]);
    expect(s.git(record.path, 'status', '--porcelain')).toContain('?? y.txt');
  });

  it('--squash makes one commit and counts as merged; --rebase fast-forwards', async () => {
    const { s, wt } = setUp();
    const sq = await wt.create(s.repo, { name: 'sq' });
    s.write(sq.record.path, { 's1.txt': '1\n' });
    s.commitAll(sq.record.path, 'first');
    s.write(sq.record.path, { 's2.txt': '2\n' });
    const before = s.git(s.repo, 'rev-list', '--count', 'HEAD').trim();
    await wt.merge(sq.record, { mode: 'squash', message: 'squashed work' });
    expect(Number(s.git(s.repo, 'rev-list', '--count', 'HEAD'))).toBe(Number(before) + 1);
    expect(s.git(s.repo, 'log', '-1', '--format=%s').trim()).toBe('squashed work');
    expect((await wt.state(sq.record)).merged).toBe(true);

    const rb = await wt.create(s.repo, { name: 'rb' });
    s.write(rb.record.path, { 'r.txt': 'r\n' });
    s.write(s.repo, { 'main-side.txt': 'm\n' });
    s.commitAll(s.repo, 'main moves');
    const result = await wt.merge(rb.record, { mode: 'rebase' });
    expect(s.git(s.repo, 'log', '--format=%s', '-2').trim().split('\n')).toEqual(['corral: rb', 'main moves']);
    expect(s.git(s.repo, 'rev-list', '--merges', '--count', 'HEAD').trim()).toBe('0');
    expect(result.head).toBe(s.git(rb.record.path, 'rev-parse', 'HEAD').trim());
  });
});

describe('removing', () => {
  it('removes the directory, the branch and the record; never a symbolic link put in its place', async () => {
    const { s, wt } = setUp();
    const { record } = await wt.create(s.repo, { name: 'gone' });
    s.write(record.path, { 'lost.txt': 'x\n' });
    await wt.remove(record);
    expect(existsSync(record.path)).toBe(false);
    expect(s.git(s.repo, 'branch', '--list', 'corral/gone')).toBe('');
    expect(await wt.records()).toEqual([]);

    const other = (await wt.create(s.repo, { name: 'swapped' })).record;
    const victim = path.join(s.dir, 'victim');
    mkdirSync(victim);
    writeFileSync(path.join(victim, 'precious.txt'), 'p\n');
    await import('node:fs').then((fs) => fs.rmSync(other.path, { recursive: true }));
    symlinkSync(victim, other.path);
    expect(await codeOf(wt.remove(other))).toBe('git_failed');
    expect(readFileSync(path.join(victim, 'precious.txt'), 'utf8')).toBe('p\n');
  });

  it('finds the processes working inside a directory', () => {
    const table = { pids: () => [1, 2, 3], cwd: (pid: number) => ['/w/a', '/w/a/sub', '/w/ab'][pid - 1]! };
    expect(processesInside('/w/a', table)).toEqual([1, 2]);
  });
});
