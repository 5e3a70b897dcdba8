/**
 * A long RPC fuzzing run for `npm run fuzz` (bench/fuzz.mjs): one server, seed after seed
 * until the time is up, each seed printed before it runs so a failure can be replayed
 * (`FUZZ_SEED=<n> npx vitest run test/integration/rpc-fuzz.test.ts`) and then added to the
 * suite's fixed seeds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestServer } from '../integration/harness.js';
import { fuzzServer, prepareSandbox, type FuzzReport } from './rpc-fuzz.js';

export interface CampaignOptions {
  minutes: number;
  /** The first seed; the next runs take the following numbers. Default: from the clock. */
  seed?: number;
  /** Actions per seed. */
  actions: number;
  log: (line: string) => void;
}

export interface CampaignResult {
  runs: FuzzReport[];
  calls: number;
  callsPerSecond: number;
  codes: Record<string, number>;
  failures: string[];
}

/** Fuzzes one server with consecutive seeds for `minutes`. */
export async function fuzzCampaign(options: CampaignOptions): Promise<CampaignResult> {
  const sandbox = mkdtempSync(join(tmpdir(), 'corral-fuzz-'));
  prepareSandbox(sandbox);
  let server = await new TestServer({ cwd: sandbox }).start();
  const runs: FuzzReport[] = [];
  const failures: string[] = [];
  const codes: Record<string, number> = {};
  const end = Date.now() + options.minutes * 60_000;
  let seed = options.seed ?? Date.now() % 1_000_000_000;
  try {
    do {
      options.log(`seed ${seed}: ${options.actions} actions`);
      const report = await fuzzServer(server.socketPath, server.pid!, { seed, actions: options.actions, sandbox });
      runs.push(report);
      for (const [code, count] of Object.entries(report.codes)) codes[code] = (codes[code] ?? 0) + count;
      failures.push(...report.failures);
      options.log(
        `seed ${seed}: ${report.calls} calls in ${(report.ms / 1000).toFixed(1)} s (${Math.round(report.calls / (report.ms / 1000))}/s), ${report.failures.length} failures, RSS ${report.baseline.rssMiB} → ${report.after.rssMiB} MiB, fds ${report.baseline.fds} → ${report.after.fds}`,
      );
      for (const failure of report.failures.slice(0, 20)) options.log(`  ${failure}`);
      if (!server.alive) {
        failures.push(`seed ${seed}: the server died: ${server.stderr.slice(-2000)}`);
        await server.stop();
        server = await new TestServer({ cwd: sandbox }).start();
      }
      seed++;
    } while (Date.now() < end);
  } finally {
    await server.stop();
    rmSync(sandbox, { recursive: true, force: true });
  }
  const calls = runs.reduce((n, r) => n + r.calls, 0);
  const seconds = runs.reduce((n, r) => n + r.ms, 0) / 1000;
  return { runs, calls, callsPerSecond: Math.round(calls / seconds), codes, failures };
}
