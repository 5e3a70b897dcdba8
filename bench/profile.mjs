#!/usr/bin/env node
/**
 * `npm run profile -- NAME [ARGS…]`: one of the profilers in bench/profile/, which are not
 * benchmarks (`npm run bench` does not run them) but the tools used to find where time and
 * memory go. Without a NAME, lists them with the first line of each one's description.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const DIR = join(import.meta.dirname, 'profile');
const names = readdirSync(DIR).filter((f) => f.endsWith('.mjs')).map((f) => f.slice(0, -4)).sort();
const [name, ...args] = process.argv.slice(2);

if (!name || !names.includes(name)) {
  if (name) process.stderr.write(`no profiler named ${JSON.stringify(name)}\n`);
  process.stderr.write('usage: npm run profile -- NAME [ARGS…]\n\n');
  for (const each of names) {
    const text = readFileSync(join(DIR, `${each}.mjs`), 'utf8');
    const first = /\/\*\*\s*\n\s*\*\s*(.+)/.exec(text)?.[1] ?? '';
    process.stderr.write(`  ${each.padEnd(20)} ${first}\n`);
  }
  process.exit(name ? 2 : 0);
}
const run = spawnSync(process.execPath, [join(DIR, `${name}.mjs`), ...args], { stdio: 'inherit' });
process.exit(run.status ?? 1);
