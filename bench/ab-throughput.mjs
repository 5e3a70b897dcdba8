#!/usr/bin/env node
/**
 * A/B of two builds on `throughput`'s flood, with tmux beside them in the same run: this tree's
 * build, another build (`--base DIR`: a directory holding a built corral, e.g. a `git worktree`
 * or an export of an older commit with `dist/` built and `node_modules` linked) and tmux, each
 * `cat`ting the same ~45 MB file in a 160×48 pane, the order rotating every round. Prints the
 * median wall time and server CPU of each, and the ratios. Not part of `bench/run.mjs`.
 *
 *   node bench/ab-throughput.mjs --base /tmp/corral-before [--runs 5] [--mb 45]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, CorralServer, TmuxServer, corralPaneReady, median } from './lib.mjs';
import { generateFile, runCorral, runTmux } from './throughput.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const baseDir = opt('--base');
if (!baseDir) throw new Error('usage: ab-throughput.mjs --base DIR [--runs N] [--mb MB]');
const runs = Number(opt('--runs', 5));
const megabytes = Number(opt('--mb', 45));

const dir = mkdtempSync(join(tmpdir(), 'corral-bench-ab-'));
const sides = [
  { name: 'this', server: new CorralServer({ bin: BIN }) },
  { name: 'base', server: new CorralServer({ bin: join(baseDir, 'bin', 'corral.cjs') }) },
];
const tmux = new TmuxServer();
try {
  const file = join(dir, 'flood.txt');
  await generateFile(file, megabytes * 1024 * 1024);
  readFileSync(file);
  for (const side of sides) {
    await side.server.start();
    side.pane = await side.server.newWorkspacePane();
    await corralPaneReady(side.server, side.pane);
    side.results = [];
  }
  const tpane = await tmux.start(160, 48);
  const tmuxPid = await tmux.pid();
  await tmux.must(['send-keys', '-t', tpane, 'tmux wait-for -S ready', 'Enter']);
  await tmux.must(['wait-for', 'ready'], { timeoutMs: 15_000 });
  const all = [...sides, { name: 'tmux', results: [] }];
  for (let i = 0; i < runs; i++) {
    const order = all.map((_, k) => all[(k + i) % all.length]);
    for (const side of order) {
      const r = side.name === 'tmux' ? await runTmux(tmux, tmuxPid, tpane, file) : await runCorral(side.server, side.pane, file);
      side.results.push(r);
      process.stderr.write(`  ${side.name} run ${i + 1}: ${r.seconds.toFixed(2)} s, server CPU ${r.cpu.toFixed(2)} s\n`);
    }
  }
  const med = (side, key) => median(side.results.map((r) => r[key]));
  const [a, b, t] = all;
  for (const side of all) process.stdout.write(`${side.name}: ${med(side, 'seconds').toFixed(2)} s, ${med(side, 'cpu').toFixed(2)} cpu-s (median of ${runs})\n`);
  process.stdout.write(
    `this/tmux ${(med(a, 'seconds') / med(t, 'seconds')).toFixed(2)}× wall, ${(med(a, 'cpu') / med(t, 'cpu')).toFixed(2)}× cpu; ` +
      `base/tmux ${(med(b, 'seconds') / med(t, 'seconds')).toFixed(2)}× wall, ${(med(b, 'cpu') / med(t, 'cpu')).toFixed(2)}× cpu; ` +
      `this/base ${(med(a, 'seconds') / med(b, 'seconds')).toFixed(2)}× wall, ${(med(a, 'cpu') / med(b, 'cpu')).toFixed(2)}× cpu\n`,
  );
} finally {
  await Promise.allSettled([...sides.map((s) => s.server.stop()), tmux.stop()]);
  rmSync(dir, { recursive: true, force: true });
}
