#!/usr/bin/env node
/**
 * Keystroke echo while another visible pane floods (issue 12: p95 < 16 ms), on its own and
 * repeatable: corral's TUI and tmux attached (120×40 outer terminals), optionally another
 * corral build beside them (`--base DIR`, a worktree with dist/ built: a same-run A/B). One
 * side floods at a time — a second pane beside the first runs the flood while keys go to the
 * first — and the sides take turns, the order rotating every turn, so that load that changes
 * during the run lands on all alike. Prints p50/p95 per side and turn, the totals, the ratios
 * to tmux, and each side's CPU (client + server) per turn. Not part of `bench/run.mjs`
 * (tui-latency has the same phase).
 *
 *   npm run profile -- flood-echo [--keys 120] [--turns 3] [--base DIR] [--flood yes|cat]
 *
 * `--flood cat`: the flood is throughput's 45 MB file, catted in a loop (text, colours, long
 * lines), instead of `yes` (one short line).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { maxOf, median, percentile } from '../lib.mjs';
import { generateFile } from '../throughput.mjs';
import { timeKeys } from '../tui-latency.mjs';
import { CorralTui, TmuxTui, clearLine, cpuOf, startFlood } from '../tui-lib.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const keys = Number(opt('--keys', 120));
const turns = Number(opt('--turns', 3));
const base = opt('--base', null);
const floodKind = opt('--flood', 'yes');
if (!['yes', 'cat'].includes(floodKind)) throw new Error('--flood is yes or cat');

const dir = mkdtempSync(join(tmpdir(), 'corral-bench-flood-echo-'));
const file = join(dir, 'flood.txt');
if (floodKind === 'cat') await generateFile(file, 45 * 1024 * 1024);

const sides = [new CorralTui(), new TmuxTui()];
if (base) {
  const other = new CorralTui({ bin: join(base, 'bin', 'corral.cjs') });
  other.name = 'corral base';
  sides.splice(1, 0, other);
}
/** The 1, 5 and 15 minute load averages. */
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');
try {
  await Promise.all(sides.map((s) => s.ready()));
  const ms = new Map(sides.map((s) => [s.name, []]));
  const cpu = new Map(sides.map((s) => [s.name, 0]));
  const perTurn = Math.ceil(keys / turns);
  process.stderr.write(`load ${load()}\n`);
  for (let turn = 0; turn < turns; turn++) {
    const order = sides.map((_, i) => sides[(i + turn) % sides.length]);
    for (const side of order) {
      // Digits only (the typed letters cannot be mistaken for flood output), new each turn.
      const line = `1234567890${turn}`;
      const command = floodKind === 'yes' ? `yes ${line}` : `while :; do echo ${line}; cat ${file}; done`;
      const stop = await startFlood(side, command, line, 30_000);
      const cpu0 = cpuOf(side.pids);
      let times;
      try {
        times = await timeKeys(side, perTurn);
      } finally {
        cpu.set(side.name, cpu.get(side.name) + cpuOf(side.pids) - cpu0);
        await stop();
      }
      ms.get(side.name).push(...times);
      process.stderr.write(`turn ${turn + 1} ${side.name.padEnd(11)} p50 ${median(times).toFixed(2)} p95 ${percentile(times, 95).toFixed(2)} ms (load ${load()})\n`);
      await clearLine(side);
    }
  }
  const t = ms.get('tmux');
  process.stdout.write(`\necho while another visible pane floods (${floodKind}), ${perTurn * turns} keys per side in ${turns} turns; load ${load()}\n`);
  for (const side of sides) {
    const v = ms.get(side.name);
    process.stdout.write(
      `${side.name.padEnd(11)} p50 ${median(v).toFixed(2)} ms (${(median(v) / median(t)).toFixed(2)}× tmux)  ` +
        `p95 ${percentile(v, 95).toFixed(2)} ms (${(percentile(v, 95) / percentile(t, 95)).toFixed(2)}× tmux)  ` +
        `max ${maxOf(v).toFixed(2)} ms  cpu ${cpu.get(side.name).toFixed(2)} s\n`,
    );
  }
} finally {
  await Promise.allSettled(sides.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
}
