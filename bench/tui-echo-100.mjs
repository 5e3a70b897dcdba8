/**
 * Keystroke echo through the TUI with 100 panes open: the focused pane plus 99 more
 * workspaces (corral, created over the TUI's socket) / windows (tmux), each with an idle
 * shell, then the same interleaved keystroke timing as `tui-latency` (120×40, 20–40 ms
 * between keys). Target (issue 15): p50 ≤ 1.3× tmux.
 */
import { join } from 'node:path';
import { RpcClient } from './agent-lib.mjs';
import { median, percentile, round, sleep } from './lib.mjs';
import { typeAndTime } from './tui-latency.mjs';
import { CorralTui, LETTERS, TmuxTui, clearLine, keyGap, warmUp } from './tui-lib.mjs';

export const description = 'keystroke echo through the TUI with 100 panes open: corral vs tmux';

const COLS = 120;
const ROWS = 40;

export async function run({ quick = false } = {}) {
  const panes = quick ? 20 : 100;
  const n = quick ? 30 : 150;
  const corral = new CorralTui({ cols: COLS, rows: ROWS });
  const tmux = new TmuxTui({ cols: COLS, rows: ROWS });
  // The same build on its own server with its client forced onto the relay (CORRAL_CLIENT_RELAY=1:
  // what ssh over pipes gets); `corral` is direct (the server writes its tty, docs/clients.md).
  const relay = Object.assign(new CorralTui({ cols: COLS, rows: ROWS, extraEnv: { CORRAL_CLIENT_RELAY: '1' } }), { name: 'corral relay' });
  const sides = [corral, relay, tmux];
  try {
    await Promise.all(sides.map((s) => s.ready()));
    for (const side of [corral, relay]) {
      const rpc = await RpcClient.open(join(side.sandbox.dir, 'run', 'corral', 'default.sock'));
      try {
        for (let i = 1; i < panes; i++) await rpc.call('workspace.create', { cwd: side.sandbox.home, focus: false });
      } finally {
        rpc.close();
      }
    }
    for (let i = 1; i < panes; i++) await tmux.must(['new-window', '-d']);
    await sleep(3000);
    await Promise.all(sides.map((s) => s.term.settle(500)));
    const ms = new Map(sides.map((s) => [s.name, []]));
    await warmUp(sides);
    for (let i = 0; i < n; i++) {
      const ch = LETTERS[i % LETTERS.length];
      for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
        ms.get(side.name).push(await typeAndTime(side, ch));
        await keyGap();
      }
      if ((i + 1) % 40 === 0) {
        for (const side of sides) await clearLine(side);
      }
    }
    const c = ms.get('corral');
    const t = ms.get('tmux');
    const r = ms.get('corral relay');
    process.stderr.write(
      `  ${panes} panes: corral p50 ${median(c).toFixed(2)} p95 ${percentile(c, 95).toFixed(2)} ms; corral relay p50 ${median(r).toFixed(2)} p95 ${percentile(r, 95).toFixed(2)} ms; ` +
        `tmux p50 ${median(t).toFixed(2)} p95 ${percentile(t, 95).toFixed(2)} ms\n`,
    );
    return [
      {
        name: `tui: keystroke echo p50 with ${panes} panes open, ${n} keys`,
        value: round(median(c), 2),
        p95: round(percentile(c, 95), 2),
        unit: 'ms',
        baseline: 'tmux',
        baselineValue: round(median(t), 2),
        ratio: round(median(c) / median(t)),
        target: 'p50 ≤ 1.3×',
        pass: median(c) <= 1.3 * median(t),
      },
      {
        name: `tui: keystroke echo p50 with ${panes} panes open through the relay (CORRAL_CLIENT_RELAY=1)`,
        value: round(median(r), 2),
        p95: round(percentile(r, 95), 2),
        unit: 'ms',
        baseline: 'tmux',
        baselineValue: round(median(t), 2),
        ratio: round(median(r) / median(t)),
      },
    ];
  } finally {
    await Promise.allSettled(sides.map((s) => s.close()));
  }
}
