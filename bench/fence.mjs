/**
 * The injection fence's cost on what `corral read` fences (src/core/fence.ts
 * `neutraliseFenceTags`, bundled with esbuild and run in this process), against the regex
 * it replaced (one JavaScript RegExp pass, kept here as the baseline):
 * - typical output: 10 000 lines of logs, code and HTML (~700 KB, one `<` every ~25 characters);
 * - hostile output: runs of spaces after `<`, where the old regex backtracked quadratically.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, round } from './lib.mjs';

export const description = 'fence: neutralising look-alike tags in a read (ms per read) vs the previous regex';

/** The fence's regex before look-alikes were handled (commit f3b0483), the baseline. */
const PREVIOUS_RE =
  /<([\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]*\/?[\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\uFEFF]*untrusted[\s_-]*terminal[\s_-]*output)/giu;
const previous = (text) => text.replace(PREVIOUS_RE, '&lt;$1');

function typicalOutput(lines) {
  const samples = [
    '2026-12-01T00:12:03Z INFO  request id=4f2a path=/api/v1/items status=200 took=12ms',
    'export function pick<T, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {',
    '  <div class="row"><span>name</span><a href="/x">link</a></div>',
    '    at Object.<anonymous> (/src/app/server.ts:41:13)',
    '✓ test/unit/fence.test.ts (20 tests) 725ms — 日本語のテキスト',
    'if (a < b && c <= d) { return a << 2; }',
  ];
  return Array.from({ length: lines }, (_, i) => samples[i % samples.length]).join('\n');
}

/** Median ms of `fn(text)` over `rounds` runs, after one warm-up. */
function time(fn, text, rounds) {
  fn(text);
  const runs = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    fn(text);
    runs.push(performance.now() - t0);
  }
  return runs.sort((a, b) => a - b)[runs.length >> 1];
}

export async function run({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-fence-'));
  try {
    const outfile = join(dir, 'fence.mjs');
    await build({ absWorkingDir: ROOT, entryPoints: ['src/core/fence.ts'], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node20', logLevel: 'warning' });
    const { neutraliseFenceTags } = await import(pathToFileURL(outfile).href);
    const rounds = quick ? 5 : 21;
    const typical = typicalOutput(10_000);
    const hostile = `${'<'.repeat(2000)}${` <${' '.repeat(4000)}`.repeat(quick ? 5 : 20)}`;
    const rows = [];
    for (const [label, text] of [
      [`typical output, 10 000 lines (${Math.round(typical.length / 1024)} KB)`, typical],
      [`hostile: \`<\` + 4000 spaces × ${quick ? 5 : 20}`, hostile],
    ]) {
      const ours = time(neutraliseFenceTags, text, rounds);
      const theirs = time(previous, text, quick ? 1 : 3);
      rows.push({
        name: `fence: ${label}`,
        value: round(ours, 2),
        unit: 'ms/read',
        baseline: 'previous regex',
        baselineValue: round(theirs, 2),
        ratio: round(ours / theirs, 3),
      });
    }
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
