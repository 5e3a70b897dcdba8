/**
 * Sessions that survive (docs/persistence.md): what saving costs and how fast a restore is.
 *
 * 1. Same run, two servers, 20 panes each with 2000 coloured lines of scrollback and 19 of
 *    them printing a line every 500 ms: one with persistence on (saving changed scrollback
 *    every 500 ms, 20× more often than the default 10 s, to catch the worst case), one with
 *    `persist = false`. Measured on both, interleaved:
 *    - echo: a character typed into the quiet pane (`pane.send_text`) → its `surface_changed`
 *      event, p50/p95 over N keystrokes, 60 ms apart;
 *    - flood: `cat` of a big file in that pane until its end marker (MB/s);
 *    both in alternating order (on, off, off, on, …), so load from elsewhere hits both alike.
 *    BENCH_PERSIST_FLOOD_DEFER_MS=0 makes the saving server save a flooding pane in mid-flood
 *    too (by default it waits for a pause, ≤ 10 s: see session-saver.ts).
 *    Then memory: every pane of both servers prints 10,000 more coloured lines (a full
 *    scrollback), and both servers' RSS is sampled every 5 s for 40 s after; the last sample
 *    counts (the saving one has saved every pane meanwhile).
 * 2. The state write per structural change: the `ms` of each `session.saved` after a
 *    `pane.rename` (model → JSON → temp file → fsync → rename → fsync of the directory).
 * 3. Bytes on disk per pane (state file share + compressed scrollback).
 * 4. Restore: SIGTERM the server, start a new one on the same state; time until the socket
 *    answers with all 20 panes (what an attaching client draws first) and until every
 *    restored shell has drawn its prompt below the `── restored` line.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, CorralServer, percentile, median, round, rssMiB, sleep, maxOf } from './lib.mjs';
import { generateFile } from './throughput.mjs';
import { RpcClient } from './agent-lib.mjs';

export const description = 'persistence: echo p95 and flood with saving on vs off; state write cost; bytes per pane; restore of 20×2000 lines';

const PANES = 20;
const LINES = 2000;
const PROMPT = 'bench$';

/** bench/agent-lib.mjs's client, answering with the result alone. */
class Rpc extends RpcClient {
  async request(method, params = {}) {
    return (await this.call(method, params, 620_000)).result;
  }
}

function socketOf(server) {
  return join(server.env.XDG_RUNTIME_DIR, 'corral', 'default.sock');
}

function prepare(server, { persist }) {
  writeFileSync(join(server.env.HOME, '.bashrc'), `PS1='${PROMPT} '\n`);
  if (!persist) writeFileSync(join(server.env.HOME, '.config', 'corral', 'config.toml'), 'persist = false\n');
  server.env.CORRAL_PERSIST_SCROLLBACK_MS = '500';
  if (process.env.BENCH_PERSIST_FLOOD_DEFER_MS !== undefined) server.env.CORRAL_PERSIST_FLOOD_DEFER_MS = process.env.BENCH_PERSIST_FLOOD_DEFER_MS;
}


/** Every pane prints 10,000 coloured lines (a full scrollback); resolves once all are done. */
async function fillScrollback(side) {
  writeFileSync(join(side.server.env.HOME, 'stop-ticks'), '');
  for (const pane of side.panes.slice(1)) await waitOutput(side.rpc, pane, 'TICKS-over');
  const awk = `awk 'BEGIN{for(i=1;i<=10000;i++) printf "\\033[3%dmline %d\\033[0m of a full scrollback, plain text after it\\n", i%8, i}'; printf '%s-%s\\n' FULL done`;
  for (const pane of side.panes) await side.rpc.request('pane.run', { pane_id: pane, command: awk });
  for (const pane of side.panes) await waitOutput(side.rpc, pane, 'FULL-done', 600_000);
}

async function waitOutput(rpc, pane, regex, timeoutMs = 60_000) {
  await rpc.request('pane.wait_for_output', { pane_id: pane, source: 'recent-unwrapped', match: { type: 'regex', value: regex }, timeout_ms: timeoutMs });
}

/** 5 workspaces × 4 panes, each with LINES coloured lines; all but the first keep printing. */
async function populate(rpc, server) {
  const panes = [];
  for (let w = 0; w < PANES / 4; w++) {
    const root = (await rpc.request('workspace.create', { cwd: server.env.HOME, focus: w === 0 })).root_pane.pane_id;
    panes.push(root);
    panes.push((await rpc.request('pane.split', { pane_id: root, direction: 'right' })).pane.pane_id);
    panes.push((await rpc.request('pane.split', { pane_id: panes.at(-1), direction: 'down' })).pane.pane_id);
    panes.push((await rpc.request('pane.split', { pane_id: root, direction: 'down' })).pane.pane_id);
  }
  for (const pane of panes) await waitOutput(rpc, pane, `${PROMPT.replace("$", "\\$")}`);
  for (const pane of panes) {
    await rpc.request('pane.run', {
      pane_id: pane,
      command: `for i in $(seq ${LINES}); do printf '\\033[3%dmline %d of pane ${pane} \\033[1mbold\\033[0m plain text\\n' $((i%8)) $i; done; printf '%s-%s\\n' FILLED done`,
    });
  }
  for (const pane of panes) await waitOutput(rpc, pane, 'FILLED-done');
  // The others stay busy: each save pass has 19 changed panes to read, compress and write.
  for (const pane of panes.slice(1)) {
    // `read -t` times out without a fork: a tick costs the shell a line, not a process.
    // It ends when ~/stop-ticks appears (a ctrl+c may land while `read` takes typed input as data).
    await rpc.request('pane.run', { pane_id: pane, command: `while [ ! -e ~/stop-ticks ]; do echo "tick $RANDOM"; read -r -t 0.5 _; done; printf '%s-%s\\n' TICKS over` });
  }
  return panes;
}

async function echoLatencies(rpc, pane, n) {
  const out = [];
  const letters = 'abcdefghijklmnopqrstuvwxyz';
  for (let i = 0; i < n; i++) {
    rpc.drainEvents();
    const t0 = performance.now();
    await rpc.request('pane.send_text', { pane_id: pane, text: letters[i % letters.length] });
    await rpc.nextEvent((e) => e.type === 'surface_changed' && e.pane_id === pane, 10_000);
    out.push(performance.now() - t0);
    await sleep(60);
    if (i % 40 === 39) await rpc.request('pane.send_keys', { pane_id: pane, keys: ['ctrl+u'] });
  }
  await rpc.request('pane.send_keys', { pane_id: pane, keys: ['ctrl+u'] });
  return out;
}

async function flood(rpc, pane, file) {
  const tag = Math.random().toString(36).slice(2, 8);
  const t0 = performance.now();
  await rpc.request('pane.run', { pane_id: pane, command: `cat ${file}; printf '%s-%s\\n' MARK ${tag}` });
  await waitOutput(rpc, pane, `MARK-${tag}`, 600_000);
  return (performance.now() - t0) / 1000;
}

function dirBytes(dir) {
  let total = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    total += name.isDirectory() ? dirBytes(p) : statSync(p).size;
  }
  return total;
}

/** Starts `server` again on its sandbox (after its process was ended), resolving once it listens. */
async function restart(server) {
  server.child = null;
  server.stderr = '';
  const t0 = performance.now();
  await server.start(60_000);
  return performance.now() - t0;
}

async function measure({ quick = false } = {}) {
  const keystrokes = quick ? 40 : 200;
  const floods = quick ? 2 : 4;
  const megabytes = quick ? 5 : 20;
  const dataDir = mkdtempSync(join(tmpdir(), 'corral-bench-persist-'));
  const on = new CorralServer();
  const off = new CorralServer();
  prepare(on, { persist: true });
  prepare(off, { persist: false });
  const clients = [];
  try {
    const file = join(dataDir, 'flood.txt');
    const size = await generateFile(file, megabytes * 1024 * 1024);
    readFileSync(file);
    await on.start();
    await off.start();
    const sides = [];
    for (const [name, server] of [['on', on], ['off', off]]) {
      const rpc = await Rpc.open(socketOf(server));
      clients.push(rpc);
      await rpc.request('events.subscribe', { types: ['surface_changed', 'session.saved'] });
      const panes = await populate(rpc, server);
      sides.push({ name, server, rpc, pane: panes[0], panes, echo: [], flood: [] });
    }
    // Interleaved, so background load on the machine hits both alike.
    const say = (text) => process.stderr.write(`persist bench: ${text}\n`);
    say('populated');
    for (let round_ = 0; round_ < 4; round_++) {
      for (const side of round_ % 2 ? [...sides].reverse() : sides) side.echo.push(...(await echoLatencies(side.rpc, side.pane, keystrokes / 4)));
    }
    say('echo measured');
    for (let i = 0; i < floods; i++) {
      for (const side of i % 2 ? [...sides].reverse() : sides) side.flood.push(await flood(side.rpc, side.pane, file));
    }

    say('flood measured');
    for (const side of sides) await fillScrollback(side);
    // Both sampled together every 5 s for 40 s, the last one reported: an idle server's RSS
    // moves only when a collection runs (memory-release.ts), so an early sample says more
    // about the collector's timing than about what is kept.
    const samples = [];
    for (let i = 0; i < 8; i++) {
      await sleep(5000);
      samples.push({ on: rssMiB(on.pid), off: rssMiB(off.pid) });
    }
    say(`rss samples on/off: ${samples.map((x) => `${round(x.on, 0)}/${round(x.off, 0)}`).join(' ')}`);
    const rss = samples.at(-1);
    say(`rss on ${round(rss.on)} MB, off ${round(rss.off)} MB`);
    // Where it is, as each server sees itself: V8's heap, memory outside it that V8 knows of
    // (xterm's row buffers, zlib output), and the rest (malloc arenas, code, stacks). Saving
    // on zlib's thread pool once left ~400 MB in that rest (gzip-pieces.ts).
    const memory = {};
    for (const side of sides) {
      const m = (await side.rpc.request('system.stats', {})).memory;
      const mb = (bytes) => round(bytes / 1048576, 0);
      memory[side.name] = { heap_used: mb(m.heap_used), heap_total: mb(m.heap_total), external: mb(m.external), rest: mb(m.rss - m.heap_total - m.external) };
    }
    say(`memory on ${JSON.stringify(memory.on)}, off ${JSON.stringify(memory.off)}`);
    // State write cost per structural change (persistence on).
    const onSide = sides[0];
    const writes = [];
    const builds = [];
    for (let i = 0; i < 20; i++) {
      onSide.rpc.drainEvents();
      await onSide.rpc.request('pane.rename', { pane_id: onSide.panes[i % PANES], name: `renamed-${i}` });
      const { event } = await onSide.rpc.nextEvent((e) => e.type === 'session.saved', 30_000);
      writes.push(event.ms);
      builds.push(event.build_ms);
    }
    await onSide.rpc.request('session.save', {});
    const stateDir = join(on.env.XDG_STATE_HOME, 'corral');
    const stateBytes = statSync(join(stateDir, 'default.json')).size;
    const scrollbackBytes = dirBytes(join(stateDir, 'default.scrollback'));

    // Restore: SIGTERM (the last save happens then), start again on the same state.
    for (const pane of onSide.panes) await onSide.rpc.request('pane.send_keys', { pane_id: pane, keys: ['ctrl+c'] });
    onSide.rpc.close();
    const exited = new Promise((r) => on.child.once('exit', r));
    on.child.kill('SIGTERM');
    await exited;
    // The restored shells draw another prompt, so their first one cannot be mistaken for a saved line.
    writeFileSync(join(on.env.HOME, '.bashrc'), `PS1='back$ '\n`);
    const restoreStart = performance.now();
    const listenMs = await restart(on);
    const rpc = await Rpc.open(socketOf(on));
    clients.push(rpc);
    const listed = (await rpc.request('pane.list', {})).panes;
    const answeredMs = performance.now() - restoreStart;
    if (listed.length !== PANES) throw new Error(`restored ${listed.length} panes, expected ${PANES}`);
    await Promise.all(listed.map((p) => waitOutput(rpc, p.pane_id, 'back\\$')));
    const promptsMs = performance.now() - restoreStart;
    const restoredLines = (await rpc.request('pane.read', { pane_id: listed[5].pane_id, source: 'recent', lines: LINES + 100 })).read.text.split('\n').length;

    const stat = (values) => ({ p50: round(median(values)), p95: round(percentile(values, 95)) });
    const echoOn = stat(sides[0].echo);
    const echoOff = stat(sides[1].echo);
    const mbps = (side) => round(size / 1024 / 1024 / median(side.flood));
    return {
      panes: PANES,
      lines_per_pane: LINES,
      echo_ms: { persist_on: echoOn, persist_off: echoOff, p95_ratio_on_off: round(echoOn.p95 / echoOff.p95) },
      flood_mb_per_s: { persist_on: mbps(sides[0]), persist_off: mbps(sides[1]), ratio_on_off: round(mbps(sides[0]) / mbps(sides[1])) },
      rss_mb_full_scrollback: { persist_on: round(rss.on), persist_off: round(rss.off), ratio_on_off: round(rss.on / rss.off) },
      memory_mb: memory,
      state_write_ms_per_change: { p50: round(median(writes)), p95: round(percentile(writes, 95)), max: round(maxOf(writes)) },
      state_build_ms_on_event_loop: { p50: round(median(builds)), p95: round(percentile(builds, 95)) },
      bytes_on_disk: { state_file: stateBytes, scrollback_total: scrollbackBytes, per_pane: Math.round((stateBytes + scrollbackBytes) / PANES) },
      restore_ms: { server_listening: round(listenMs), socket_answers_with_all_panes: round(answeredMs), every_prompt_drawn: round(promptsMs) },
      restored_rows_read_back_in_one_pane: restoredLines,
    };
  } finally {
    for (const c of clients) c.close();
    await on.stop();
    await off.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** bench/run.mjs's form: one row per measure, each against its baseline where it has one. */
export async function run(opts) {
  const r = await measure(opts);
  const off = 'persistence off';
  const ratio = (a, b) => (b ? round(a / b) : undefined);
  const size = `${r.panes} panes × ${r.lines_per_pane} lines`;
  return [
    { name: 'persist: keystroke echo p50, saving on', value: r.echo_ms.persist_on.p50, unit: 'ms', baseline: off, baselineValue: r.echo_ms.persist_off.p50, ratio: ratio(r.echo_ms.persist_on.p50, r.echo_ms.persist_off.p50) },
    { name: 'persist: keystroke echo p95, saving on', value: r.echo_ms.persist_on.p95, unit: 'ms', baseline: off, baselineValue: r.echo_ms.persist_off.p95, ratio: r.echo_ms.p95_ratio_on_off, target: '≈ 1×' },
    { name: 'persist: flood throughput, saving on', value: r.flood_mb_per_s.persist_on, unit: 'MB/s', baseline: off, baselineValue: r.flood_mb_per_s.persist_off, ratio: r.flood_mb_per_s.ratio_on_off, target: '≈ 1×' },
    { name: `persist: server RSS, ${r.panes} panes × 10k lines, saving on`, value: r.rss_mb_full_scrollback.persist_on, unit: 'MB', baseline: off, baselineValue: r.rss_mb_full_scrollback.persist_off, ratio: r.rss_mb_full_scrollback.ratio_on_off, target: '≈ 1×' },
    { name: 'persist: where the RSS is, saving on: V8 heap in use / reserved, external, rest (malloc, code)', value: `${r.memory_mb.on.heap_used} / ${r.memory_mb.on.heap_total}, ${r.memory_mb.on.external}, ${r.memory_mb.on.rest}`, unit: 'MB', baseline: off, baselineValue: `${r.memory_mb.off.heap_used} / ${r.memory_mb.off.heap_total}, ${r.memory_mb.off.external}, ${r.memory_mb.off.rest}` },
    { name: 'persist: state write per structural change (p50, async fsyncs included)', value: r.state_write_ms_per_change.p50, unit: 'ms' },
    { name: 'persist: of which on the event loop (p50)', value: r.state_build_ms_on_event_loop.p50, unit: 'ms' },
    { name: 'persist: bytes on disk per pane (state + compressed scrollback)', value: r.bytes_on_disk.per_pane, unit: 'B' },
    { name: `persist: restore ${size}: server listening`, value: r.restore_ms.server_listening, unit: 'ms' },
    { name: `persist: restore ${size}: socket answers with every pane`, value: r.restore_ms.socket_answers_with_all_panes, unit: 'ms' },
    { name: `persist: restore ${size}: every shell's prompt drawn`, value: r.restore_ms.every_prompt_drawn, unit: 'ms' },
  ];
}
