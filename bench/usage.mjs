/**
 * What following agents' usage costs (SPEC §18; issue 39): one server holds 20 stand-in Claude
 * Code agents (test/fixtures/programs/usage-agent.mjs as `claude` on PATH: known by its kind,
 * its record read through claude.toml's [usage]). Each runs one long turn of a model call a
 * second (two record lines a call, as Claude writes a message once per content block), so 20
 * records grow at once. Measured:
 *
 * - the server's CPU (utime+stime) over a window while they write, against the same 20 agents
 *   idle (no record growing) in the same server just before: the difference is usage tracking
 *   (the file watch, the incremental read, the budget check, the event), as % of one core;
 * - the time from a call's record lines being written (the stand-in logs the time just before
 *   it appends them) to the `agent.usage` event that carries it, at a subscriber: p50/p95/max.
 *   The event is paced at one per agent per second, so a call that lands within a second of
 *   the last event waits for the next: that wait is part of the figure, as a client sees it.
 *
 * Target (issue): none given; recorded in docs/bench.md.
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { RpcClient, stats } from './agent-lib.mjs';
import { CLK_TCK, CorralServer, ROOT, cpuSeconds, round, sleep } from './lib.mjs';

export const description = 'server CPU and agent.usage latency with 20 agents each writing a record line a second';

const AGENTS = 20;
const PROGRAM = join(ROOT, 'test', 'fixtures', 'programs', 'usage-agent.mjs');

/** Server CPU % of one core over `windowMs`. */
async function cpuOver(pid, windowMs) {
  const before = cpuSeconds(pid);
  const start = performance.now();
  await sleep(windowMs);
  const elapsed = (performance.now() - start) / 1000;
  return { pct: ((cpuSeconds(pid) - before) / elapsed) * 100, elapsed };
}

export async function run({ quick = false } = {}) {
  const windowMs = quick ? 5000 : 20_000;
  const server = new CorralServer();
  const bin = join(server.dir, 'bin');
  mkdirSync(bin, { recursive: true });
  copyFileSync(PROGRAM, join(bin, 'claude'));
  // Its input line is a module beside it (test/fixtures/programs/input-line.mjs).
  copyFileSync(join(dirname(PROGRAM), 'input-line.mjs'), join(bin, 'input-line.mjs'));
  chmodSync(join(bin, 'claude'), 0o755);
  const callLog = join(server.dir, 'calls.log');
  server.env.PATH = `${bin}:${server.env.PATH}`;
  server.env.USAGE_CALL_LOG = callLog;
  let rpc = null;
  try {
    await server.start();
    const names = [];
    for (let i = 0; i < AGENTS; i++) {
      const pane = await server.newWorkspacePane();
      const name = `spender${i + 1}`;
      await server.json(['agent', 'start', name, '--kind', 'claude', '--pane', pane, '--timeout', '30000'], { timeoutMs: 40_000 });
      names.push(name);
    }
    await sleep(2000);
    const idle = await cpuOver(server.pid, windowMs);

    rpc = await RpcClient.open(server.socketPath);
    await rpc.call('events.subscribe', { types: ['agent.usage'] });
    // Long enough to outlast the window: one call a second.
    const calls = Math.ceil(windowMs / 1000) + 10;
    for (const name of names) await server.json(['agent', 'prompt', name, `calls=${calls} in=100 out=50 ms=1000`]);
    await sleep(3000);
    rpc.drainEvents();
    const busy = await cpuOver(server.pid, windowMs);
    const events = rpc.drain().filter((m) => m.id === undefined && m.params?.type === 'agent.usage');

    // When each call was written, by session and call number.
    const written = new Map();
    for (const line of readFileSync(callLog, 'utf8').split('\n')) {
      const [session, n, ms] = line.split(' ');
      if (session && n && ms) written.set(`${session} ${n}`, Number(ms));
    }
    const sessionOf = new Map();
    for (const agent of (await server.json(['agent', 'list'])).result.agents) sessionOf.set(agent.name, agent.session_id);
    const latencies = [];
    for (const m of events) {
      const at = written.get(`${sessionOf.get(m.params.agent)} ${m.params.usage?.calls}`);
      if (at !== undefined) latencies.push(m.receivedAt - at);
    }
    const perAgentSecond = events.length / AGENTS / busy.elapsed;
    const s = stats(latencies);
    const resolution = (1 / CLK_TCK / busy.elapsed) * 100;
    const win = `${round(busy.elapsed, 0)} s window, ±${round(resolution, 2)}%`;
    return [
      {
        name: `usage: server CPU, ${AGENTS} agents each writing a call a second (${win})`,
        value: round(busy.pct, 2),
        unit: '% core',
        baseline: `the same ${AGENTS} agents idle`,
        baselineValue: round(idle.pct, 2),
        ratio: idle.pct > 0 ? round(busy.pct / idle.pct) : null,
        note: `usage tracking ≈ ${round(busy.pct - idle.pct, 2)}% of one core`,
      },
      { name: `usage: record line → agent.usage, p50 (${latencies.length} events)`, value: s.p50, unit: 'ms' },
      { name: 'usage: record line → agent.usage, p95', value: s.p95, unit: 'ms' },
      { name: 'usage: record line → agent.usage, max', value: s.max, unit: 'ms' },
      { name: 'usage: agent.usage events per agent per second', value: round(perAgentSecond, 2), unit: '/s', target: '≤ 1', pass: perAgentSecond <= 1.01 },
    ];
  } finally {
    rpc?.close();
    await server.stop();
  }
}

// Run on its own (`node bench/usage.mjs [--quick]`, after `npm run -s build`): prints the rows.
if (import.meta.url === `file://${process.argv[1]}`) {
  for (const row of await run({ quick: process.argv.includes('--quick') })) process.stdout.write(`${JSON.stringify(row)}\n`);
}
