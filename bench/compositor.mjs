/**
 * Compositor micro-benchmarks from bench/src/diff-bench.ts (`benchmarkDiff`) and
 * bench/src/echo-bench.ts (`benchmarkKeystroke`, a real xterm behind the pane), bundled by
 * `importBundled` (bench/lib.mjs) and run in this process. 160×45 screen.
 */
import { importBundled, round } from './lib.mjs';

export const description = 'compositor: diffFrame and keystroke-echo render (µs per frame, bytes)';

export async function run({ quick = false } = {}) {
  const bundle = await importBundled('bench/src/diff-bench.ts');
  const echoBundle = await importBundled('bench/src/echo-bench.ts').catch((error) => {
    bundle.dispose();
    throw error;
  });
  try {
    const { benchmarkDiff } = bundle.mod;
    const { benchmarkKeystroke } = echoBundle.mod;
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
      // The same frame for a client without truecolor: its 24-bit colours mapped to the 256 palette.
      {
        name: `compositor: diffFrame, all cells changed, 256-colour client (${size})`,
        value: round(mid(diffs, 'allChanged256Us'), 1),
        unit: 'µs/frame',
        baseline: 'truecolor client',
        baselineValue: round(mid(diffs, 'allChangedUs'), 1),
        ratio: round(mid(diffs, 'allChanged256Us') / mid(diffs, 'allChangedUs'), 2),
      },
      { name: 'compositor: diffFrame, all cells changed, 256-colour client — output', value: mid(diffs, 'allChanged256Bytes'), unit: 'bytes' },
      { name: 'compositor: keystroke echo render (mark, compose, diff)', value: round(mid(keys, 'renderUs'), 1), unit: 'µs/frame' },
      { name: 'compositor: keystroke echo — output', value: mid(keys, 'bytes'), unit: 'bytes' },
    ];
  } finally {
    bundle.dispose();
    echoBundle.dispose();
  }
}
