#!/usr/bin/env node
/**
 * tmux's own flood timed two ways (issue 45): as bench/throughput.mjs drives it (send-keys into
 * a shell in one reused pane, wait-for, capture-pane until the marker shows) and as a script
 * does (new-session running the cat, and wait-for, one tmux client). The baseline the
 * throughput bench divides by is the first; what a user compares corral with is the second.
 *
 *   npm run profile -- tmux-ways [--mb 45] [--runs 4]
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TmuxServer, median } from '../lib.mjs';
import { generateBase64File, runTmux } from '../throughput.mjs';
import { tmuxFlood } from '../user-flood.mjs';
const dir = mkdtempSync(join(tmpdir(), 'corral-bench-tmux-ways-'));
const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const file = join(dir, 'b.txt');
generateBase64File(file, opt('--mb', 45) * 1024 * 1024);
readFileSync(file);
const tmux = new TmuxServer(); const tp = await tmux.start(160, 48); const pid = await tmux.pid();
await tmux.must(['send-keys', '-t', tp, 'tmux wait-for -S ready', 'Enter']); await tmux.must(['wait-for', 'ready']);
const res = { 'bench way (send-keys, same pane, capture-pane)': [], "user's way (new-session + wait-for)": [] };
for (let i = 0; i < opt('--runs', 4); i++) {
  const a = await runTmux(tmux, pid, tp, file); res['bench way (send-keys, same pane, capture-pane)'].push(a);
  const b = await tmuxFlood(tmux, pid, 160, 48, file, i); res["user's way (new-session + wait-for)"].push(b);
  console.log(a.seconds.toFixed(2), a.cpu.toFixed(2), '|', b.seconds.toFixed(2), b.cpu.toFixed(2));
}
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(50), 'wall', median(v.map(r => r.seconds)).toFixed(2), 'cpu', median(v.map(r => r.cpu)).toFixed(2));
await tmux.stop();
rmSync(dir, { recursive: true, force: true });
