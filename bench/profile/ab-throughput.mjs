#!/usr/bin/env node
/**
 * A/B of two builds on `throughput`'s flood, with tmux beside them in the same run: this tree's
 * build, another build (`--base DIR`: a directory holding a built corral, e.g. a `git worktree`
 * or an export of an older commit with `dist/` built and `node_modules` linked) and tmux, each
 * `cat`ting the same ~45 MB file in a 160×48 pane, the order rotating every round. Prints the
 * median wall time and server CPU of each, and the ratios. Not part of `bench/run.mjs`.
 * `--tui`: the same through attached clients, as `tui-throughput` (a visible 90-column pane in a
 * 120×40 outer terminal, tmux attached beside; CPU is client + server).
 *
 *   npm run profile -- ab-throughput --base /tmp/corral-before [--tui] [--runs 5] [--mb 45]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, CorralServer, TmuxServer, corralPaneReady, median } from '../lib.mjs';
import { generateFile, runCorral, runTmux } from '../throughput.mjs';
import { RpcClient } from '../agent-lib.mjs';
import { CorralTui, TmuxTui } from '../tui-lib.mjs';
import { flood } from '../tui-throughput.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const baseDir = opt('--base');
if (!baseDir) throw new Error('usage: ab-throughput.mjs --base DIR [--runs N] [--mb MB]');
const runs = Number(opt('--runs', 5));
const megabytes = Number(opt('--mb', 45));

const tui = args.includes('--tui');
const dir = mkdtempSync(join(tmpdir(), 'corral-bench-ab-'));
if (tui) await abTui();
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
    side.rpc = await RpcClient.open(side.server.socketPath);
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
      const r = side.name === 'tmux' ? await runTmux(tmux, tmuxPid, tpane, file) : await runCorral(side.server, side.pane, file, side.rpc);
      side.results.push(r);
      process.stderr.write(`  ${side.name} run ${i + 1}: ${r.seconds.toFixed(2)} s, server CPU ${r.cpu.toFixed(2)} s\n`);
    }
  }
  report(all);
} finally {
  for (const side of sides) side.rpc?.close();
  await Promise.allSettled([...sides.map((s) => s.server.stop()), tmux.stop()]);
  rmSync(dir, { recursive: true, force: true });
}

function report(all) {
  const med = (side, key) => median(side.results.map((r) => r[key]));
  const [a, b, t] = all;
  for (const side of all) process.stdout.write(`${side.name}: ${med(side, 'seconds').toFixed(2)} s, ${med(side, 'cpu').toFixed(2)} cpu-s (median of ${runs})\n`);
  process.stdout.write(
    `this/tmux ${(med(a, 'seconds') / med(t, 'seconds')).toFixed(2)}× wall, ${(med(a, 'cpu') / med(t, 'cpu')).toFixed(2)}× cpu; ` +
      `base/tmux ${(med(b, 'seconds') / med(t, 'seconds')).toFixed(2)}× wall, ${(med(b, 'cpu') / med(t, 'cpu')).toFixed(2)}× cpu; ` +
      `this/base ${(med(a, 'seconds') / med(b, 'seconds')).toFixed(2)}× wall, ${(med(a, 'cpu') / med(b, 'cpu')).toFixed(2)}× cpu\n`,
  );
}

/** The attached-client variant (`--tui`); exits when done. */
async function abTui() {
  const all = [
    new CorralTui({ cols: 120, rows: 40, screen: false, bin: BIN }),
    new CorralTui({ cols: 120, rows: 40, screen: false, bin: join(baseDir, 'bin', 'corral.cjs') }),
    new TmuxTui({ cols: 120, rows: 40, screen: false }),
  ];
  const names = ['this', 'base', 'tmux'];
  try {
    const file = join(dir, 'flood.txt');
    await generateFile(file, megabytes * 1024 * 1024);
    readFileSync(file);
    await Promise.all(all.map((s) => s.ready()));
    const [, , tmuxTui] = all;
    const pane = (await all[0].json(['pane', 'get', 'w1:p1'])).result.pane;
    const first = (await tmuxTui.must(['display-message', '-p', '#{pane_id}'])).stdout.trim();
    await tmuxTui.must(['split-window', '-d', '-h', '-b', '-l', String(120 - pane.cols - 1), '-t', first]);
    await Promise.all(all.map((s) => s.term.settle(500)));
    const sidesTui = all.map((s, i) => ({ name: names[i], tui: s, results: [] }));
    for (let i = 0; i < runs; i++) {
      const order = sidesTui.map((_, k) => sidesTui[(k + i) % sidesTui.length]);
      for (const side of order) {
        const r = await flood(side.tui, file);
        side.results.push(r);
        process.stderr.write(`  ${side.name} run ${i + 1}: ${r.seconds.toFixed(2)} s, CPU ${r.cpu.toFixed(2)} s, ${(r.bytes / 1024 / 1024).toFixed(1)} MB out\n`);
      }
    }
    report(sidesTui);
  } finally {
    await Promise.allSettled(all.map((s) => s.close()));
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
