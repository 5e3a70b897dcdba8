#!/usr/bin/env node
/**
 * Who allocates during a flood? Starts `corral server` with its inspector open and
 * `--trace-gc`, samples allocations (V8's sampling heap profiler, keeping
 * collected objects), runs the throughput benchmark's `cat FILE` (one warm-up run, then the
 * measured runs), and prints the functions that allocated most, the GC count and pause total. Garbage is what a flood's GC time and the
 * GC helper threads (which compete with the server for 2 cores) scale with. Not part of
 * `bench/run.mjs`.
 *
 *   npm run profile -- flood-alloc [--mb 45] [--runs 1] [--top 25] [--root DIR] [--no-inline]
 *
 * The end of each run is seen with `pane wait-output`, as bench/throughput.mjs does, so the
 * wait's own cost is in the profile too (it is part of what a user's wait costs). `--root`
 * runs another build (an A/B baseline worktree's bin/corral.cjs directory).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { label, original } from './cpuprofile-summary.mjs';
import { CorralServer, corralPaneReady, cpuSeconds } from '../lib.mjs';
import { generateFile } from '../throughput.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const at = args.indexOf(name);
  return at === -1 ? fallback : args[at + 1];
};
const megabytes = Number(opt('--mb', 45));
const runs = Number(opt('--runs', 1));
const top = Number(opt('--top', 25));
const root = opt('--root', null);

if (typeof WebSocket === 'undefined') {
  // Node 20 has the WebSocket client behind a flag (22 has it on): run again with it.
  const { spawnSync } = await import('node:child_process');
  const again = spawnSync(process.execPath, ['--experimental-websocket', '--no-warnings', new URL(import.meta.url).pathname, ...args], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

/** A DevTools protocol session with the server's inspector. */
async function inspector(url) {
  const ws = new WebSocket(url);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error(`cannot connect to the inspector at ${url}`));
  });
  let next = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(msg.error.message));
    else p.resolve(msg.result);
  };
  return {
    send: (method, params = {}) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        pending.set(id, { resolve, reject });
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

const dir = mkdtempSync(join(tmpdir(), 'corral-bench-alloc-'));
// --trace-gc prints one line per GC on the server's stdout; the inspector's sampling heap
// profiler, told to keep samples of collected objects, counts garbage too (--heap-prof would
// report only what is still live at exit).
const nodeArgs = ['--inspect=127.0.0.1:0', '--trace-gc'];
// Inlined callees' allocations are attributed to their caller; `--no-inline` names them (slower).
if (args.includes('--no-inline')) nodeArgs.push('--no-turbo-inlining', '--no-maglev-inlining');
const server = new CorralServer({ nodeArgs, stdout: 'pipe', ...(root ? { bin: join(root, 'bin', 'corral.cjs') } : {}) });
let gcLog = '';
let gcFrom = 0;
let cpuTotal = 0;
let profile;
try {
  const file = join(dir, 'flood.txt');
  await generateFile(file, megabytes * 1024 * 1024);
  await server.start();
  // The inspector's own "Debugger listening on ws://…" ends start(): wait for the server's line too.
  for (let i = 0; !/listening on \//.test(server.stderr); i++) {
    if (i > 1500) throw new Error(`server did not start: ${server.stderr}`);
    await new Promise((r) => setTimeout(r, 10));
  }
  server.child.stdout.on('data', (d) => (gcLog += d));
  const wsUrl = /ws:\/\/\S+/.exec(server.stderr)?.[0];
  if (!wsUrl) throw new Error(`no inspector address in the server's stderr: ${server.stderr}`);
  const session = await inspector(wsUrl);
  const pane = await server.newWorkspacePane();
  await corralPaneReady(server, pane);
  for (let i = 0; i <= runs; i++) {
    const label = i === 0 ? 'warm-up' : `run ${i}`;
    if (i === 1) {
      gcFrom = gcLog.length;
      await session.send('HeapProfiler.startSampling', {
        // One sample per 64 KB allocated: floods allocate gigabytes, this is plenty.
        samplingInterval: 64 * 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    }
    const tag = Math.random().toString(36).slice(2, 10);
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    await server.cli(['pane', 'run', pane, `cat ${file}; printf '%s-%s\\n' MARK ${tag}`]);
    await server.cli(['pane', 'wait-output', pane, '--match', `MARK-${tag}`, '--timeout', '600000'], { timeoutMs: 620_000 });
    const cpu = cpuSeconds(server.pid) - cpu0;
    if (i > 0) cpuTotal += cpu;
    process.stdout.write(`${label}: ${megabytes} MB in ${((performance.now() - t0) / 1000).toFixed(2)} s, server CPU ${cpu.toFixed(2)} s\n`);
  }
  profile = (await session.send('HeapProfiler.stopSampling')).profile;
  session.close();
} finally {
  await server.stop();
}

const bySite = new Map();
/** By the innermost corral frame on the stack (src/…): which of corral's code made the allocation happen. */
const byCorral = new Map();
let total = 0;
const walk = (node, corralFrame) => {
  const f = node.callFrame;
  const o = original(f);
  const key = o ? `${o.name || f.functionName || '(anonymous)'} ${o.file}:${o.line}` : `${f.functionName || '(anonymous)'} ${f.url ? `${label(f.url)}:${f.lineNumber + 1}` : '(native)'}`;
  const inCorral = o?.file.startsWith('src/') ? key : corralFrame;
  bySite.set(key, (bySite.get(key) ?? 0) + node.selfSize);
  byCorral.set(inCorral, (byCorral.get(inCorral) ?? 0) + node.selfSize);
  total += node.selfSize;
  for (const child of node.children) walk(child, inCorral);
};
walk(profile.head, '(no corral frame)');
const log = gcLog.slice(gcFrom);
const scavenges = (log.match(/Scavenge/g) ?? []).length;
const marks = (log.match(/Mark-Compact|Mark-sweep/gi) ?? []).length;
let pauseMs = 0;
for (const m of log.matchAll(/, ([\d.]+) \/ [\d.]+ ms/g)) pauseMs += Number(m[1]);
process.stdout.write(
  `measured run(s): server CPU ${cpuTotal.toFixed(2)} s; allocated ${(total / 1024 / 1024).toFixed(0)} MB ` +
    `(sampled, live or not); GC: ${scavenges} scavenges, ${marks} mark-compacts, ${pauseMs.toFixed(0)} ms of pauses\n\n`,
);
const table = (title, map) => {
  process.stdout.write(`${title}\n`);
  for (const [site, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`${(bytes / 1024 / 1024).toFixed(1).padStart(8)} MB ${((100 * bytes) / total).toFixed(1).padStart(5)} %  ${site}\n`);
  }
};
table('allocated in (the function itself, inlined callees included):', bySite);
table('\nallocated under (the innermost corral function on the stack):', byCorral);
rmSync(dir, { recursive: true, force: true });
