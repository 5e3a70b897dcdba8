/**
 * Per kind, on the real agents' own screens: detection latency (screen change →
 * `agent.status_changed`) and server CPU with six idle recognised agents, one of each kind.
 *
 * Each of the six lab agents (claude, codex, gemini, qwen, pi, kilo) is played by its
 * recorded pty stream (bench/fixtures/replay-agents/<kind>, replaying
 * test/fixtures/agents/<kind>/session.raw.gz): a node script named after the kind, so corral
 * recognises it by process as that kind and reads it with that kind's rules. The bench
 * steps each recording through its captured states (one write per state, Date.now() taken
 * just before it) and stamps the matching event's arrival on a raw-socket subscriber. Steps
 * whose state equals the previous one raise no event and are not timed. →idle steps include
 * the kind's idle_confirm_ms window (shown per kind).
 *
 * CPU: the six replayed agents sit at their idle screens in one server, six idle bash panes
 * in another; both servers' own CPU over the same 10 s window (`--quick` 3 s).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FakeControl, RpcClient, isIdleStatus, stats } from './agent-lib.mjs';
import { CorralServer, ROOT, corralPaneReady, cpuSeconds, round, sleep } from './lib.mjs';

export const description = 'detection latency per kind on replayed real screens; server CPU with 6 idle recognised agents';

const KINDS = ['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo'];
const REPLAY_DIR = join(ROOT, 'bench', 'fixtures', 'replay-agents');

function replayServer() {
  const server = new CorralServer();
  server.env.PATH = `${REPLAY_DIR}:${server.env.PATH}`;
  server.socketPath = join(server.dir, 'run', 'corral', 'default.sock');
  return server;
}

function idleConfirmMs(kind) {
  const m = /^idle_confirm_ms\s*=\s*(\d+)/m.exec(readFileSync(join(ROOT, 'assets', 'agents', `${kind}.toml`), 'utf8'));
  return m ? Number(m[1]) : 500;
}

/**
 * A pane of the recording's size (120×40): inline agents (Claude) erase and redraw by their
 * own idea of the width, so their stream only replays right at the size it was captured at.
 * The headless server's panes are 160×48; splits carve out the captured size.
 */
async function capturedSizePane(server) {
  const root = await server.newWorkspacePane();
  const right = (await server.json(['pane', 'split', root, '--direction', 'right', '--ratio', '0.25', '--no-focus'])).result.pane;
  const below = (await server.json(['pane', 'split', right.pane_id, '--direction', 'down', '--ratio', '0.84', '--no-focus'])).result.pane;
  const pane = (await server.json(['pane', 'get', right.pane_id])).result.pane;
  return { pane: pane.pane_id, size: `${pane.cols}x${pane.rows}`, below: below.pane_id };
}

async function startReplay(server, kind) {
  const { pane, size } = await capturedSizePane(server);
  if (size !== '120x40') process.stderr.write(`  ${kind}: replay pane is ${size}, not the captured 120x40\n`);
  const control = join(server.dir, `${kind}.ctl`);
  const r = await server.json(['agent', 'start', `r-${kind}`, '--kind', kind, '--pane', pane, '--timeout', '30000', '--', '--control', control], { timeoutMs: 40_000 });
  if (r.result.agent.kind !== kind) throw new Error(`expected ${kind}, got ${JSON.stringify(r.result.agent)}`);
  return { pane, control: await FakeControl.connectTo(control), agent: r.result.agent };
}

const matches = (status, expected) => (expected === 'idle' ? isIdleStatus(status) : status === expected);

export async function run({ quick = false } = {}) {
  const rounds = quick ? 1 : 3;
  const windowMs = quick ? 3000 : 10_000;
  const server = replayServer();
  const shells = replayServer();
  const rows = [];
  let rpc;
  const replays = [];
  try {
    await Promise.all([server.start(), shells.start()]);
    rpc = await RpcClient.open(server.socketPath);
    await rpc.call('events.subscribe', { types: ['agent.status_changed'] });
    let unexpected = 0;
    for (const kind of KINDS) {
      const { pane, control } = await startReplay(server, kind);
      replays.push(control);
      const isMine = (e) => e.pane_id === pane && e.previous_status !== undefined;
      const latency = [];
      let status = 'idle';
      const total = rounds * 20;
      for (let i = 0, timed = 0; timed < total && i < total * 4; i++) {
        rpc.drainEvents();
        control.write('step\n');
        const step = await control.next((m) => m.event === 'step', 5000);
        if (step.expected === status) {
          await sleep(150);
          continue;
        }
        for (;;) {
          const { event, receivedAt } = await rpc.nextEvent(isMine, 8000).catch(() => ({ event: null }));
          if (!event) {
            unexpected++;
            process.stderr.write(`  ${kind}: no event for ${step.state} (${step.expected})\n`);
            break;
          }
          if (!matches(event.agent_status, step.expected)) {
            unexpected++;
            process.stderr.write(`  ${kind}: ${event.agent_status} during ${step.state} (${step.expected})\n`);
            continue;
          }
          latency.push({ ms: receivedAt - step.t, toIdle: step.expected === 'idle' });
          break;
        }
        status = step.expected;
        timed++;
        await sleep(150 + Math.random() * 250);
      }
      const confirm = idleConfirmMs(kind);
      const busy = stats(latency.filter((l) => !l.toIdle).map((l) => l.ms));
      const idle = stats(latency.filter((l) => l.toIdle).map((l) => l.ms));
      rows.push({ name: `${kind}: →working/blocked, screen → event p50 (n=${busy.n}, max ${busy.max})`, value: busy.p50, p95: busy.p95, unit: 'ms', target: 'p95 < 400 ms', pass: busy.p95 < 400 });
      rows.push({ name: `${kind}: →idle incl. ${confirm} ms idle_confirm_ms, p50 (n=${idle.n}, max ${idle.max})`, value: idle.p50, p95: idle.p95, unit: 'ms', target: `p95 < ${confirm + 400} ms`, pass: idle.p95 < confirm + 400 });
    }
    rows.push({ name: `detect: unexpected or missing status events over ${KINDS.length} kinds`, value: unexpected, unit: 'events', target: '0', pass: unexpected === 0 });

    // Six idle recognised agents (each replay at rest on an idle screen) vs six idle bash panes.
    for (let i = 0; i < KINDS.length; i++) await corralPaneReady(shells, await shells.newWorkspacePane());
    const list = (await server.json(['agent', 'list'])).result.agents;
    const idle = list.filter((a) => isIdleStatus(a.agent_status));
    await sleep(2000);
    const before = [cpuSeconds(server.pid), cpuSeconds(shells.pid)];
    const t0 = performance.now();
    await sleep(windowMs);
    const secs = (performance.now() - t0) / 1000;
    const [agentPct, shellPct] = [cpuSeconds(server.pid) - before[0], cpuSeconds(shells.pid) - before[1]].map((c) => (c / secs) * 100);
    rows.push({ name: `cpu: server with 6 idle recognised agents, one per kind (${idle.length} idle: ${idle.map((a) => a.kind).join(',')})`, value: round(agentPct, 2), unit: '% core', target: '< 2 %', pass: agentPct < 2 && idle.length === KINDS.length });
    rows.push({ name: 'cpu: server with 6 idle bash panes (same window)', value: round(shellPct, 2), unit: '% core' });
    return rows;
  } finally {
    for (const c of replays) {
      c.write('quit\n');
      c.close();
    }
    rpc?.close();
    await Promise.all([server.stop(), shells.stop()]);
  }
}
