/**
 * `agent prompt --wait` return latency: from the moment the agent's screen shows the turn is
 * over (the fake claude switches working→idle ~1 s after the prompt's Enter and reports
 * Date.now() just before that one write) to the moment the prompt call returns.
 *
 * Two ways, interleaved, 20 runs each (`--quick` 4):
 * - raw socket: `agent.prompt {target, text, wait:true, timeout_ms:60000}` on a persistent
 *   connection; "returned" = the reply's arrival in the bench process. No spawn noise.
 * - CLI: `corral agent prompt bench "…" --wait --timeout 60000` as a child process;
 *   "returned" = the child's exit seen by the bench. The CLI is run with a preloaded probe
 *   (bench/fixtures/cli-probe/probe.cjs) that records when the reply reached the CLI, so the
 *   CLI's own exit overhead (reply → process gone) is measured in the same runs and
 *   subtracted.
 * A separate subscriber also stamps the `agent.status_changed` to idle/done, to show how
 * much of the latency is detection (the idle confirmation window) and how much is the reply.
 *
 * The server runs with --scripting (agent.prompt submits input). Target (issue): p95 < 500 ms.
 */
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { FakeControl, RpcClient, agentServer, isIdleStatus, startFakeAgent, stats } from './agent-lib.mjs';
import { BIN, ROOT, median, round, sleep } from './lib.mjs';

export const description = 'agent prompt --wait: idle screen → call returns (raw socket and CLI)';

const PROBE = join(ROOT, 'bench', 'fixtures', 'cli-probe', 'probe.cjs');
const WORK_MS = 1000;

/** Runs the CLI with the probe; resolves with the bench-side exit time and the probe's record. */
function cliPrompt(server, text, probeFile) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', PROBE, BIN, 'agent', 'prompt', 'bench', text, '--wait', '--timeout', '60000'], {
      env: { ...server.env, CORRAL_BENCH_PROBE: probeFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('exit', (code) => {
      const exitAt = Date.now();
      clearTimeout(timer);
      child.on('close', () => {
        if (code !== 0) return reject(new Error(`agent prompt exited ${code}: ${stderr}`));
        const probe = JSON.parse(readFileSync(probeFile, 'utf8'));
        rmSync(probeFile, { force: true });
        resolve({ exitAt, probe, result: JSON.parse(stdout).result });
      });
    });
  });
}

export async function run({ quick = false } = {}) {
  const runs = quick ? 4 : 20;
  const server = agentServer();
  let rpc;
  let events;
  let ctl;
  try {
    await server.start();
    const { pane, control } = await startFakeAgent(server, 'bench', { spinnerMs: 120, workMs: WORK_MS });
    rpc = await RpcClient.open(server.socketPath);
    events = await RpcClient.open(server.socketPath);
    await events.call('events.subscribe', { types: ['agent.status_changed'] });
    ctl = await FakeControl.connectTo(control);
    await sleep(300);

    const raw = [];
    const cli = [];
    const cliReply = [];
    const cliExit = [];
    const detect = [];
    const wall = [];
    const probeFile = join(server.dir, 'probe.json');
    for (let i = 0; i < runs * 2; i++) {
      const viaCli = i % 2 === 1;
      const text = `bench prompt ${i} ${viaCli ? 'cli' : 'raw'}`;
      ctl.drain();
      events.drainEvents();
      const t0 = Date.now();
      let returnedAt;
      let agent;
      let probe;
      if (viaCli) {
        const r = await cliPrompt(server, text, probeFile);
        returnedAt = r.exitAt;
        probe = r.probe;
        agent = r.result.agent;
      } else {
        const r = await rpc.call('agent.prompt', { target: 'bench', text, wait: true, timeout_ms: 60_000 }, 70_000);
        returnedAt = r.receivedAt;
        agent = r.result.agent;
      }
      wall.push(returnedAt - t0);
      if (!isIdleStatus(agent.agent_status)) throw new Error(`prompt returned with status ${agent.agent_status}`);
      const done = await ctl.nextSwitch((m) => m.state === 'idle' && m.cause === 'work-done', 5000);
      const ev = await events.nextEvent((e) => e.pane_id === pane && e.previous_status !== undefined && isIdleStatus(e.agent_status), 5000);
      detect.push(ev.receivedAt - done.t);
      const ms = returnedAt - done.t;
      if (viaCli) {
        cli.push(ms);
        cliReply.push(probe.lastData - done.t);
        cliExit.push(returnedAt - probe.lastData);
      } else {
        raw.push(ms);
      }
      await sleep(200 + Math.random() * 200);
    }

    const exitOverhead = median(cliExit);
    const cliNet = cli.map((v) => v - exitOverhead);
    const row = (name, values, extra = {}) => {
      const st = stats(values);
      return { name: `${name} (n=${st.n}, max ${st.max})`, value: st.p50, p95: st.p95, unit: 'ms', ...extra };
    };
    return [
      row('prompt --wait: raw socket, idle screen → reply', raw, { target: 'p95 < 500 ms', pass: stats(raw).p95 < 500 }),
      row('prompt --wait: CLI, idle screen → CLI exit', cli),
      row('prompt --wait: CLI, idle screen → reply in CLI (probe)', cliReply),
      row('prompt --wait: CLI exit overhead (reply → exit seen)', cliExit),
      row('prompt --wait: CLI minus median exit overhead', cliNet, { target: 'p95 < 500 ms', pass: stats(cliNet).p95 < 500 }),
      row('prompt --wait: idle screen → agent.status_changed (same runs)', detect),
      { name: `prompt --wait: whole call, submit + ${WORK_MS} ms turn + return, median`, value: round(median(wall), 0), unit: 'ms' },
    ];
  } finally {
    ctl?.close();
    rpc?.close();
    events?.close();
    await server.stop();
  }
}
