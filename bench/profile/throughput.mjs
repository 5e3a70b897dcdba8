#!/usr/bin/env node
/**
 * Where does the server's time go during a flood? Starts `corral server` under
 * `node --cpu-prof`, runs the throughput benchmark's `cat FILE` once (after one warm-up run),
 * stops the server (the profile is written at exit) and prints a summary
 * (bench/profile/cpuprofile-summary.mjs). Not part of `bench/run.mjs`.
 *
 *   npm run profile -- throughput [--mb 45] [--base64] [--keep]     --keep leaves the .cpuprofile
 *
 * `--base64`: plain ASCII in 120-column lines (`head -c N /dev/urandom | base64 -w 120`, issue
 * 32's workload) instead of the bench file's words, colours and wrapping lines.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, summarise } from './cpuprofile-summary.mjs';
import { CorralServer, corralPaneReady, cpuSeconds } from '../lib.mjs';
import { generateBase64File, generateFile } from '../throughput.mjs';

const args = process.argv.slice(2);
const mbAt = args.indexOf('--mb');
const megabytes = mbAt === -1 ? 45 : Number(args[mbAt + 1]);
const keep = args.includes('--keep');
const base64 = args.includes('--base64');

const dir = mkdtempSync(join(tmpdir(), 'corral-bench-prof-'));
const profDir = join(dir, 'prof');
const server = new CorralServer({ nodeArgs: ['--cpu-prof', '--cpu-prof-dir', profDir] });
try {
  const file = join(dir, 'flood.txt');
  if (base64) generateBase64File(file, megabytes * 1024 * 1024);
  else await generateFile(file, megabytes * 1024 * 1024);
  await server.start();
  const pane = await server.newWorkspacePane();
  await corralPaneReady(server, pane);
  for (const label of ['warm-up', 'profiled']) {
    const tag = Math.random().toString(36).slice(2, 10);
    const cpu0 = cpuSeconds(server.pid);
    const t0 = performance.now();
    await server.cli(['pane', 'run', pane, `cat ${file}; printf '%s-%s\\n' MARK ${tag}`]);
    const ran = performance.now();
    await server.cli(['pane', 'wait-output', pane, '--match', `MARK-${tag}`, '--timeout', '600000'], { timeoutMs: 620_000 });
    const done = performance.now();
    process.stdout.write(
      `${label}: ${megabytes} MB in ${((done - t0) / 1000).toFixed(2)} s (pane run ${(ran - t0).toFixed(0)} ms), ` +
        `server CPU ${(cpuSeconds(server.pid) - cpu0).toFixed(2)} s\n`,
    );
  }
} finally {
  // Keep the profile: stop() removes the server's sandbox, not `dir`.
  await server.stop();
}
const profiles = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profDir, f));
process.stdout.write('(the profile covers the whole server life: start-up, warm-up run, profiled run, shutdown)\n');
process.stdout.write(format(summarise(profiles), 30) + '\n');
if (keep) process.stdout.write(`\nprofile kept in ${profDir}\n`);
else rmSync(dir, { recursive: true, force: true });
