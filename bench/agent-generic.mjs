/**
 * Detection latency on the real agents, their own rules against the generic rules alone
 * (issue 29's leave-one-out): for each installed lab agent, one server that knows its kind and
 * one told to forget it (`CORRAL_FORGET_KINDS`, the agent started with `agent start --kind
 * generic -- <agent>`) run the same slow turns against the live suite's scripted model
 * (test/agents/model, bundled with test/agents/lab.ts).
 *
 * - working: `agent.prompt` returned (Enter pressed) → `agent.status_changed` working;
 * - done: the model wrote the last byte of its answer (its log's `finished` line) → done.
 *   This includes the agent drawing its last frame and the rule set's idle window (500 ms
 *   for most own rules; the generic rules wait 3 s after a working spell under 4 s).
 *
 * Skipped when the agents are not installed (`node scripts/install-agents.mjs`). Not a tmux
 * comparison: tmux does not read agents; the baseline is the agent's own rules.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RpcClient } from './agent-lib.mjs';
import { ROOT, importBundled, percentile, round } from './lib.mjs';

export const description = 'agent detection latency on the real agents: own rules vs the generic rules alone';

const AGENTS = ['claude', 'gemini', 'codex', 'qwen', 'pi', 'kilo', 'opencode'];
/** Kilo's first start is minutes of CPU here (docs/agents-live.md). */
const START_MS = { kilo: 240_000 };

/** The model's `finished` lines (ms since the epoch), in order. */
function finishedTimes(logFile) {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, 'utf8')
    .split('\n')
    // The answer's own line: a side call (a session title) can finish after it.
    .filter((line) => / finished \S+ kind=(answer|final) /.test(line))
    .map((line) => Date.parse(line.slice(1, line.indexOf(']'))));
}

/** One server, one agent, `turns` slow answers: working and done latencies in ms. */
async function measure(lab, agent, generic, turns) {
  const { AgentLab } = lab;
  const the = await new AgentLab(agent, agent === 'pi' ? { piExt: true } : {}).start({}, generic ? { CORRAL_FORGET_KINDS: agent } : {});
  const rpc = await RpcClient.open(the.server.socketPath);
  const working = [];
  const done = [];
  try {
    const pane = await the.workspace();
    const startMs = START_MS[agent] ?? 90_000;
    const args = generic ? ['--kind', 'generic', '--pane', pane, '--timeout', String(startMs), '--', agent] : ['--kind', agent, '--pane', pane, '--timeout', String(startMs)];
    await the.server.json(['agent', 'start', 'bench', ...args]);
    await rpc.call('events.subscribe', { types: ['agent.status_changed'] });
    const log = join(the.server.dir, 'fake-model.log');
    for (let turn = 0; turn < turns; turn++) {
      rpc.drainEvents();
      const before = finishedTimes(log).length;
      const { receivedAt: entered } = await rpc.call('agent.prompt', { target: 'bench', text: `Say hello please, turn ${turn + 1}` }, 60_000);
      const busy = await rpc.nextEvent((e) => e.name === 'bench' && e.agent_status === 'working', 60_000);
      working.push(busy.receivedAt - entered);
      const finished = await rpc.nextEvent((e) => e.name === 'bench' && e.agent_status === 'done' && e.completion_seq !== undefined, 120_000);
      const ends = finishedTimes(log).slice(before);
      if (ends.length > 0) done.push(finished.receivedAt - ends.at(-1));
      await rpc.call('agent.focus', { target: 'bench' });
    }
  } finally {
    rpc.close();
    await the.stop();
  }
  return { working, done };
}

export async function run({ quick = false } = {}) {
  const bin = (name) => join(ROOT, '.cache', 'agents', 'node_modules', '.bin', name);
  const installed = AGENTS.filter((agent) => existsSync(bin(agent)));
  if (installed.length === 0) {
    return [{ name: 'agent-generic: skipped — no lab agents installed (node scripts/install-agents.mjs)', value: null, unit: '' }];
  }
  // BENCH_AGENTS=claude,gemini narrows the run (Kilo's and OpenCode's starts take minutes here).
  const only = process.env.BENCH_AGENTS?.split(',');
  const agents = installed.filter((a) => (only ? only.includes(a) : !quick || a === 'claude' || a === 'codex'));
  const turns = quick ? 1 : 3;
  const { mod: lab, dispose } = await importBundled('test/agents/lab.ts', { packagesExternal: true });
  const rows = [];
  try {
    for (const agent of agents) {
      const own = await measure(lab, agent, false, turns);
      const generic = await measure(lab, agent, true, turns);
      for (const [what, key] of [
        ['Enter → working', 'working'],
        ['last byte of the answer → done', 'done'],
      ]) {
        const g = generic[key];
        const o = own[key];
        if (g.length === 0 || o.length === 0) continue;
        rows.push({
          name: `agent-generic: ${agent}, ${what}, generic rules alone (${g.length} turns)`,
          value: round(percentile(g, 50), 0),
          p95: round(percentile(g, 95), 0),
          unit: 'ms',
          baseline: 'its own rules p50 / p95',
          baselineValue: `${round(percentile(o, 50), 0)} / ${round(percentile(o, 95), 0)}`,
          ratio: percentile(o, 95) > 0 ? round(percentile(g, 95) / percentile(o, 95)) : null,
        });
      }
    }
  } finally {
    dispose();
  }
  return rows;
}
