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
import { TmuxServer, cpuSeconds, median, timeSpawn } from '../lib.mjs';
import { generateBase64File, runTmux } from '../throughput.mjs';
const dir = mkdtempSync(join(tmpdir(), 'corral-bench-tmux-ways-'));
const args = process.argv.slice(2);
const opt = (name, d) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const file = join(dir, 'b.txt');
generateBase64File(file, opt('--mb', 45) * 1024 * 1024);
readFileSync(file);
const tmux = new TmuxServer(); const tp = await tmux.start(160, 48); const pid = await tmux.pid();
await tmux.must(['send-keys', '-t', tp, 'tmux wait-for -S ready', 'Enter']); await tmux.must(['wait-for', 'ready']);
const q = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
const fresh = async (k) => {
  const ch = `c${k}${Math.random().toString(36).slice(2, 6)}`; const t = `tmux -L ${tmux.socket} -f ${q(tmux.conf)}`;
  const cpu0 = cpuSeconds(pid);
  const r = await timeSpawn('sh', ['-c', `${t} new-session -d -s s${ch} -x 160 -y 48 ${q(`cat ${file}; echo MARK; tmux wait-for -S ${ch}; sleep 600`)} \\; wait-for ${ch}`], { env: tmux.env, timeoutMs: 600000 });
  const out = { s: r.ms / 1000, cpu: cpuSeconds(pid) - cpu0 };
  await tmux.must(['kill-session', '-t', `s${ch}`]); return out;
};
const res = { 'bench way (send-keys, same pane, capture-pane)': [], "user's way (new-session + wait-for)": [] };
for (let i = 0; i < opt('--runs', 4); i++) {
  const a = await runTmux(tmux, pid, tp, file); res['bench way (send-keys, same pane, capture-pane)'].push({ s: a.seconds, cpu: a.cpu });
  const b = await fresh(i); res["user's way (new-session + wait-for)"].push(b);
  console.log(a.seconds.toFixed(2), a.cpu.toFixed(2), '|', b.s.toFixed(2), b.cpu.toFixed(2));
}
for (const [k, v] of Object.entries(res)) console.log(k.padEnd(50), 'wall', median(v.map(r => r.s)).toFixed(2), 'cpu', median(v.map(r => r.cpu)).toFixed(2));
await tmux.stop();
rmSync(dir, { recursive: true, force: true });
