/**
 * `corral attach` to its first full frame vs `corral ps --json`, against the same running
 * server (issue 12: attach ≤ 1.5× ps). The server (`corral server --detach`) holds one
 * workspace with bash at its prompt. Each round: `ps --json` run to exit (spawn → exit), then
 * `corral attach` in a 120×40 node-pty, timed from spawn until the end of the first frame
 * that shows the pane (`w1:p1` drawn and the frame's closing ESC[?2026l); then the client is
 * detached (prefix d) and waited for. 15 rounds (`--quick` 3), the order alternating.
 */
import { join } from 'node:path';
import { BIN, median, percentile, removeDir, round, timeSpawn } from './lib.mjs';
import { OuterTerminal, makeSandbox, stripEscapes } from './tui-lib.mjs';

export const description = '`corral attach` to the first full frame vs `corral ps --json` (ms)';

async function attachOnce(sandbox) {
  const start = performance.now();
  const term = new OuterTerminal(process.execPath, [BIN, 'attach'], { cols: 120, rows: 40, env: sandbox.env, cwd: sandbox.home, screen: false });
  let raw = '';
  const stop = term.listen((_now, data) => {
    if (data !== null) raw = (raw + data).slice(-65536);
  });
  const at = await term.waitFor(() => stripEscapes(raw).includes('w1:p1') && raw.lastIndexOf('\x1b[?2026l') > raw.indexOf('w1:p1'), 'the first full frame');
  stop();
  term.write('\x02d');
  await term.exited;
  await term.close();
  return at - start;
}

export async function run({ quick = false } = {}) {
  const rounds = quick ? 3 : 15;
  const sandbox = makeSandbox('corral-attach-bench-');
  const cli = (args) => timeSpawn(process.execPath, [BIN, ...args], { env: sandbox.env });
  try {
    const started = await cli(['server', '--detach']);
    if (started.code !== 0) throw new Error(`server --detach: ${started.stderr}`);
    await cli(['workspace', 'create', '--cwd', sandbox.home]);
    // One of each first: the OS caches, the server's first attach loads the chrome's views.
    await cli(['ps', '--json']);
    await attachOnce(sandbox);
    const ps = [];
    const attach = [];
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? ['ps', 'attach'] : ['attach', 'ps'];
      for (const what of order) {
        if (what === 'ps') ps.push((await cli(['ps', '--json'])).ms);
        else attach.push(await attachOnce(sandbox));
      }
    }
    const ratio = median(attach) / median(ps);
    process.stderr.write(`  attach p50 ${round(median(attach))} ms p95 ${round(percentile(attach, 95))} ms; ps --json p50 ${round(median(ps))} ms\n`);
    return [
      {
        name: 'client: `corral attach` to first full frame (p50)',
        value: round(median(attach), 1),
        unit: 'ms',
        baseline: '`corral ps --json`',
        baselineValue: round(median(ps), 1),
        ratio: round(ratio),
        target: '≤ 1.5×',
        pass: ratio <= 1.5,
      },
    ];
  } finally {
    await cli(['kill-server']).catch(() => {});
    await removeDir(sandbox.dir);
  }
}
