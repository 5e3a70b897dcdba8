/**
 * The RPC fuzzer (test/fuzz/rpc-fuzz.ts) against a real server, fixed seeds and a bounded run
 * (issue 42). `npm run fuzz` runs the same code longer with new seeds; a seed that fails
 * there is added to FIXED_SEEDS. FUZZ_SEED=<n> runs one seed here, FUZZ_LOG=1 shows progress.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuzzServer, prepareSandbox } from '../fuzz/rpc-fuzz.js';
import { TestServer } from './harness.js';

/** Actions per seed: together over 2,000 calls in about 20 s on the 2-core machine. */
const ACTIONS = 1200;

/**
 * 777: the seed of issue 42's report (session.forget's ENOTEMPTY). 4242: made two panes
 * 2000×2000 through an attached client, whose ~700 MB stayed resident after they closed.
 * 9019: its action 352 attaches a client at 2000×2001, which held the event loop for 18 s
 * and left 190 MB resident before clients were drawn at most 250,000 cells (fitTerminalSize);
 * fast-check samples in order, so its first 400 actions are the ones that found it.
 */
const FIXED_SEEDS: { seed: number; actions: number }[] = process.env.FUZZ_SEED
  ? [{ seed: Number(process.env.FUZZ_SEED), actions: ACTIONS }]
  : [{ seed: 777, actions: ACTIONS }, { seed: 4242, actions: ACTIONS }, { seed: 9019, actions: 400 }];

/**
 * With the scripting gate open, the gated methods (typing, running, starting agents, rewinding)
 * get past the gate to the core. The fuzzer's values stay harmless there: cwds inside the
 * sandbox, commands from a list, typed text with no Enter (test/fuzz/rpc-fuzz.ts).
 */
const OPEN_GATE_SEEDS: { seed: number; actions: number }[] = process.env.FUZZ_SEED ? [] : [{ seed: 5151, actions: 400 }];

function fuzzSuite(title: string, scripting: boolean, seeds: { seed: number; actions: number }[]): void {
  describe.skipIf(seeds.length === 0)(title, () => {
    let server: TestServer;
    let sandbox: string;

    beforeAll(async () => {
      sandbox = mkdtempSync(join(tmpdir(), 'corral-fuzz-'));
      prepareSandbox(sandbox);
      // Its cwd is the sandbox: a pane or worktree with no cwd named is made there, never in this checkout.
      server = await new TestServer({ cwd: sandbox, scripting }).start();
    });

    afterAll(async () => {
      await server?.stop();
      rmSync(sandbox, { recursive: true, force: true });
    });

    for (const { seed, actions } of seeds) {
      it(`seed ${seed}: every call answered with a documented code, nothing leaks`, async () => {
        const report = await fuzzServer(server.socketPath, server.pid!, { seed, actions, sandbox, log: process.env.FUZZ_LOG ? console.log : undefined });
        expect(report.failures).toEqual([]);
        expect(server.alive).toBe(true);
        // The run reached past the param checks: results, and refusals by the core itself.
        expect(report.codes.ok).toBeGreaterThan(actions / 10);
        expect(Object.keys(report.codes).length).toBeGreaterThan(8);
        if (process.env.FUZZ_LOG) console.log(JSON.stringify(report.codes));
      }, 120_000);
    }
  });
}

fuzzSuite('RPC fuzzer', false, FIXED_SEEDS);
fuzzSuite('RPC fuzzer, scripting gate open', true, OPEN_GATE_SEEDS);
