/**
 * Requests cannot freeze or bloat the server (SPEC §3, issue 10 item 4). A corral server with
 * 20 panes, one of them flooding (`yes` of 150-character lines), and:
 *
 *   quiet   `surface.status` of another pane, in a row from one client for 6 s: p95.
 *   abused  the same while a second client pipelines 1000 `surface.read {lines: 2000}` (~200 KB
 *           replies, ~200 MB in all) and never reads a reply: p95 and the worst call within
 *           a 6 s window (a call that started in it runs to its end), and the server's peak
 *           RSS growth over the same window.
 *
 * The ratio is abused / quiet p95 on the same server in the same run. With replies bounded
 * (8 MiB per connection, one request per turn, reading paused until the client drains) the
 * abuse costs other clients little and the server's memory stays flat; without the bound the
 * reads ran back to back and the server held every reply.
 */
import { connect } from 'node:net';
import { CorralServer, cpuSeconds, percentile, round, rssMiB, sleep, maxOf } from './lib.mjs';

export const description = 'surface.status p95 and server memory while a client pipelines large reads and does not read';

const PANES = 20;
const READS = 1000;


/** A minimal NDJSON JSON-RPC client over the server's socket. */
async function rpcClient(path) {
  const socket = connect(path);
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buffer = '';
  let nextId = 1;
  const pending = new Map();
  socket.on('data', (chunk) => {
    buffer += chunk.toString('utf8');
    let newline;
    while ((newline = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, newline));
      buffer = buffer.slice(newline + 1);
      const settle = pending.get(message.id);
      if (!settle) continue;
      pending.delete(message.id);
      if (message.error) settle.reject(new Error(message.error.message));
      else settle.resolve(message.result);
    }
  });
  return {
    call(method, params) {
      const id = nextId++;
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
    },
    close: () => socket.destroy(),
  };
}

/** Times `surface.status` calls one after another until `count` are done or `windowMs` has passed. */
async function statusLatencies(client, target, { count = Infinity, windowMs = Infinity, onSample = () => {} } = {}) {
  const ms = [];
  const until = performance.now() + windowMs;
  while (ms.length < count && performance.now() < until) {
    const t0 = performance.now();
    await client.call('surface.status', { target });
    ms.push(performance.now() - t0);
    onSample();
  }
  return ms;
}

export async function run({ quick = false } = {}) {
  const server = new CorralServer();
  try {
    await server.start();
    const socketPath = `${server.env.XDG_RUNTIME_DIR}/corral/default.sock`;
    const client = await rpcClient(socketPath);
    const panes = [];
    for (let i = 0; i < PANES; i++) panes.push((await client.call('workspace.create', { cwd: server.dir, focus: false })).root_pane.pane_id);
    const [flooder, probe] = panes;
    await client.call('pane.run', { pane_id: flooder, command: `yes "$(printf '%0150d' 0)"` });
    // Let the flood fill the flooding pane's scrollback (10 000 rows), which the big reads return.
    await sleep(quick ? 1000 : 3000);
    const generation = async () => (await client.call('surface.status', { target: flooder })).output_generation;
    const generationBefore = await generation();

    const windowMs = quick ? 3000 : 6000;
    const cpu0 = cpuSeconds(server.pid);
    const quietStart = performance.now();
    const quiet = await statusLatencies(client, probe, { windowMs });
    // Shows the flood is real: the server parses it all the while.
    const floodCpuPct = ((cpuSeconds(server.pid) - cpu0) / ((performance.now() - quietStart) / 1000)) * 100;
    if ((await generation()) === generationBefore) throw new Error('the flooding pane printed nothing');

    const rssBefore = rssMiB(server.pid);
    let rssPeak = rssBefore;
    const hog = connect(socketPath);
    await new Promise((resolve) => hog.once('connect', resolve));
    hog.pause();
    const read = (i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'surface.read', params: { target: flooder, lines: 2000, raw: true } });
    hog.write(Array.from({ length: READS }, (_, i) => read(i)).join('\n') + '\n');
    const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssMiB(server.pid))), 100);
    const abused = await statusLatencies(client, probe, {
      windowMs,
      onSample: () => (rssPeak = Math.max(rssPeak, rssMiB(server.pid))),
    });
    clearInterval(sampler);
    hog.destroy();
    client.close();

    const quietP95 = percentile(quiet, 95);
    const abusedP95 = percentile(abused, 95);
    return [
      {
        name: `surface.status p95, ${PANES} panes, one flooding (${quiet.length} calls in ${windowMs / 1000} s; server CPU ${round(floodCpuPct, 0)} %)`,
        value: round(quietP95, 2),
        unit: 'ms',
      },
      {
        name: `surface.status p95 while a client pipelines ${READS} large reads and does not read (${abused.length} calls in the window, worst ${round(maxOf(abused), 0)} ms)`,
        value: round(abusedP95, 2),
        unit: 'ms',
        baseline: 'same, no abuser',
        baselineValue: round(quietP95, 2),
        ratio: round(abusedP95 / quietP95, 2),
        target: 'p95 < 100 ms',
        pass: abusedP95 < 100,
      },
      {
        name: `server RSS growth from that client (before ${round(rssBefore, 0)} MiB)`,
        value: round(rssPeak - rssBefore, 0),
        unit: 'MiB',
        target: '< 64 MiB (replies bounded at 8 MiB)',
        pass: rssPeak - rssBefore < 64,
      },
    ];
  } finally {
    await server.stop();
  }
}
