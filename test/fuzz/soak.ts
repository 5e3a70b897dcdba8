/**
 * The soak (issue 42): a real server under churn for `minutes` — panes made and closed,
 * stand-in agents (test/fixtures/programs/soak-agent.mjs) started, prompted, blocked, answered
 * and ended, a pane flooding now and then, clients attaching and detaching, web sessions
 * watching a pane, a restart every `restartEveryMin` (every other one a SIGKILL, checked
 * like the kill test: the same panes come back) — sampling the server's RSS, fds, CPU and
 * event latency every `sampleEverySec`. Run by bench/soak.mjs (`npm run soak -- --minutes 3`);
 * not part of `npm test`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { ROOT, TestServer, procStat, type RawClient } from '../integration/harness.js';
import { sampleProcess } from './rpc-fuzz.js';

export interface SoakOptions {
  minutes: number;
  restartEveryMin: number;
  sampleEverySec: number;
  log: (line: string) => void;
}

export interface SoakSample {
  minute: number;
  /** Which server life (restarts count up). */
  life: number;
  rssMiB: number;
  fds: number;
  /** Share of one core the server used since the last sample, in %. */
  cpuPercent: number;
  /** A pane rename's event reaching a subscriber, p50 and max of this interval's probes, ms. */
  eventP50Ms: number;
  eventMaxMs: number;
  panes: number;
}

export interface SoakResult {
  samples: SoakSample[];
  cycles: number;
  restarts: number;
  agentTurns: number;
  failures: string[];
  /** Least-squares slope per hour over the samples after the warm-up, across restarts. */
  driftPerHour: { rssMiB: number; fds: number; eventMs: number };
}

const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'soak-agent.mjs');
/** Panes kept at most; the oldest go first. */
const MAX_PANES = 8;
/** Samples before this minute are warm-up, not drift (the issue: flat from the fifth minute on; a short run from the first). */
const WARM_UP_MIN = { long: 5, short: 1 } as const;
/** CPU ticks per second on Linux (getconf CLK_TCK). */
const CLK_TCK = 100;

function cpuTicks(pid: number): number {
  const stat = procStat(pid);
  if (!stat) throw new Error(`process ${pid} is gone`);
  return Number(stat.fields[11]) + Number(stat.fields[12]);
}

/** Slope per hour of `ys` over `xs` (minutes), least squares. */
function slopePerHour(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return 0;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? 0 : (num / den) * 60;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs the soak; resolves with every sample and what went wrong. */
export async function soak(options: SoakOptions): Promise<SoakResult> {
  const sandbox = mkdtempSync(join(tmpdir(), 'corral-soak-'));
  const server = new TestServer({ scripting: true, cwd: sandbox });
  const failures: string[] = [];
  const samples: SoakSample[] = [];
  const started = Date.now();
  const end = started + options.minutes * 60_000;
  let life = 0;
  let restarts = 0;
  let cycles = 0;
  let agentTurns = 0;
  let client: RawClient;
  let events: RawClient;
  const latencies: number[] = [];

  const connectAll = async () => {
    client = await server.connect();
    events = await server.connect();
    await events.call('events.subscribe', { types: ['pane.renamed'] });
  };
  await server.start();
  await connectAll();
  let lastCpu = { at: Date.now(), ticks: cpuTicks(server.pid!) };
  let nextSample = Date.now() + options.sampleEverySec * 1000;
  let nextRestart = Date.now() + options.restartEveryMin * 60_000;

  /** A rename's event: from the request to the event reaching the subscriber. */
  const probeLatency = async (pane: string) => {
    const name = `probe-${Date.now()}`;
    const sent = performance.now();
    const seen = events.next((m) => m.params?.type === 'pane.renamed' && m.params?.name === name, 10_000);
    await client.call('pane.rename', { pane_id: pane, name });
    await seen;
    latencies.push(performance.now() - sent);
  };

  const panes = async (): Promise<string[]> => ((await client.call('pane.list', {})).panes as { pane_id: string }[]).map((p) => p.pane_id);

  /** One agent's life: started, prompted, maybe blocked and answered, ended. */
  const agentLife = async (cycle: number) => {
    const pane = (await client.call('workspace.create', { cwd: sandbox, focus: false })).root_pane.pane_id;
    const name = `a${cycle}`;
    await client.call('agent.start', { pane_id: pane, kind: 'generic', name, args: ['node', AGENT], timeout_ms: 20_000 }, 30_000);
    const ask = cycle % 3 === 0;
    const { agent } = await client.call('agent.prompt', { target: name, text: ask ? `please ask ${cycle}` : `hello ${cycle}`, wait: true, until: ['done', 'blocked', 'idle'], timeout_ms: 20_000 }, 30_000);
    if (ask) {
      if (agent.agent_status !== 'blocked') failures.push(`cycle ${cycle}: the agent asked but is ${agent.agent_status}`);
      await client.call('agent.send_keys', { target: name, keys: ['y'] });
      await client.call('agent.wait', { target: name, until: ['done', 'idle'], timeout_ms: 20_000 }, 30_000);
    }
    agentTurns++;
    await client.call('agent.read', { target: name, answer: true }).catch(() => {});
    await client.call('pane.send_text', { pane_id: pane, text: '/exit' });
    await client.call('pane.send_keys', { pane_id: pane, keys: ['Enter'] });
  };

  /** A thin client attaches with some size, stays a moment, goes. */
  const attachDetach = async (cycle: number) => {
    // Its own socket: after the reply the connection carries binary frames, not JSON lines.
    const socket = connect(server.socketPath);
    const reply = await new Promise<string>((resolve, reject) => {
      let text = '';
      socket.on('data', (chunk) => {
        text += chunk.toString('latin1');
        if (text.includes('\n')) resolve(text.slice(0, text.indexOf('\n')));
      });
      socket.once('error', reject);
      socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'client.attach', params: { cols: 80 + (cycle % 5) * 20, rows: 24 + (cycle % 3) * 10 } }) + '\n');
    });
    if (!JSON.parse(reply).result) failures.push(`cycle ${cycle}: client.attach answered ${reply.slice(0, 200)}`);
    await sleep(300);
    socket.destroy();
  };

  /** A web session: hello, the fleet, a pane watched for a moment. */
  const webSession = async (pane: string) => {
    const web = await server.connect();
    await web.call('web.hello', {});
    await web.call('web.fleet', { lines: 5 });
    await web.call('pane.watch', { pane_id: pane });
    await sleep(500);
    web.close();
  };

  const restart = async () => {
    const kill = restarts % 2 === 1;
    const before = (await panes()).sort();
    await client.call('session.save', {});
    client.close();
    events.close();
    await server.halt(kill ? 'SIGKILL' : 'SIGTERM');
    await server.start();
    restarts++;
    life++;
    await connectAll();
    const after = (await panes()).sort();
    if (JSON.stringify(before) !== JSON.stringify(after)) failures.push(`restart ${restarts} (${kill ? 'SIGKILL' : 'SIGTERM'}): ${before.join(',')} saved, ${after.join(',')} restored`);
    lastCpu = { at: Date.now(), ticks: cpuTicks(server.pid!) };
    options.log(`restart ${restarts} (${kill ? 'SIGKILL' : 'SIGTERM'}): ${after.length} panes back`);
  };

  try {
    while (Date.now() < end) {
      cycles++;
      try {
        const existing = await panes();
        for (const old of existing.slice(0, Math.max(0, existing.length - MAX_PANES))) await client!.call('pane.close', { pane_id: old });
        await agentLife(cycles);
        const live = await panes();
        const some = live[cycles % live.length]!;
        if (cycles % 4 === 0) await client!.call('pane.run', { pane_id: some, command: 'seq 1 30000' });
        if (cycles % 2 === 0) await attachDetach(cycles);
        if (cycles % 3 === 1) await webSession(some);
        const split = (await client!.call('pane.split', { pane_id: some, cwd: sandbox })).pane.pane_id;
        await probeLatency(split);
        await client!.call('pane.close', { pane_id: split });
      } catch (error) {
        failures.push(`cycle ${cycles}: ${(error as Error).message}`);
        if (!server.alive) {
          failures.push(`the server died: ${server.stderr.slice(-2000)}`);
          await server.start();
          await connectAll();
        }
      }
      if (Date.now() >= nextSample) {
        const now = Date.now();
        const ticks = cpuTicks(server.pid!);
        const sorted = latencies.splice(0).sort((a, b) => a - b);
        const sample: SoakSample = {
          minute: Math.round(((now - started) / 60_000) * 100) / 100,
          life,
          ...sampleProcess(server.pid!),
          cpuPercent: Math.round(((ticks - lastCpu.ticks) / CLK_TCK / ((now - lastCpu.at) / 1000)) * 1000) / 10,
          eventP50Ms: Math.round((sorted[Math.floor(sorted.length / 2)] ?? 0) * 10) / 10,
          eventMaxMs: Math.round((sorted.at(-1) ?? 0) * 10) / 10,
          panes: (await panes()).length,
        };
        lastCpu = { at: now, ticks };
        samples.push(sample);
        options.log(JSON.stringify(sample));
        nextSample = now + options.sampleEverySec * 1000;
      }
      if (Date.now() >= nextRestart) {
        await restart();
        nextRestart = Date.now() + options.restartEveryMin * 60_000;
      }
    }
  } finally {
    await server.stop();
    rmSync(sandbox, { recursive: true, force: true });
  }

  // Drift: the slope over every sample from the warm-up on, restarts included — a life of a few
  // minutes is too short for a slope of its own, and what a restart does not give back counts.
  const warmUp = options.minutes >= 10 ? WARM_UP_MIN.long : WARM_UP_MIN.short;
  const counted = samples.filter((s) => s.minute >= warmUp);
  const drift = (f: (s: SoakSample) => number) => Math.round(slopePerHour(counted.map((s) => s.minute), counted.map(f)) * 10) / 10;
  const driftPerHour = { rssMiB: drift((s) => s.rssMiB), fds: drift((s) => s.fds), eventMs: drift((s) => s.eventP50Ms) };
  return { samples, cycles, restarts, agentTurns, failures, driftPerHour };
}
