/**
 * Width change with 10,000 rows of scrollback, compact store on vs off (xterm alone), for plain
 * and soft-wrapped output: `benchmarkResize()` from bench/src/resize-bench.ts, bundled by
 * `importBundled` and run in this process, timed as CPU (this process's user + system time: a loaded machine
 * inflates wall time); also the encoding the store defers to the pane's
 * next quiet spell, timed apart. Median of 10 changes 160 ↔ 120 columns each
 * (`--quick`: 4 changes, 2,000 rows).
 */
import { importBundled, round } from './lib.mjs';

export const description = 'resize with a full scrollback: compact store on vs off (ms per width change)';

export async function run({ quick = false } = {}) {
  const bundle = await importBundled('bench/src/resize-bench.ts');
  try {
    const cases = await bundle.mod.benchmarkResize(quick ? 4 : 10, quick ? 2000 : 10_000);
    return cases.flatMap((c) => {
      const what = `${quick ? '2,000' : '10,000'} ${c.name === 'plain' ? 'plain' : 'soft-wrapped'} rows`;
      return [
        {
          name: `resize 160 ↔ 120 cols, ${what}, store on`,
          value: round(c.onMs, 1),
          unit: 'cpu-ms',
          baseline: 'store off (xterm alone)',
          baselineValue: round(c.offMs, 1),
          ratio: round(c.onMs / c.offMs),
        },
        { name: `  then encoding the rows it left raw (when quiet), ${what}`, value: round(c.encodeMs, 1), unit: 'cpu-ms' },
      ];
    });
  } finally {
    bundle.dispose();
  }
}
