/**
 * What the compact scrollback store costs a flood: two corral servers in the same run, one
 * with the store (default) and one with CORRAL_COMPACT_SCROLLBACK=0 (every row in xterm, as
 * before the store), each `cat`s the throughput bench's ~45 MB file in a 160×48 pane,
 * interleaved, 3 runs each (`--quick`: 5 MB, 1 run). Reports server CPU per run (less noisy
 * than wall time on a shared machine) and RSS afterwards.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateFile } from './throughput.mjs';
import { CorralServer, corralPaneReady, cpuSeconds, median, round, sleep } from './lib.mjs';

export const description = 'flood cost of the compact scrollback store: store on vs off';

export async function run({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-sb-'));
  const file = join(dir, 'flood.txt');
  const on = new CorralServer();
  const off = new CorralServer();
  off.env.CORRAL_COMPACT_SCROLLBACK = '0';
  try {
    await generateFile(file, quick ? 5e6 : 45e6);
    await Promise.all([on.start(), off.start()]);
    const panes = new Map();
    for (const s of [on, off]) {
      const pane = await s.newWorkspacePane();
      await corralPaneReady(s, pane);
      panes.set(s, pane);
    }
    const cpu = new Map([[on, []], [off, []]]);
    const runs = quick ? 1 : 3;
    for (let i = 0; i < runs; i++) {
      for (const s of i % 2 ? [off, on] : [on, off]) {
        const tag = Math.random().toString(36).slice(2, 8);
        const c0 = cpuSeconds(s.pid);
        await s.cli(['pane', 'run', panes.get(s), `cat ${file}; printf '%s-%s\\n' FLOOD ${tag}`]);
        await s.cli(['pane', 'wait-output', panes.get(s), '--match', `FLOOD-${tag}`, '--timeout', '300000'], { timeoutMs: 310_000 });
        cpu.get(s).push(cpuSeconds(s.pid) - c0);
      }
    }
    await sleep(1500);
    const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
    const onCpu = median(cpu.get(on));
    const offCpu = median(cpu.get(off));
    return [
      { name: `scrollback-cost: server CPU per ${quick ? 5 : 45} MB cat, compact store on (median of ${runs})`, value: round(onCpu), unit: 'cpu-s', baseline: 'store off', baselineValue: round(offCpu), ratio: round(onCpu / offCpu) },
      { name: 'scrollback-cost: server RSS after', value: round(rss(on.pid), 0), unit: 'MB', baseline: 'store off', baselineValue: round(rss(off.pid), 0), ratio: round(rss(on.pid) / rss(off.pid)) },
    ];
  } finally {
    await Promise.allSettled([on.stop(), off.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
