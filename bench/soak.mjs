#!/usr/bin/env node
/**
 * The soak (issue 42, test/fuzz/soak.ts): a real server under churn — panes, stand-in agents
 * started, prompted, blocked, answered and ended, floods, clients attaching and detaching, web
 * sessions, a restart every few minutes (SIGTERM and SIGKILL in turn) — with its RSS, fds, CPU
 * and event latency sampled as it goes; prints each sample, then the drift per hour. Exits 1
 * when something failed. Not part of `npm test`.
 *
 *   npm run soak -- --minutes 3                      the short run anyone can do
 *   npm run soak -- --minutes 60 --restart-every 10  a long one
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, importBundled } from './lib.mjs';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '3' }, 'restart-every': { type: 'string' }, 'sample-every': { type: 'string' } },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  process.stderr.write('--minutes must be a positive number\n');
  process.exit(2);
}
if (!existsSync(join(ROOT, 'dist', 'cli.cjs'))) {
  process.stderr.write('dist/ is missing: run `npm run -s build` first (or `npm run soak`)\n');
  process.exit(1);
}
// A short run restarts once a minute and samples every 15 s, so even 3 minutes show drift and restarts.
const restartEveryMin = Number(values['restart-every'] ?? (minutes <= 5 ? 1 : 5));
const sampleEverySec = Number(values['sample-every'] ?? (minutes <= 5 ? 15 : 60));
const log = (line) => process.stdout.write(`${line}\n`);
const { mod, dispose } = await importBundled('test/fuzz/soak.ts', { packagesExternal: true });
try {
  log(`soak: ${minutes} min, a restart every ${restartEveryMin} min, a sample every ${sampleEverySec} s`);
  const result = await mod.soak({ minutes, restartEveryMin, sampleEverySec, log });
  log(`\n${result.cycles} cycles, ${result.agentTurns} agent turns, ${result.restarts} restarts, ${result.samples.length} samples`);
  log(`drift per hour (every sample after the warm-up, across restarts): RSS ${result.driftPerHour.rssMiB} MiB, fds ${result.driftPerHour.fds}, event latency p50 ${result.driftPerHour.eventMs} ms`);
  log(result.failures.length === 0 ? 'no failures' : `${result.failures.length} FAILURES:\n${result.failures.join('\n')}`);
  process.exitCode = result.failures.length === 0 ? 0 : 1;
} finally {
  dispose();
}
