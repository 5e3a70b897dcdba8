/**
 * Checkpoints per turn (SPEC §20, issue 41's measures):
 *
 * 1. What a checkpoint costs on repositories of 1,000 / 5,000 / 50,000 files: the steps the
 *    server runs (src/checkpoint/checkpoint-git.ts: read the files into a tree in corral's own
 *    index, commit, ref), called here in-process — cold (corral's index absent: the first
 *    checkpoint of a checkout starts from a copy of the checkout's own index) and warm (a
 *    later one, with one file edited between). Beside it, on the same repository in the same
 *    run, `git stash create`: git's own "the working tree as a commit", which covers tracked
 *    files only and never touches the index either — what a person would reach for.
 *    Target: warm ≤ 100 ms at 5,000 files.
 * 2. What it adds to `agent prompt` end to end: the stand-in agent of the checkpoint tests
 *    (test/fixtures/programs/edit-agent.mjs) prompted without `--wait` in a 5,000-file
 *    repository (a checkpoint each prompt) and in a directory outside any repository (none),
 *    interleaved. The prompt overlaps the checkpoint with its typing; Enter waits at most
 *    100 ms more for it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorralServer, ROOT, importBundled, interleaved, median, percentile, round, timeSpawn } from './lib.mjs';
import { RpcClient } from './agent-lib.mjs';

export const description = 'a checkpoint of 1k/5k/50k files (cold, warm) vs git stash create; what it adds to agent prompt';

const IDENTITY = { GIT_AUTHOR_NAME: 'Bench', GIT_AUTHOR_EMAIL: 'bench@corral.invalid', GIT_COMMITTER_NAME: 'Bench', GIT_COMMITTER_EMAIL: 'bench@corral.invalid', GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'edit-agent.mjs');

/** A repository of `files` small files in directories of 100, one commit, plus a few untracked files. */
function makeRepo(repo, files, env) {
  for (let d = 0; d < files / 100; d++) {
    mkdirSync(join(repo, `dir${d}`), { recursive: true });
    for (let f = 0; f < 100; f++) writeFileSync(join(repo, `dir${d}`, `file${f}.txt`), `file ${d}/${f}\n`.repeat(8));
  }
  const git = (...args) => execFileSync('git', ['-C', repo, ...args], { env, stdio: 'ignore', maxBuffer: 1 << 26 });
  git('init', '-q', '-b', 'main');
  git('add', '--all');
  git('commit', '-q', '-m', 'initial');
  for (let i = 0; i < 5; i++) writeFileSync(join(repo, `untracked${i}.txt`), 'new\n');
  return repo;
}

/**
 * One checkpoint the way the server takes it: tree, commit, ref. The checkout is found once
 * per repository, as the server remembers it for a few seconds.
 */
async function checkpointOnce(cg, ctx, checkout, id) {
  const start = performance.now();
  const { tree } = await cg.snapshotTree(ctx, checkout);
  const facts = { id, turn: id, at: new Date().toISOString(), prompt: 'bench', reason: 'turn', ms: 0, checkout: checkout.top, kind: 'bench' };
  const commit = await cg.commitTree(ctx, checkout, tree, cg.checkpointMessage('bench', facts));
  await cg.storeRef(ctx, checkout, cg.checkpointRef('bench', id), commit, []);
  return performance.now() - start;
}

async function checkpointCost(files, reps, dir, cg) {
  const env = { ...process.env, ...IDENTITY };
  const repo = makeRepo(join(dir, `repo${files}`), files, env);
  const ctx = { env };
  const checkout = await cg.findCheckout(ctx, repo);
  const ownIndex = join(repo, '.git', 'corral-checkpoint-index');
  let id = 0;
  let edit = 0;
  const touch = () => writeFileSync(join(repo, 'dir0', 'file0.txt'), `edit ${++edit}\n`);
  const cold = async () => {
    rmSync(ownIndex, { force: true });
    touch();
    return checkpointOnce(cg, ctx, checkout, ++id);
  };
  const warm = async () => {
    await checkpointOnce(cg, ctx, checkout, ++id);
    touch();
    return checkpointOnce(cg, ctx, checkout, ++id);
  };
  const stash = async () => {
    touch();
    const run = await timeSpawn('git', ['-C', repo, 'stash', 'create'], { env });
    if (run.code !== 0) throw new Error(`git stash create: ${run.stderr}`);
    return run.ms;
  };
  // The page cache holds the repository for everyone.
  await warm();
  await stash();
  const coldWarm = await interleaved(reps, cold, warm);
  const stashTimes = [];
  for (let i = 0; i < reps; i++) stashTimes.push(await stash());
  const gitStash = { baseline: 'git stash create (tracked only)', times: stashTimes };
  const warmMs = median(coldWarm.b);
  return [
    { ...timeRow(`checkpoint: ${files} files, warm (median of ${reps})`, coldWarm.b, gitStash), ...(files === 5000 ? { target: '≤ 100 ms', pass: warmMs <= 100 } : {}) },
    timeRow(`checkpoint: ${files} files, cold: corral's index absent (median of ${reps})`, coldWarm.a, gitStash),
  ];
}

/** A row of times (ms) against a baseline's times: medians, p95 and the ratio. */
function timeRow(name, times, against) {
  const value = median(times);
  const base = median(against.times);
  return { name, value: round(value, 1), p95: round(percentile(times, 95), 1), unit: 'ms', baseline: against.baseline, baselineValue: round(base, 1), ratio: round(value / base) };
}

/** `agent prompt` (no wait), request to reply, with a checkpoint (in a repository) and without (outside any). */
async function promptCost(reps) {
  const server = new CorralServer();
  Object.assign(server.env, IDENTITY);
  const repo = makeRepo(join(server.dir, 'repo'), 5000, server.env);
  const plain = join(server.dir, 'plain');
  mkdirSync(plain);
  await server.start();
  const rpc = await RpcClient.open(join(server.dir, 'run', 'corral', 'default.sock'));
  try {
    const agents = {};
    for (const [name, cwd] of [['inrepo', repo], ['outside', plain]]) {
      const pane = (await server.json(['workspace', 'create', '--cwd', cwd, '--no-focus'])).result.root_pane.pane_id;
      await server.json(['agent', 'start', name, '--kind', 'generic', '--pane', pane, '--', 'node', AGENT]);
      agents[name] = pane;
    }
    const once = (name) => async (i) => {
      const start = performance.now();
      await rpc.call('agent.prompt', { target: name, text: `WRITE bench${i}.txt ${i} ;; SLOW 1500` });
      const ms = performance.now() - start;
      // The turn is seen to start and to end before the next prompt is typed.
      await rpc.call('agent.wait', { target: name, until: ['working'], timeout_ms: 30_000 });
      await rpc.call('agent.wait', { target: name, until: ['idle', 'done'], timeout_ms: 30_000 });
      return ms;
    };
    await once('inrepo')('w');
    await once('outside')('w');
    const times = await interleaved(reps, once('inrepo'), once('outside'));
    const list = (await rpc.call('agent.checkpoints', { target: 'inrepo' })).result.checkpoints;
    const added = median(times.a) - median(times.b);
    return [
      {
        ...timeRow(`checkpoint: agent prompt in a 5,000-file repository (a checkpoint each; median of ${reps})`, times.a, { baseline: 'agent prompt outside any repository', times: times.b }),
        target: '≤ +100 ms',
        pass: added <= 100,
      },
      {
        name: 'checkpoint: the checkpoints those prompts took, as the server reports them (median ms; late ones)',
        value: round(median(list.map((c) => c.ms)), 1),
        unit: 'ms',
        baseline: 'late',
        baselineValue: list.filter((c) => c.late).length,
      },
    ];
  } finally {
    rpc.close();
    await server.stop();
  }
}

export async function run({ quick = false } = {}) {
  const { mod: cg, dispose } = await importBundled('src/checkpoint/checkpoint-git.ts');
  const dir = join(ROOT, 'bench', `.checkpoint-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  try {
    const rows = [];
    for (const files of quick ? [1000, 5000] : [1000, 5000, 50000]) rows.push(...(await checkpointCost(files, quick ? 3 : files >= 50000 ? 5 : 10, dir, cg)));
    rows.push(...(await promptCost(quick ? 3 : 10)));
    return rows;
  } finally {
    dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const rows = await run({ quick: process.argv.includes('--quick') });
  for (const row of rows) process.stdout.write(`${JSON.stringify(row)}\n`);
}
