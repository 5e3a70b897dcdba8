#!/usr/bin/env node
/**
 * Runs the benchmarks and prints one table; writes bench/results.json.
 *
 *   node bench/run.mjs                      all of them (after `npm run -s build`)
 *   node bench/run.mjs throughput idle-cpu  only these
 *   node bench/run.mjs tui-latency tui-idle tui-throughput   the real TUI in a node-pty vs tmux attached
 *   node bench/run.mjs --quick              small sizes, few repetitions: a smoke run
 *
 * `npm run bench` builds first. Measurements only: nothing here is part of the test suite.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './lib.mjs';

/** Every benchmark module, in the order they run. */
const BENCHES = ['cli-startup', 'pane-spawn', 'throughput', 'idle-cpu', 'abuse', 'scale', 'scrollback-cost', 'scrollback-resize', 'compositor', 'fence', 'copy-search', 'render-cost', 'agent-detection', 'agent-kinds', 'agent-cpu', 'agent-prompt', 'agent-generic', 'tui-latency', 'tui-echo-100', 'tui-idle', 'tui-throughput', 'tui-paste', 'client-attach', 'client-leaks', 'user-flood', 'user-tui', 'persist', 'machine', 'machine-predict', 'worktree', 'checkpoint', 'web', 'mcp', 'usage', 'package'];

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const named = args.filter((a) => !a.startsWith('--'));
for (const name of named) {
  if (!BENCHES.includes(name)) {
    process.stderr.write(`unknown benchmark ${JSON.stringify(name)}; known: ${BENCHES.join(', ')}\n`);
    process.exit(2);
  }
}
const selected = named.length > 0 ? BENCHES.filter((b) => named.includes(b)) : BENCHES;

if (!existsSync(join(ROOT, 'dist', 'cli.cjs'))) {
  process.stderr.write('dist/ is missing: run `npm run -s build` first (or `npm run bench`)\n');
  process.exit(1);
}

function tmuxVersion() {
  try {
    return execFileSync('tmux', ['-V'], { encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
}

const rows = [];
const errors = [];
const started = Date.now();
for (const name of selected) {
  const t0 = Date.now();
  process.stderr.write(`▶ ${name}${quick ? ' (quick)' : ''}\n`);
  try {
    const mod = await import(pathToFileURL(join(ROOT, 'bench', `${name}.mjs`)).href);
    const result = await mod.run({ quick });
    for (const row of result) rows.push({ bench: name, ...row });
    process.stderr.write(`  done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
  } catch (error) {
    errors.push({ bench: name, error: String(error?.stack ?? error) });
    process.stderr.write(`  FAILED: ${error?.stack ?? error}\n`);
  }
}

function fmt(v) {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '–';
  return String(v);
}

const header = ['benchmark', 'corral', 'unit', 'baseline', 'ratio', 'target', 'ok'];
const table = rows.map((r) => [
  r.name,
  fmt(r.value) + (r.p95 !== undefined ? ` (p95 ${fmt(r.p95)})` : ''),
  r.unit ?? '',
  r.baseline ? `${r.baseline}: ${fmt(r.baselineValue)}` : '',
  r.ratio === undefined || r.ratio === null ? '' : `${fmt(r.ratio)}×`,
  r.target ?? '',
  r.pass === undefined ? '' : r.pass ? 'yes' : 'NO',
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((row) => [...row[i]].length)));
const line = (cells) => cells.map((c, i) => c + ' '.repeat(widths[i] - [...c].length)).join(' │ ');
process.stdout.write('\n' + line(header) + '\n' + widths.map((w) => '─'.repeat(w)).join('─┼─') + '\n');
for (const row of table) process.stdout.write(line(row) + '\n');
if (errors.length > 0) process.stdout.write(`\n${errors.length} benchmark(s) failed: ${errors.map((e) => e.bench).join(', ')}\n`);

const machine = {
  cpu: os.cpus()[0]?.model ?? 'unknown',
  cores: os.cpus().length,
  memGB: Math.round(os.totalmem() / 2 ** 30),
  os: `${os.type()} ${os.release()}`,
  node: process.version,
  tmux: tmuxVersion(),
};
const out = { date: new Date().toISOString(), quick, machine, seconds: Math.round((Date.now() - started) / 1000), rows, errors };
writeFileSync(join(ROOT, 'bench', 'results.json'), JSON.stringify(out, null, 2) + '\n');
process.stdout.write(`\n${machine.cpu}, ${machine.cores} cores, ${machine.node}, ${machine.tmux ?? 'no tmux'} — wrote bench/results.json\n`);
process.exitCode = errors.length > 0 ? 1 : 0;
