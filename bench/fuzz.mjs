#!/usr/bin/env node
/**
 * The RPC fuzzer's long run (issue 42): the suite's fuzzer (test/fuzz/rpc-fuzz.ts) against one
 * server with new seeds until the time is up. Prints each seed before it runs, then the calls
 * per second, the error codes reached and every failure; exits 1 when something failed.
 *
 *   npm run fuzz -- [--minutes 10] [--seed N] [--actions 3000]
 *
 * A failing seed replays with `FUZZ_SEED=N npx vitest run test/integration/rpc-fuzz.test.ts`
 * (the suite's run is 1200 actions: pass the same --actions here, or add the seed there).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, importBundled } from './lib.mjs';

const { values } = parseArgs({ options: { minutes: { type: 'string', default: '10' }, seed: { type: 'string' }, actions: { type: 'string', default: '3000' } } });
if (!existsSync(join(ROOT, 'dist', 'cli.cjs'))) {
  process.stderr.write('dist/ is missing: run `npm run -s build` first (or `npm run fuzz`)\n');
  process.exit(1);
}
const log = (line) => process.stdout.write(`${line}\n`);
// fast-check and typescript stay packages: the shapes are read from this checkout's source.
const { mod, dispose } = await importBundled('test/fuzz/campaign.ts', { packagesExternal: true });
try {
  const result = await mod.fuzzCampaign({
    minutes: Number(values.minutes),
    actions: Number(values.actions),
    ...(values.seed !== undefined ? { seed: Number(values.seed) } : {}),
    log,
  });
  const codes = Object.entries(result.codes).sort((a, b) => b[1] - a[1]);
  log(`\n${result.runs.length} seeds (${result.runs.map((r) => r.seed).join(', ')}), ${result.calls} calls, ${result.callsPerSecond} calls/s`);
  log(`${codes.filter(([c]) => c !== 'ok').length} distinct error codes: ${codes.map(([c, n]) => `${c} ${n}`).join(', ')}`);
  const methods = new Set(result.runs.flatMap((r) => r.methodsWithResult));
  log(`${methods.size} methods answered a result at least once`);
  log(result.failures.length === 0 ? 'no failures' : `${result.failures.length} FAILURES:\n${result.failures.join('\n')}`);
  process.exitCode = result.failures.length === 0 ? 0 : 1;
} finally {
  dispose();
}
