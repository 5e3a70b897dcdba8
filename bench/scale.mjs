/**
 * Scale: what corral costs as panes add up, side by side with tmux in the same run.
 *
 * 1. Scrollback memory: 20 panes (160×48) each print 20,000 lines of ~70 characters, so each
 *    holds a full 10,000-line scrollback. Server RSS (VmRSS) afterwards, 3 s and 30 s after
 *    the server's CPU went quiet (compact encoding, the memory release and the idle trim):
 *    corral with the compact store, corral with it off (CORRAL_COMPACT_SCROLLBACK=0: every
 *    row in xterm, as before), and tmux (history-limit 10000).
 * 2. Pane count 1, 10, 50, 100 (`--quick`: 1, 10): half idle bash shells, half idle stand-in
 *    agents (bench/fixtures/fake-claude; in corral started with `agent start`, so recognised
 *    as claude and idle). Per count: server CPU over the same window for both servers, server
 *    RSS for both (read after the server's idle trim), and corral's `fleet.list` and `surface.status`, 100 calls each on a held
 *    socket, interleaved with `system.ping` (the floor: socket hop, JSON-RPC, scheduling on
 *    this machine): the server-side p50/p95 the server measured itself (`system.stats`: from
 *    the request line's parse to the reply handed to the socket — what the target is
 *    about — and the CPU time the server used meanwhile, which tells the request's own cost
 *    from the OS running other processes) and the round trip seen by the client. At the largest count: `corral ps --json`
 *    against bare `node -e 0`, and event fan-out (see below).
 * 3. Event fan-out: `pane.focused` events triggered one at a time; latency from the call to
 *    the event's arrival at a reading subscriber that subscribed last (so the server writes to
 *    it after every other), with 1 subscriber and with 20 subscribers (all event types) of
 *    which one never reads its socket; the two alternate over several rounds. The 19 others
 *    run in a process of their own (bench/fixtures/event-subscribers.mjs): in this process,
 *    draining them delayed the measured reader, so the figure measured the bench. Then the
 *    server's own fan-out time (`system.stats`: handing one event to every subscriber) over
 *    520 events with each set of subscribers.
 * 4. Memory against the fair baseline: the floor in the same run — a bare `node -e` doing
 *    nothing, a `node` that has loaded the server's modules and does nothing (what any Node
 *    server costs before its first pane), a server with no pane — and the slope —
 *    RSS added per pane from 1 to 100 panes, and per 10,000-line pane — for corral and tmux.
 *    A flood: one pane (160×48) running `yes` of 150-character lines for FLOOD_SECONDS; RSS
 *    sampled every 250 ms for both servers, and again once quiet.
 */
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { RpcClient, agentServer, FAKE_DIR, isIdleStatus, runAndWait, stats } from './agent-lib.mjs';
import { BIN, CLK_TCK, TmuxServer, cpuSeconds, median, round, rssMiB, sleep, timeSpawn, maxOf } from './lib.mjs';

const FLOOD_SECONDS = 15;
/** 20 panes' floods on a shared 2-core machine under load can take minutes. */
const FLOOD_TIMEOUT_MS = 600_000;
/** `yes` of a 150-character line: the flood. */
const FLOOD_COMMAND = `timeout ${FLOOD_SECONDS} yes "$(printf 'flood %.0s0123456789' $(seq 1 10))"`;

export const description = 'scale: memory, CPU and API latency from 1 to 100 panes, corral vs tmux';

/**
 * How long an idle server is left before its RSS is read: two of the idle trim's 6 s checks
 * and a margin (memory-release.ts `idleCheckMs`; the first check after a busy spell may come
 * too soon and retry), so the figure is what stays, not the young generation of the set-up.
 */
const IDLE_TRIM_WAIT_MS = 14_000;

const SCROLLBACK_PANES = 20;
const SCROLLBACK_LINES = 20_000;
const LINE_FORMAT = "scrollback line %06g: the quick brown fox jumps over the lazy dog, twice";


async function rpcOf(server) {
  return RpcClient.open(server.socketPath);
}

/** A workspace (root pane id) via the held socket. */
async function newPane(rpc, cwd) {
  const { result } = await rpc.call('workspace.create', { cwd, focus: false });
  return result.root_pane.pane_id;
}

async function tmuxRunAndWait(tmux, pane, command, channel, timeoutMs = 120_000) {
  await tmux.must(['send-keys', '-t', pane, `${command}; tmux wait-for -S ${channel}`, 'Enter']);
  await tmux.must(['wait-for', channel], { timeoutMs });
}

/** Waits until the server's CPU stops moving (compact encoding runs once panes are quiet). */
async function settle(pid, { quietMs = 1000, timeoutMs = 20_000 } = {}) {
  const deadline = Date.now() + timeoutMs;
  let last = cpuSeconds(pid);
  while (Date.now() < deadline) {
    await sleep(quietMs);
    const now = cpuSeconds(pid);
    if (now - last <= 1 / CLK_TCK) return;
    last = now;
  }
}

async function corralScrollbackRss(compact, quick) {
  const server = agentServer();
  if (!compact) server.env.CORRAL_COMPACT_SCROLLBACK = '0';
  const panes = quick ? 4 : SCROLLBACK_PANES;
  try {
    await server.start();
    const rpc = await rpcOf(server);
    const ids = [];
    for (let i = 0; i < panes; i++) ids.push(await newPane(rpc, server.dir));
    // The peak while every pane floods at once (issue 32: raw rows bounded across panes).
    const floodStart = performance.now();
    const flood = await rssWhile(server.pid, () => Promise.all(ids.map((p, i) => runAndWait(rpc, p, `seq -f '${LINE_FORMAT}' 1 ${SCROLLBACK_LINES}`, `sb${i}`, FLOOD_TIMEOUT_MS))));
    const floodSeconds = (performance.now() - floodStart) / 1000;
    // Every pane really holds its scrollback: the oldest kept line is there.
    const first = await rpc.call('pane.read', { pane_id: ids[0], source: 'recent', lines: 10_000 });
    if (!first.result.read.text.includes(`line ${String(SCROLLBACK_LINES - 9_950).padStart(6, '0')}`)) throw new Error('scrollback not kept');
    rpc.close();
    await settle(server.pid);
    // Raw rows are encoded once panes are quiet, the memory they held is collected soon after,
    // and V8's young generation is trimmed once the server is idle (src/terminal/
    // memory-release.ts: checks every 6 s, a retry if the first came too soon): measure at 3 s
    // and at 30 s after the CPU went quiet, what stays.
    await sleep(3000);
    const early = rssMiB(server.pid);
    await sleep(quick ? 12_000 : 27_000);
    const rss = rssMiB(server.pid);
    // What holds it, as the server sees itself (a fresh connection: the old one was closed).
    const probe = await rpcOf(server);
    const { memory } = await serverStats(probe);
    probe.close();
    return { rss, early, panes, memory, peak: flood.peak, floodSeconds };
  } finally {
    await server.stop();
  }
}

async function tmuxScrollbackRss(quick) {
  const tmux = new TmuxServer();
  const panes = quick ? 4 : SCROLLBACK_PANES;
  try {
    const ids = [await tmux.start(160, 48)];
    for (let i = 1; i < panes; i++) ids.push(await tmux.newWindowPane());
    const pid = await tmux.pid();
    const floodStart = performance.now();
    const flood = await rssWhile(pid, () => Promise.all(ids.map((p, i) => tmuxRunAndWait(tmux, p, `seq -f '${LINE_FORMAT}' 1 ${SCROLLBACK_LINES}`, `sb${i}`, FLOOD_TIMEOUT_MS))));
    const floodSeconds = (performance.now() - floodStart) / 1000;
    await settle(pid);
    return { rss: rssMiB(pid), panes, peak: flood.peak, floodSeconds };
  } finally {
    await tmux.stop();
  }
}

/** N panes in corral: half shells, half recognised idle fake agents. */
async function corralFleet(n) {
  const server = agentServer();
  await server.start();
  const rpc = await rpcOf(server);
  const shells = [];
  const agents = [];
  const agentCount = Math.floor(n / 2);
  for (let i = 0; i < n - agentCount; i++) shells.push(await newPane(rpc, server.dir));
  await Promise.all(shells.map((p, i) => runAndWait(rpc, p, 'true', `ready${i}`, 30_000)));
  // Agents start a few at a time: each start waits for the fake to be detected and idle.
  const agentPanes = [];
  for (let i = 0; i < agentCount; i++) agentPanes.push(await newPane(rpc, server.dir));
  for (let i = 0; i < agentPanes.length; i += 10) {
    await Promise.all(
      agentPanes.slice(i, i + 10).map(async (pane, k) => {
        const name = `a${i + k}`;
        const { result } = await rpc.call('agent.start', { name, kind: 'claude', pane_id: pane, args: ['--spinner-ms', '120'], timeout_ms: 60_000 }, 90_000);
        agents.push(result.agent);
      }),
    );
  }
  return { server, rpc, shells, agentPanes };
}

async function tmuxFleet(n) {
  const tmux = new TmuxServer();
  tmux.env.PATH = `${FAKE_DIR}:${tmux.env.PATH}`;
  const ids = [await tmux.start(160, 48)];
  for (let i = 1; i < n; i++) ids.push(await tmux.newWindowPane());
  const agentCount = Math.floor(n / 2);
  await Promise.all(ids.map((p, i) => tmuxRunAndWait(tmux, p, 'true', `ready${i}`, 30_000)));
  for (let i = 0; i < agentCount; i++) await tmux.must(['send-keys', '-t', ids[ids.length - 1 - i], 'claude --spinner-ms 120', 'Enter']);
  // The fakes draw their idle screen at once; give the slowest node start a moment.
  await sleep(Math.min(10_000, 1000 + agentCount * 100));
  return { tmux, pid: await tmux.pid(), ids };
}

/** Round trips of several calls, interleaved (the order rotates each round): {name: stats}. */
async function latencies(rpc, calls, count) {
  const ms = calls.map(() => []);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < calls.length; k++) {
      const j = (i + k) % calls.length;
      const t0 = performance.now();
      await rpc.call(calls[j].method, calls[j].params(i));
      ms[j].push(performance.now() - t0);
    }
  }
  return Object.fromEntries(calls.map((c, j) => [c.method, stats(ms[j])]));
}

/** The server's own measurements (`system.stats`). */
async function serverStats(rpc) {
  return (await rpc.call('system.stats', {})).result;
}

/** The round trip of a `pane.read` that wakes each pane, then of the same read again. */
async function wakeCost(rpc, panes) {
  const time = async (pane) => {
    const start = performance.now();
    await rpc.call('pane.read', { pane_id: pane, source: 'visible' });
    return performance.now() - start;
  };
  const asleep = [];
  const awake = [];
  for (const pane of panes) {
    asleep.push(await time(pane));
    awake.push(await time(pane));
  }
  return { n: panes.length, asleep: round(median(asleep), 2), awake: round(median(awake), 2) };
}

/**
 * Waits until `n` pane terminals are asleep (hibernation.ts: 30 s untouched, a sweep every
 * 10 s), or the longest that can take has passed; returns how many are.
 */
async function untilAsleep(rpc, n, timeoutMs = 50_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { asleep } = (await serverStats(rpc)).terminals;
    if (asleep >= n || Date.now() > deadline) return asleep;
    await sleep(1000);
  }
}

/** RSS of a bare node that loaded the server's modules (dist/server.js) and does nothing. */
async function nodeBaselineRss(env) {
  const url = new URL('../dist/server.js', import.meta.url).href;
  const child = spawn(process.execPath, ['--input-type=module', '-e', `await import(${JSON.stringify(url)}); process.stdout.write('ready'); setInterval(() => {}, 1e9);`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      child.stdout.once('data', resolve);
      child.once('exit', (code) => reject(new Error(`node baseline exited ${code}`)));
    });
    await sleep(2000);
    return rssMiB(child.pid);
  } finally {
    child.kill('SIGKILL');
  }
}

/** RSS of `node -e` doing nothing: the floor any Node program starts from, on this machine, now. */
async function bareNodeRss(env) {
  const child = spawn(process.execPath, ['-e', `process.stdout.write('ready'); setInterval(() => {}, 1e9);`], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await new Promise((resolve, reject) => {
      child.stdout.once('data', resolve);
      child.once('exit', (code) => reject(new Error(`bare node exited ${code}`)));
    });
    await sleep(2000);
    return rssMiB(child.pid);
  } finally {
    child.kill('SIGKILL');
  }
}

/** RSS of a corral server with no pane, after its idle trim. */
async function emptyServerRss() {
  const server = agentServer();
  try {
    await server.start();
    await settle(server.pid);
    await sleep(IDLE_TRIM_WAIT_MS);
    return rssMiB(server.pid);
  } finally {
    await server.stop();
  }
}

/** Samples a process's RSS every 250 ms while `during` runs: {peak, at: [MB at each third]}. */
async function rssWhile(pid, during) {
  const samples = [];
  let done = false;
  const sampler = (async () => {
    while (!done) {
      try {
        samples.push(rssMiB(pid));
      } catch {
        /* gone */
      }
      await sleep(250);
    }
  })();
  try {
    await during();
  } finally {
    done = true;
    await sampler;
  }
  const third = (k) => samples[Math.min(samples.length - 1, Math.floor((samples.length * k) / 3) - 1)] ?? NaN;
  return { peak: maxOf(samples), thirds: [third(1), third(2), third(3)] };
}

async function corralFlood() {
  const server = agentServer();
  try {
    await server.start();
    const rpc = await rpcOf(server);
    const pane = await newPane(rpc, server.dir);
    await runAndWait(rpc, pane, 'true', 'ready', 30_000);
    const before = rssMiB(server.pid);
    const during = await rssWhile(server.pid, () => runAndWait(rpc, pane, FLOOD_COMMAND, 'flood', (FLOOD_SECONDS + 60) * 1000));
    rpc.close();
    await settle(server.pid);
    await sleep(30_000);
    return { before, ...during, after: rssMiB(server.pid) };
  } finally {
    await server.stop();
  }
}

async function tmuxFlood() {
  const tmux = new TmuxServer();
  try {
    const pane = await tmux.start(160, 48);
    await tmuxRunAndWait(tmux, pane, 'true', 'ready', 30_000);
    const pid = await tmux.pid();
    const before = rssMiB(pid);
    const during = await rssWhile(pid, () => tmuxRunAndWait(tmux, pane, FLOOD_COMMAND, 'flood', (FLOOD_SECONDS + 60) * 1000));
    await settle(pid);
    return { before, ...during, after: rssMiB(pid) };
  } finally {
    await tmux.stop();
  }
}

async function cliVsNode(server, rounds) {
  const corralMs = [];
  const nodeMs = [];
  for (let i = 0; i < rounds; i++) {
    const a = await timeSpawn(process.execPath, [BIN, 'ps', '--json'], { env: server.env });
    if (a.code !== 0) throw new Error(`ps --json exited ${a.code}: ${a.stderr}`);
    corralMs.push(a.ms);
    nodeMs.push((await timeSpawn(process.execPath, ['-e', '0'], { env: server.env })).ms);
  }
  return { corral: median(corralMs), node: median(nodeMs) };
}

const SUBSCRIBERS_FIXTURE = new URL('./fixtures/event-subscribers.mjs', import.meta.url).pathname;

/**
 * `count` subscribers in another process (bench/fixtures/event-subscribers.mjs): `stuck` of
 * them never read, the rest read and discard. Resolves once all are subscribed, with `close`.
 */
async function subscribers(server, count, stuck) {
  const child = spawn(process.execPath, [SUBSCRIBERS_FIXTURE, server.socketPath, String(count), String(stuck)], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`event subscribers exited ${code}`)));
  });
  child.removeAllListeners('exit');
  return {
    pid: child.pid,
    close: () => new Promise((resolve) => {
      child.once('exit', resolve);
      child.stdin.end();
    }),
  };
}

/**
 * Latency from `pane.focus` to its `pane.focused` event at one measured subscriber, which
 * subscribes after the others (so the server writes to it last). The others only drain their
 * sockets without parsing, so the figure is the server's fan-out, not this process parsing
 * 20 streams. Timed to the event's arrival, not to the call's reply.
 */
async function fanOutRound(server, rpc, panes, events) {
  const reader = await RpcClient.open(server.socketPath);
  reader.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'events.subscribe', params: { types: ['pane.focused'] } }) + '\n');
  await reader.next((m) => m.id === 1, 10_000);
  const ms = [];
  for (let i = 0; i < events; i++) {
    const pane = panes[i % panes.length];
    reader.drainEvents();
    const t0 = performance.now();
    let arrived = NaN;
    const got = reader.nextEvent((e) => e.type === 'pane.focused' && e.pane_id === pane, 10_000).then(() => {
      arrived = performance.now();
    });
    await rpc.call('pane.focus', { pane_id: pane });
    await got;
    ms.push(arrived - t0);
  }
  reader.close();
  return ms;
}

/** Waits until the server counts `n` subscribers (a closed subscriber's socket is noticed a moment later). */
async function untilSubscribers(rpc, n) {
  for (let i = 0; i < 500; i++) {
    if ((await serverStats(rpc)).events.subscribers === n) return;
    await sleep(10);
  }
  throw new Error(`the server still counts subscribers other than ${n}`);
}

/** Event delivery with 1 subscriber and with 20 (1 stuck), alternating: {one, twenty} latencies and server fan-out times. */
async function fanOut(server, rpc, panes, rounds, events) {
  const one = [];
  const twenty = [];
  const base = (await serverStats(rpc)).events.subscribers;
  for (let r = 0; r < rounds; r++) {
    for (const many of r % 2 ? [true, false] : [false, true]) {
      const others = many ? await subscribers(server, 19, 1) : null;
      (many ? twenty : one).push(...(await fanOutRound(server, rpc, panes, events)));
      await others?.close();
      await untilSubscribers(rpc, base);
    }
  }
  // The server's own fan-out time, over a full window of events per set of subscribers.
  const serverSide = async (count, stuck) => {
    const others = await subscribers(server, count, stuck);
    for (let i = 0; i < 520; i++) await rpc.call('pane.focus', { pane_id: panes[i % panes.length] });
    const { fan_out } = (await serverStats(rpc)).events;
    await others.close();
    await untilSubscribers(rpc, base);
    return fan_out;
  };
  return { one: stats(one), twenty: stats(twenty), serverOne: await serverSide(1, 0), serverTwenty: await serverSide(20, 1) };
}

/** 1. Scrollback memory: 20 panes × 20,000 lines in corral (store on, and off) and tmux. */
async function scrollbackFigures(add, quick) {
  const compactRss = await corralScrollbackRss(true, quick);
  // SCALE_SKIP_STORE_OFF=1 leaves out the store-off figure (the slowest part; it only shows the before).
  const fullRss = process.env.SCALE_SKIP_STORE_OFF ? null : await corralScrollbackRss(false, quick);
  const tmuxRss = await tmuxScrollbackRss(quick);
  const label = `${compactRss.panes} panes × ${SCROLLBACK_LINES} lines (10,000 kept)`;
  add({ name: `scale: server RSS, ${label}, 30 s after quiet`, value: round(compactRss.rss, 0), unit: 'MB', baseline: 'tmux', baselineValue: round(tmuxRss.rss, 0), ratio: round(compactRss.rss / tmuxRss.rss), target: '≤ 1.5×', pass: compactRss.rss <= 1.5 * tmuxRss.rss });
  add({ name: `scale: server RSS peak while the ${compactRss.panes} panes flood at once (sampled every 250 ms)`, value: round(compactRss.peak, 0), unit: 'MB', baseline: 'tmux', baselineValue: round(tmuxRss.peak, 0), ratio: round(compactRss.peak / tmuxRss.peak), target: '≤ 2.5×', pass: compactRss.peak <= 2.5 * tmuxRss.peak });
  add({ name: `scale: the ${compactRss.panes} floods at once, start to every end marker seen`, value: round(compactRss.floodSeconds, 2), unit: 's', baseline: 'tmux', baselineValue: round(tmuxRss.floodSeconds, 2), ratio: round(compactRss.floodSeconds / tmuxRss.floodSeconds) });
  add({ name: `scale: server RSS, ${label}, 3 s after quiet (before the idle trim)`, value: round(compactRss.early, 0), unit: 'MB', baseline: 'tmux', baselineValue: round(tmuxRss.rss, 0), ratio: round(compactRss.early / tmuxRss.rss) });
  const mb = (bytes) => round(bytes / 1048576, 0);
  const m = compactRss.memory;
  add({ name: `scale: where it is, ${label}: V8 heap in use / reserved, array buffers (xterm rows, raw rings)`, value: `${mb(m.heap_used)} / ${mb(m.heap_total)}, ${mb(m.array_buffers)}`, unit: 'MB', baseline: 'RSS', baselineValue: round(compactRss.rss, 0) });
  if (fullRss) add({ name: `scale: server RSS, ${label}, compact store off`, value: round(fullRss.rss, 0), unit: 'MB', baseline: 'tmux', baselineValue: round(tmuxRss.rss, 0), ratio: round(fullRss.rss / tmuxRss.rss) });
  return { compactRss, tmuxRss };
}

export async function run({ quick = false } = {}) {
  const rows = [];
  // Each figure also goes to stderr as it is measured, so a run cut short keeps what it measured.
  const add = (row) => {
    rows.push(row);
    process.stderr.write(`  ${JSON.stringify(row)}\n`);
  };
  const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

  const loadBefore = load();
  // SCALE_ONLY_COUNTS=1 skips the scrollback memory figures: the pane counts and the floor alone.
  const scrollback = process.env.SCALE_ONLY_COUNTS ? null : await scrollbackFigures(add, quick);
  // SCALE_ONLY_SCROLLBACK=1 stops here: the scrollback memory figures alone (a few minutes less).
  if (process.env.SCALE_ONLY_SCROLLBACK) return rows;

  // 2. Pane counts.
  const counts = quick ? [1, 10] : [1, 10, 50, 100];
  const perCount = [];
  const windowMs = quick ? 2000 : 5000;
  for (const n of counts) {
    const c = await corralFleet(n);
    const t = await tmuxFleet(n);
    // A fresh held socket: setting up tmux under load can outlast the server's 60 s idle close.
    c.rpc.close();
    c.rpc = await rpcOf(c.server);
    try {
      const list = (await c.rpc.call('fleet.list', {})).result.agents;
      const idle = list.filter((a) => a.tool === 'claude' && isIdleStatus(a.agent_status)).length;
      await sleep(2000);
      const c0 = cpuSeconds(c.server.pid);
      const t0 = cpuSeconds(t.pid);
      const start = performance.now();
      await sleep(windowMs);
      const elapsed = (performance.now() - start) / 1000;
      const cpu = ((cpuSeconds(c.server.pid) - c0) / elapsed) * 100;
      const tcpu = ((cpuSeconds(t.pid) - t0) / elapsed) * 100;
      // Memory once idle panes' terminals are asleep (30 s untouched, hibernation.ts) and the
      // server's idle trim has run (it looks every 6 s, memory-release.ts).
      const asleep = await untilAsleep(c.rpc, n);
      await sleep(IDLE_TRIM_WAIT_MS);
      const rss = rssMiB(c.server.pid);
      const trss = rssMiB(t.pid);
      const all = [...c.shells, ...c.agentPanes];
      if (n === counts.at(-1) && asleep > 0) {
        const wake = await wakeCost(c.rpc, all.slice(0, Math.min(10, all.length)));
        add({ name: `scale: pane.read of a pane asleep (its terminal rebuilt from its output) vs the same read awake, ${wake.n} panes (round trip, median)`, value: wake.asleep, unit: 'ms', baseline: 'awake', baselineValue: wake.awake, ratio: round(wake.asleep / wake.awake) });
      }
      const rounds = await latencies(
        c.rpc,
        [
          { method: 'fleet.list', params: () => ({}) },
          { method: 'surface.status', params: (i) => ({ target: all[i % all.length] }) },
          { method: 'system.ping', params: () => ({}) },
        ],
        100,
      );
      const fleet = rounds['fleet.list'];
      const status = rounds['surface.status'];
      const ping = rounds['system.ping'];
      const server = (await serverStats(c.rpc)).requests;
      const tag = `${n} panes (${c.shells.length} shells, ${c.agentPanes.length} agents, ${idle} seen idle, ${asleep} asleep)`;
      perCount.push({ n, rss, trss });
      add({ name: `scale: server CPU, ${tag}, ${round(elapsed, 0)} s`, value: round(cpu, 2), unit: '% core', baseline: 'tmux', baselineValue: round(tcpu, 2), target: n === 100 ? '< 1%' : undefined, pass: n === 100 ? cpu < 1 : undefined });
      add({ name: `scale: server RSS, ${tag}`, value: round(rss, 0), unit: 'MB', baseline: 'tmux', baselineValue: round(trss, 0), ratio: round(rss / trss), target: n === 100 ? '< 120 MB, ≤ 1.5×' : undefined, pass: n === 100 ? rss < 120 && rss <= 1.5 * trss : undefined });
      for (const [method, trip] of [['fleet.list', fleet], ['surface.status', status]]) {
        const own = server[method];
        add({ name: `scale: ${method} server-side, ${n} panes (p50; last ${own.window} calls)`, value: round(own.p50_ms, 2), p95: round(own.p95_ms, 2), unit: 'ms', baseline: 'server CPU p50 / p95; round trip p50 / p95', baselineValue: `${round(own.cpu_p50_ms, 2)} / ${round(own.cpu_p95_ms, 2)}; ${trip.p50} / ${trip.p95}`, target: n === 100 ? 'p95 < 5 ms' : undefined, pass: n === 100 ? own.p95_ms < 5 : undefined });
      }
      add({ name: `scale: system.ping round trip (the floor), ${n} panes`, value: ping.p50, p95: ping.p95, unit: 'ms', baseline: 'server-side p50 / p95', baselineValue: `${round(server['system.ping'].p50_ms, 2)} / ${round(server['system.ping'].p95_ms, 2)}` });
      if (n === counts.at(-1)) {
        const cli = await cliVsNode(c.server, quick ? 5 : 15);
        add({ name: `scale: corral ps --json, ${n} panes (median)`, value: round(cli.corral, 1), unit: 'ms', baseline: 'node -e 0', baselineValue: round(cli.node, 1), ratio: round(cli.corral / cli.node), target: '≤ 1.3×', pass: cli.corral <= 1.3 * cli.node });
        const fan = await fanOut(c.server, c.rpc, all.slice(0, 10), quick ? 2 : 6, quick ? 10 : 40);
        add({ name: `scale: event delivery, 20 subscribers (1 stuck) vs 1, ${n} panes (p50; ${fan.twenty.n} events each, alternating)`, value: fan.twenty.p50, p95: fan.twenty.p95, unit: 'ms', baseline: '1 subscriber p50 / p95', baselineValue: `${fan.one.p50} / ${fan.one.p95}`, ratio: fan.one.p50 > 0 ? round(fan.twenty.p50 / fan.one.p50) : null, target: 'no slower', pass: fan.twenty.p50 <= fan.one.p50 * 1.3 + 0.1 });
        add({ name: `scale: server fan-out time per event, 20 subscribers (1 stuck) vs 1 (p50; last ${fan.serverTwenty.window} events)`, value: round(fan.serverTwenty.p50_ms, 3), p95: round(fan.serverTwenty.p95_ms, 3), unit: 'ms', baseline: '1 subscriber p50 / p95', baselineValue: `${round(fan.serverOne.p50_ms, 3)} / ${round(fan.serverOne.p95_ms, 3)}` });
      }
    } finally {
      c.rpc.close();
      await Promise.allSettled([c.server.stop(), t.tmux.stop()]);
    }
  }
  // 4. Memory against the fair baseline, and a flood.
  const bare = await bareNodeRss(agentServer().env);
  const baseline = await nodeBaselineRss(agentServer().env);
  const empty = await emptyServerRss();
  add({ name: 'scale: memory floor: bare node idle / node with the server modules loaded / server with no pane (after idle trim)', value: `${round(bare, 0)} / ${round(baseline, 0)} / ${round(empty, 0)}`, unit: 'MB' });
  for (const { n, rss, trss } of perCount) {
    add({ name: `scale: RSS above bare node, ${n} panes`, value: round(rss - bare, 0), unit: 'MB', baseline: 'tmux (whole server)', baselineValue: round(trss, 1), ratio: round((rss - bare) / trss) });
  }
  const first = perCount[0];
  const last = perCount.at(-1);
  const slope = (last.rss - first.rss) / (last.n - first.n);
  const tslope = (last.trss - first.trss) / (last.n - first.n);
  add({ name: 'scale: bare node with the server modules loaded, no panes', value: round(baseline, 0), unit: 'MB', baseline: `corral, ${first.n} pane`, baselineValue: round(first.rss, 0) });
  add({ name: `scale: RSS per added idle pane (${first.n} → ${last.n} panes)`, value: round(slope, 2), unit: 'MB/pane', baseline: 'tmux', baselineValue: round(tslope, 2), ratio: tslope > 0 ? round(slope / tslope) : null, target: '≤ 0.2 MB/pane', pass: slope <= 0.2 });
  add({ name: `scale: RSS above node with the server modules loaded, ${last.n} panes`, value: round(last.rss - baseline, 0), unit: 'MB', baseline: 'tmux (whole server)', baselineValue: round(last.trss, 0), ratio: round((last.rss - baseline) / last.trss) });
  if (scrollback) {
    const { compactRss, tmuxRss } = scrollback;
    const sbSlope = (compactRss.rss - first.rss) / compactRss.panes;
    const sbTslope = (tmuxRss.rss - first.trss) / compactRss.panes;
    add({ name: `scale: RSS per pane holding 10,000 lines (${compactRss.panes} panes, over the ${first.n}-pane server)`, value: round(sbSlope, 2), unit: 'MB/pane', baseline: 'tmux', baselineValue: round(sbTslope, 2), ratio: round(sbSlope / sbTslope), target: '≤ 1.5×', pass: sbSlope <= 1.5 * sbTslope });
  }
  if (!quick) {
    const cf = await corralFlood();
    const tf = await tmuxFlood();
    const fmt = (f) => `${round(f.before, 0)} → ${f.thirds.map((x) => round(x, 0)).join(' / ')} (peak ${round(f.peak, 0)}) → ${round(f.after, 0)}`;
    add({ name: `scale: RSS while one pane floods for ${FLOOD_SECONDS} s (before → at 1/3, 2/3, end (peak) → quiet)`, value: fmt(cf), unit: 'MB', baseline: 'tmux', baselineValue: fmt(tf) });
    add({ name: `scale: flood RSS growth from the first third to the end (bounded: ~0)`, value: round(cf.thirds[2] - cf.thirds[0], 0), unit: 'MB', baseline: 'tmux', baselineValue: round(tf.thirds[2] - tf.thirds[0], 0) });
  }
  add({ name: `scale: machine load average before / after`, value: `${loadBefore} / ${load()}`, unit: '' });
  return rows;
}
