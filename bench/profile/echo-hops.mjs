#!/usr/bin/env node
/**
 * Where a keystroke's echo spends its time, hop by hop (docs/bench.md, "Echo: where the time
 * goes"). Types N letters into a real attached client (corral in a node-pty, as `tui-latency`),
 * tmux attached and bash in node-pty piped straight through (the Node floor) alternating key by
 * key, 20–40 ms apart. This build's server runs with `CORRAL_ECHO_TRACE` set
 * (src/screen/echo-trace.ts) and writes each keystroke's hop times when it exits; they share
 * CLOCK_MONOTONIC with this script's own times (the write of the key, the echo seen), so each
 * key's record is the one whose input falls between the two. Prints the median (p95) of each
 * hop and the totals beside tmux and the floor.
 *
 * `--base DIR`: another build (a worktree with `dist/` built and `node_modules` linked) typed
 * into in the same rounds, untraced: a same-run A/B of the totals.
 *
 * `--box`: keys go to an agent-style input box (bench/fixtures/input-box.mjs, three coloured
 * lines redrawn per key; issue 45) instead of the shell.
 *
 * `--bold`: the shell prints in a bold pen first (the path of typing into an agent's own input
 * line). Until issue 32 no such echo was predicted: each went out in the urgent frame after
 * xterm parsed it; now it is predicted with the pen's SGR around it.
 *
 *   npm run profile -- echo-hops [--keys 200] [--base DIR [--base-env K=V]…] [--bold] [--box] [--no-tmux] [--no-floor]
 *
 * Not part of `bench/run.mjs` (a diagnosis, like profile/throughput.mjs).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { monotonicOffset, readTrace } from './echo-trace-file.mjs';
import { median, percentile, waitUntil } from '../lib.mjs';
import { CorralTui, LETTERS, PassthroughTui, TmuxTui, clearLine, keyGap, typeAndStamp, warmUp } from '../tui-lib.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const KEYS = Number(opt('--keys', 200));
const BASE = opt('--base');
const PEN_BOLD = args.includes('--bold');
const BOX = args.includes('--box');
/** `--base-env K=V` (repeatable): environment for the base side only, e.g. a V8 or Node flag in NODE_OPTIONS. */
const BASE_ENV = Object.fromEntries(args.flatMap((a, i) => (a === '--base-env' ? [args[i + 1].split(/=(.*)/s).slice(0, 2)] : [])));
const COLS = 120;
const ROWS = 40;
const LINE = 40;

const OFFSET = monotonicOffset();

/** Types `ch`; resolves with [t0, t1] on the monotonic clock (ms): key written, echo seen. */
async function typeAndTime(side, ch, timeoutMs = 3000) {
  const [written, seen] = await typeAndStamp(side, ch, timeoutMs);
  return [written + OFFSET, seen + OFFSET];
}

/** Each timed key's server record: the one whose input time is between the key's write and its echo. */
function join_(keys, records) {
  const out = [];
  let from = 0;
  for (const [t0, t1] of keys) {
    let match = null;
    for (let i = from; i < records.length; i++) {
      const at = records[i].arrived ?? records[i].input;
      if (at === undefined || at < t0) continue;
      if (at <= t1) {
        match = records[i];
        from = i + 1;
      }
      break;
    }
    out.push({ t0, t1, r: match });
  }
  return out;
}

/** When the echo left the server: predicted and written at once, or in the frame after the parse. */
const out = (k) => k.r.sent ?? k.r.frameEnd;
const HOPS = [
  ['key written → bytes in the server (outer pty, tty or client and socket, wake-up, read stream)', (k) => k.r.arrived - k.t0],
  ['bytes in the server → controller input (framing, activity, UTF-8 decode)', (k) => k.r.input - k.r.arrived],
  ['input → routed (decode, parse, route)', (k) => k.r.routed - k.r.input],
  ['routed → pty written (write(2))', (k) => k.r.ptyWritten - k.r.routed],
  ['pty written → echo read (bash, wake-up)', (k) => k.r.ptyRead - k.r.ptyWritten],
  ['echo read → predicted', (k) => k.r.predicted - k.r.ptyRead],
  ['predicted → sent (socket write)', (k) => k.r.sent - k.r.predicted],
  ['echo read → parsed (not predicted: xterm first)', (k) => (k.r.sent === undefined ? k.r.parsed - k.r.ptyRead : NaN)],
  ['parsed → frame start', (k) => k.r.frameStart - k.r.parsed],
  ['frame start → end', (k) => k.r.frameEnd - k.r.frameStart],
  ['echo out of the server → echo seen (socket, client, outer pty)', (k) => k.t1 - out(k)],
  ['total', (k) => k.t1 - k.t0],
  ['server: bytes in → echo out, less bash (the server\'s own)', (k) => out(k) - k.r.arrived - (k.r.ptyRead - k.r.ptyWritten)],
];

const fmt = (v) => v.toFixed(3);

/** The hop table: one p50 (p95) column per traced side. */
function hopTable(traced) {
  const head = traced.map((t) => `${t.name} p50 (p95) ms`);
  console.log(`| hop | ${head.join(' | ')} |\n|---|${head.map(() => '---|').join('')}`);
  for (const [name, f] of HOPS) {
    const cells = traced.map(({ keys }) => {
      const values = keys.map(f).filter((v) => Number.isFinite(v));
      return values.length ? `${fmt(median(values))} (${fmt(percentile(values, 95))})` : '–';
    });
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
}

async function main() {
  const corral = (name, bin, env = {}) => {
    const traceDir = mkdtempSync(join(tmpdir(), 'corral-echo-trace-'));
    const side = new CorralTui({ cols: COLS, rows: ROWS, bin, extraEnv: { CORRAL_ECHO_TRACE: traceDir, ...env } });
    return Object.assign(side, { name, traceDir });
  };
  const sides = [corral('corral')];
  if (BASE) sides.push(corral('base', join(BASE, 'bin', 'corral.cjs'), BASE_ENV));
  if (!args.includes('--no-tmux')) sides.push(new TmuxTui({ cols: COLS, rows: ROWS }));
  if (!args.includes('--no-floor')) sides.push(new PassthroughTui({ cols: COLS, rows: ROWS, traceDir: mkdtempSync(join(tmpdir(), 'corral-echo-trace-floor-')) }));
  const times = new Map(sides.map((s) => [s.name, []]));
  const load0 = loadavg()[0];
  let closed = false;
  try {
    await Promise.all(sides.map((s) => s.ready()));
    await Promise.all(sides.map((s) => s.term.settle(500)));
    if (PEN_BOLD) {
      // A bold pen, as an agent's own input line: the echo is predicted with its SGR around it.
      for (const side of sides) side.term.write("printf '\\033[1m'\r");
      await Promise.all(sides.map((s) => s.term.settle(300)));
    }
    if (BOX) {
      const box = join(import.meta.dirname, '..', 'fixtures', 'input-box.mjs');
      for (const side of sides) side.term.write(`exec ${process.execPath} ${box}\r`);
      await Promise.all(sides.map((s) => s.term.waitFor(() => s.term.text().includes('╰'), `${s.name}: the input box`)));
      await Promise.all(sides.map((s) => s.term.settle(300)));
    }
    await warmUp(sides, 3000);
    for (let i = 0; i < KEYS; i++) {
      const ch = LETTERS[i % LETTERS.length];
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        times.get(side.name).push(await typeAndTime(side, ch));
        await keyGap();
      }
      if ((i + 1) % LINE === 0) for (const side of sides) await clearLine(side);
    }
    const load1 = loadavg()[0];
    // The traced servers write their records as they exit.
    await Promise.allSettled(sides.map((s) => s.close()));
    closed = true;
    const traced = [];
    for (const side of sides.filter((s) => s.traceDir)) {
      // kill-server returns once the socket is gone; the process writes the trace a moment later
      // (a build without the trace writes none: its totals are still compared below).
      const written = await waitUntil(() => readdirSync(side.traceDir).length > 0, { timeoutMs: 10_000 }).catch(() => false);
      if (!written) continue;
      const keys = join_(times.get(side.name), readTrace(side.traceDir)).filter((k) => k.r && out(k) !== undefined);
      traced.push({ name: side.name, keys });
    }
    console.log(`echo hops: ${KEYS} keys per side, load ${load0.toFixed(2)} → ${load1.toFixed(2)}; keys traced: ${traced.map((t) => `${t.name} ${t.keys.length}`).join(', ')}\n`);
    if (traced.length > 0) hopTable(traced);
    console.log('\n| side | p50 ms | p95 ms | corral p50 ÷ this p50 |\n|---|---|---|---|');
    const total = (name) => times.get(name).map(([a, b]) => b - a);
    const corralP50 = median(total('corral'));
    for (const side of sides) {
      const t = total(side.name);
      console.log(`| ${side.name} | ${fmt(median(t))} | ${fmt(percentile(t, 95))} | ${(corralP50 / median(t)).toFixed(2)} |`);
    }
  } finally {
    if (!closed) await Promise.allSettled(sides.map((s) => s.close()));
    for (const side of sides) if (side.traceDir) rmSync(side.traceDir, { recursive: true, force: true });
  }
}

await main();
