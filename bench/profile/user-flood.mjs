#!/usr/bin/env node
/**
 * Where the user's flood (bench/user-flood.mjs) spends the server's time, flood by flood: a
 * server under `--cpu-prof`, floods started with `corral pane run` and awaited with
 * `corral pane wait-output --regex` (the CLI, as a script does) — two in a first pane, then one
 * in a new pane — and the profile cut into one summary per flood (samples inside its window).
 *
 *   npm run profile -- user-flood [--mb 61] [--top 25] [--keep] [--match]
 *
 * `--match`: wait with `--match` (a substring) instead of `--regex`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, summarise } from './cpuprofile-summary.mjs';
import { CorralServer, cpuSeconds } from '../lib.mjs';
import { generateBase64File } from '../throughput.mjs';
import { newPane } from '../user-flood.mjs';

const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const megabytes = opt('--mb', 61);
const top = opt('--top', 25);
const keep = args.includes('--keep');
const substring = args.includes('--match');

const dir = mkdtempSync(join(tmpdir(), 'corral-bench-prof-'));
const profDir = join(dir, 'prof');
const server = new CorralServer({ nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] });
const windows = [];
const usNow = () => Number(process.hrtime.bigint() / 1000n);
try {
  const file = join(dir, 'flood.txt');
  generateBase64File(file, megabytes * 1024 * 1024);
  readFileSync(file);
  await server.start();
  const first = await server.newWorkspacePane();
  const panes = [await newPane(server), null, await newPane(server)];
  panes[1] = panes[0];
  for (const [i, pane] of panes.entries()) {
    const mark = `MARK-${i}-${Math.random().toString(36).slice(2, 8)}`;
    const cpu0 = cpuSeconds(server.pid);
    const from = usNow();
    const t0 = performance.now();
    await server.cli(['pane', 'run', pane, `cat ${file}; echo ${mark}`]);
    const ran = performance.now();
    await server.cli(['pane', 'wait-output', pane, ...(substring ? ['--match', mark] : ['--regex', `^${mark}`]), '--timeout', '600000'], { timeoutMs: 620_000 });
    const done = performance.now();
    windows.push({ label: `flood ${i + 1} (${i === 1 ? 'same pane again' : 'new pane'})`, from, to: usNow() });
    process.stdout.write(`flood ${i + 1}: ${((done - t0) / 1000).toFixed(2)} s (pane run ${(ran - t0).toFixed(0)} ms), server CPU ${(cpuSeconds(server.pid) - cpu0).toFixed(2)} s\n`);
  }
  void first;
} finally {
  await server.stop();
}
const [profile] = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profDir, f));
const whole = JSON.parse(readFileSync(profile, 'utf8'));
for (const w of windows) {
  // Keep the samples inside the window; the rest become (idle) of zero length.
  let t = whole.startTime;
  const samples = [];
  const deltas = [];
  for (let i = 0; i < whole.samples.length; i++) {
    t += whole.timeDeltas[i];
    if (t >= w.from && t <= w.to) {
      samples.push(whole.samples[i]);
      deltas.push(samples.length === 1 ? 0 : whole.timeDeltas[i]);
    }
  }
  const cut = join(profDir, `cut-${windows.indexOf(w)}.cpuprofile`);
  writeFileSync(cut, JSON.stringify({ ...whole, samples, timeDeltas: deltas }));
  process.stdout.write(`\n===== ${w.label}: ${samples.length} samples =====\n${format(summarise([cut]), top)}\n`);
}
if (keep) process.stdout.write(`\nprofiles kept in ${profDir}\n`);
else rmSync(dir, { recursive: true, force: true });
