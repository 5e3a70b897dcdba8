/**
 * Worktrees (SPEC §15, issue 30's measures), both in one run:
 *
 * 1. `workspace.create` with `worktree` on a repository of 5,000 files (no setup: setup
 *    excluded), request to reply, against a bare `git worktree add -b B PATH HEAD` of the same
 *    repository run from node. Interleaved; each worktree is removed (untimed) before the next.
 *    Target: ≤ 1.3×.
 * 2. What keeping the sidebar's `+added −removed` current costs while agents idle: three
 *    stand-in agents (test/fixtures/programs/worktree-agent.mjs) in worktrees, the server's git
 *    runs counted by a `git` on its PATH that logs each call and execs the real one, over a
 *    quiet window. Target: 0 git runs and no more server CPU than with the same agents outside
 *    worktrees. A prompt afterwards shows the count does move when an agent finishes a turn.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLK_TCK, CorralServer, ROOT, cpuSeconds, interleaved, median, percentile, round, sleep, timeSpawn, waitUntil } from './lib.mjs';
import { RpcClient } from './agent-lib.mjs';

export const description = 'workspace create --worktree (5,000 files) vs bare git worktree add; git runs and CPU while worktree agents idle';

const FILES = 5000;
const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@corral.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@corral.invalid' };
const AGENTS = 3;

/** A repository of `FILES` small files in 50 directories, one commit. */
function makeRepo(dir, env) {
  const repo = join(dir, 'repo');
  for (let d = 0; d < 50; d++) {
    mkdirSync(join(repo, `dir${d}`), { recursive: true });
    for (let f = 0; f < FILES / 50; f++) writeFileSync(join(repo, `dir${d}`, `file${f}.txt`), `file ${d}/${f}\n`.repeat(8));
  }
  const git = (...args) => execFileSync('git', ['-C', repo, ...args], { env, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '--all');
  git('commit', '-q', '-m', 'initial');
  return repo;
}

/** The server's environment with a `git` that appends one line per run to `log` before running the real one. */
function countingGit(server) {
  const bin = join(server.dir, 'git-counter');
  const log = join(server.dir, 'git-runs.log');
  mkdirSync(bin);
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(bin, 'git'), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  chmodSync(join(bin, 'git'), 0o755);
  symlinkSync(join(ROOT, 'test', 'fixtures', 'programs', 'worktree-agent.mjs'), join(bin, 'claude'));
  Object.assign(server.env, { PATH: `${bin}:${server.env.PATH}` });
  return () => {
    try {
      return readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
    } catch {
      return 0;
    }
  };
}

async function createCost(quick) {
  const reps = quick ? 3 : 10;
  const server = new CorralServer();
  Object.assign(server.env, IDENTITY);
  const repo = makeRepo(server.dir, server.env);
  await server.start();
  const rpc = await RpcClient.open(join(server.dir, 'run', 'corral', 'default.sock'));
  const bareDir = join(server.dir, 'bare');
  mkdirSync(bareDir);
  try {
    const corralOnce = async (i) => {
      const start = performance.now();
      const { result } = await rpc.call('workspace.create', { cwd: repo, worktree: `c${i}`, focus: false });
      const ms = performance.now() - start;
      await rpc.call('workspace.close', { workspace_id: result.workspace.workspace_id });
      await waitUntil(async () => (await rpc.call('worktree.discard', { name: `c${i}` }).then(() => true, () => false)), { timeoutMs: 20_000, intervalMs: 100 });
      return ms;
    };
    const bareOnce = async (i) => {
      const path = join(bareDir, `b${i}`);
      const run = await timeSpawn('git', ['-C', repo, 'worktree', 'add', '--quiet', '-b', `bare/b${i}`, path, 'HEAD'], { env: server.env });
      if (run.code !== 0) throw new Error(`git worktree add: ${run.stderr}`);
      execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', path], { env: server.env });
      execFileSync('git', ['-C', repo, 'branch', '-q', '-D', `bare/b${i}`], { env: server.env });
      return run.ms;
    };
    // Warm-up: the page cache holds the repository's objects for both.
    await corralOnce('w');
    await bareOnce('w');
    const times = await interleaved(reps, corralOnce, bareOnce);
    const value = median(times.a);
    const bare = median(times.b);
    return {
      name: `worktree: workspace create --worktree, ${FILES} files, no setup (median of ${reps})`,
      value: round(value, 1),
      unit: 'ms',
      p95: round(percentile(times.a, 95), 1),
      baseline: 'git worktree add',
      baselineValue: round(bare, 1),
      ratio: round(value / bare),
      target: '≤ 1.3×',
      pass: value / bare <= 1.3,
    };
  } finally {
    rpc.close();
    await server.stop();
  }
}

/** Server CPU (% of one core) and git runs over `windowMs` with `AGENTS` idle stand-in agents, in worktrees or not. */
async function idleWith(inWorktrees, windowMs) {
  const server = new CorralServer();
  Object.assign(server.env, IDENTITY);
  const gitRuns = countingGit(server);
  const repo = makeRepo(server.dir, server.env);
  await server.start();
  try {
    const workspace = await server.json(['workspace', 'create', '--cwd', repo, '--no-focus']);
    let pane = workspace.result.root_pane.pane_id;
    for (let i = 0; i < AGENTS; i++) {
      if (i > 0) pane = (await server.json(['pane', 'split', pane, '--direction', 'down'])).result.pane.pane_id;
      await server.json(['agent', 'start', `a${i}`, '--kind', 'claude', '--pane', pane, ...(inWorktrees ? ['--worktree'] : [])]);
    }
    await sleep(2000);
    const runs0 = gitRuns();
    const cpu0 = cpuSeconds(server.pid);
    const start = performance.now();
    await sleep(windowMs);
    const elapsed = (performance.now() - start) / 1000;
    const result = { cpuPct: ((cpuSeconds(server.pid) - cpu0) / elapsed) * 100, gitRuns: gitRuns() - runs0, elapsed, resolution: (1 / CLK_TCK / elapsed) * 100 };
    // The count moves when it should: a finished turn is counted again.
    const before = gitRuns();
    await server.json(['agent', 'prompt', 'a0', 'EDIT bench.txt one more line', '--wait', '--timeout', '20000']);
    await waitUntil(() => !inWorktrees || gitRuns() > before, { timeoutMs: 10_000 });
    result.gitRunsAfterTurn = gitRuns() - before;
    return result;
  } finally {
    await server.stop();
  }
}

export async function run({ quick = false } = {}) {
  const windowMs = quick ? 3000 : 10_000;
  const create = await createCost(quick);
  const plain = await idleWith(false, windowMs);
  const worktrees = await idleWith(true, windowMs);
  return [
    create,
    {
      name: `worktree: git runs while ${AGENTS} worktree agents idle, ${round(worktrees.elapsed, 0)} s (a finished turn started ${worktrees.gitRunsAfterTurn} at once)`,
      value: worktrees.gitRuns,
      unit: 'runs',
      target: '0',
      pass: worktrees.gitRuns === 0,
    },
    {
      name: `worktree: server CPU, ${AGENTS} idle agents in worktrees (±${round(worktrees.resolution, 2)}%)`,
      value: round(worktrees.cpuPct, 2),
      unit: '% core',
      baseline: 'same agents, no worktrees',
      baselineValue: round(plain.cpuPct, 2),
      ratio: plain.cpuPct > 0 ? round(worktrees.cpuPct / plain.cpuPct) : null,
      target: 'no more than without',
      pass: worktrees.cpuPct <= plain.cpuPct + worktrees.resolution,
    },
  ];
}
