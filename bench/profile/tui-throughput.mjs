#!/usr/bin/env node
/**
 * Where does the time go when a visible pane floods through an attached client? Runs the
 * `tui-throughput` setup (the thin client in a 120×40 node-pty, attached to a server) with
 * `--cpu-prof` for both processes (the server is started here first, as `node --cpu-prof
 * bin/corral.cjs server`, since Node refuses `--cpu-prof` in NODE_OPTIONS), `cat`s the file twice (warm-up, profiled),
 * stops the server (profiles are written at exit) and prints one summary per process
 * (bench/profile/cpuprofile-summary.mjs). Not part of `bench/run.mjs`.
 *
 *   npm run profile -- tui-throughput [--mb 45] [--keep]    --keep leaves the .cpuprofile files
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { format, summarise } from './cpuprofile-summary.mjs';
import { generateFile } from '../throughput.mjs';
import { spawn } from 'node:child_process';
import { BIN, timeSpawn, waitUntil } from '../lib.mjs';
import { CorralTui, cpuOf, makeSandbox } from '../tui-lib.mjs';

const args = process.argv.slice(2);
const mbAt = args.indexOf('--mb');
const megabytes = mbAt === -1 ? 45 : Number(args[mbAt + 1]);
const keep = args.includes('--keep');

const dir = mkdtempSync(join(tmpdir(), 'corral-bench-tprof-'));
const profDir = join(dir, 'prof');
const profArgs = ['--cpu-prof', `--cpu-prof-dir=${profDir}`];
const sandbox = makeSandbox('corral-tui-prof-');
const env = { ...sandbox.env, CORRAL_SCRIPTING: '1' };
const server = spawn(process.execPath, [...profArgs, BIN, 'server'], { env, stdio: 'ignore' });
await waitUntil(async () => (await timeSpawn(process.execPath, [BIN, 'sessions', '--json'], { env })).stdout.includes('"pid"'), {
  timeoutMs: 20_000,
  intervalMs: 200,
});
const corral = new CorralTui({ cols: 120, rows: 40, screen: false, nodeArgs: profArgs, sandbox, extraEnv: {} });
let clientPid = 0;
let serverPid = 0;
try {
  const file = join(dir, 'flood.txt');
  await generateFile(file, megabytes * 1024 * 1024);
  readFileSync(file);
  await corral.ready();
  [clientPid, serverPid] = corral.pids;
  for (const label of ['warm-up', 'profiled']) {
    const tag = Math.random().toString(36).slice(2, 10);
    const marker = `MARK-${tag}`;
    const cpu0 = corral.pids.map((pid) => cpuOf([pid]));
    const bytes0 = corral.term.bytes;
    const t0 = performance.now();
    corral.term.write(`cat ${file}; printf '%s-%s\\n' MARK ${tag}\r`);
    await corral.term.waitFor(() => corral.term.tail.includes(marker), marker, 600_000);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = corral.pids.map((pid, i) => (cpuOf([pid]) - cpu0[i]).toFixed(2));
    process.stdout.write(
      `${label}: ${megabytes} MB in ${seconds.toFixed(2)} s, CPU client ${cpu[0]} s, server ${cpu[1]} s, ` +
        `${((corral.term.bytes - bytes0) / 1024 / 1024).toFixed(2)} MB to the outer terminal\n`,
    );
    await corral.term.settle(300, 30_000);
  }
} finally {
  // The profile is written when the server exits, after its socket stops answering.
  const exited = new Promise((resolve) => (server.exitCode !== null ? resolve() : server.once('exit', resolve)));
  await corral.close(); // kill-server: SIGTERM once (a second one would end it before the profile is written)
  await exited;
}
const profiles = readdirSync(profDir).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(profDir, f));
process.stdout.write('(each profile covers its whole process life: start-up, warm-up run, profiled run, shutdown)\n');
const roles = new Map([[String(clientPid), 'client'], [String(serverPid), 'server']]);
for (const profile of profiles) {
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; the CLI runs of the harness are skipped.
  const role = roles.get(profile.split('/').pop().split('.')[3]);
  if (role) process.stdout.write(`\n== ${role}: ${profile}\n${format(summarise([profile]), 30)}\n`);
}
if (keep) process.stdout.write(`\nprofiles kept in ${profDir}\n`);
else rmSync(dir, { recursive: true, force: true });
