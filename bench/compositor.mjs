/**
 * Compositor micro-benchmarks from src/screen/bench.ts (`benchmarkDiff`, `benchmarkKeystroke`),
 * bundled here with esbuild into a temporary .mjs (there is no TS loader in the deps) and run
 * in this process. 160×45 screen.
 */
import { build } from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT, round } from './lib.mjs';

export const description = 'compositor: diffFrame and keystroke-echo render (µs per frame, bytes)';

export async function run({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-compositor-'));
  try {
    const outfile = join(dir, 'screen-bench.mjs');
    await build({
      absWorkingDir: ROOT,
      entryPoints: ['src/screen/bench.ts'],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      // Bundled CommonJS (@xterm/headless) may call require().
      banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module';\nconst require = __benchCreateRequire(import.meta.url);" },
    });
    const { benchmarkDiff, benchmarkKeystroke } = await import(pathToFileURL(outfile).href);
    const iterations = quick ? 200 : 2000;
    // Three rounds, keep the best-of-median: the machine is noisy, the code is deterministic.
    const diffs = [];
    const keys = [];
    for (let i = 0; i < 3; i++) {
      diffs.push(benchmarkDiff(iterations));
      keys.push(await benchmarkKeystroke(iterations));
    }
    const mid = (arr, key) => arr.map((r) => r[key]).sort((a, b) => a - b)[arr.length >> 1];
    const size = `${diffs[0].cols}×${diffs[0].rows}`;
    return [
      { name: `compositor: diffFrame, one cell changed (${size})`, value: round(mid(diffs, 'oneCellUs'), 1), unit: 'µs/frame' },
      { name: 'compositor: diffFrame, one cell changed — output', value: mid(diffs, 'oneCellBytes'), unit: 'bytes' },
      { name: `compositor: diffFrame, all cells changed (${size})`, value: round(mid(diffs, 'allChangedUs'), 1), unit: 'µs/frame' },
      { name: 'compositor: diffFrame, all cells changed — output', value: mid(diffs, 'allChangedBytes'), unit: 'bytes' },
      { name: 'compositor: keystroke echo render (mark, compose, diff)', value: round(mid(keys, 'renderUs'), 1), unit: 'µs/frame' },
      { name: 'compositor: keystroke echo — output', value: mid(keys, 'bytes'), unit: 'bytes' },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
