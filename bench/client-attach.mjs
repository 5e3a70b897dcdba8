/**
 * `corral attach` to its first full frame vs `corral ps --json`, against the same running
 * server (issue 12: attach ≤ 1.5× ps). The server (`corral server --detach`) holds one
 * workspace with bash at its prompt. Each round: `ps --json` run to exit (spawn → exit), then
 * `corral attach` in a 120×40 node-pty, timed from spawn until the end of the first frame
 * that shows the pane (`w1:p1` drawn and the frame's closing ESC[?2026l); then the client is
 * detached (prefix d) and waited for. 15 rounds (`--quick` 3), the order alternating. The
 * server's own share of `client.attach` (parse to reply, `system.stats`) is reported beside it:
 * it holds the placement of the attaching process (SPEC §8, issue 26).
 *
 *   node bench/client-attach.mjs [--base DIR] [--rounds N]
 *
 * `--base DIR`: another build (a worktree with `dist/` built), attached in alternation with
 * this one, each against its own server, for a same-run A/B of the attach time.
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, median, percentile, removeDir, round, timeSpawn } from './lib.mjs';
import { OuterTerminal, makeSandbox, stripEscapes } from './tui-lib.mjs';

export const description = '`corral attach` to the first full frame vs `corral ps --json` (ms)';

export async function attachOnce(sandbox, bin = BIN) {
  const start = performance.now();
  const term = new OuterTerminal(process.execPath, [bin, 'attach'], { cols: 120, rows: 40, env: sandbox.env, cwd: sandbox.home, screen: false });
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

/** A detached server of `bin` in a fresh sandbox, with one workspace; `cli` runs that build's CLI. */
export async function startServer(bin) {
  const sandbox = makeSandbox('corral-attach-bench-');
  const cli = (args) => timeSpawn(process.execPath, [bin, ...args], { env: sandbox.env });
  const started = await cli(['server', '--detach']);
  if (started.code !== 0) throw new Error(`server --detach: ${started.stderr}`);
  await cli(['workspace', 'create', '--cwd', sandbox.home]);
  return { sandbox, cli, bin };
}

/** The server's own p50 for `client.attach` (ms), from `system.stats` on its socket; null before any. */
function serverAttachP50(side) {
  const socket = join(side.sandbox.env.XDG_RUNTIME_DIR, 'corral', 'default.sock');
  return new Promise((resolve) => {
    const conn = connect(socket, () => conn.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.stats' })}\n`));
    let text = '';
    conn.on('data', (chunk) => {
      text += chunk;
      if (!text.includes('\n')) return;
      conn.destroy();
      resolve(JSON.parse(text.slice(0, text.indexOf('\n'))).result?.requests?.['client.attach']?.p50_ms ?? null);
    });
    conn.on('error', () => resolve(null));
  });
}

export async function stopServer(side) {
  await side.cli(['kill-server']).catch(() => {});
  await removeDir(side.sandbox.dir);
}
export async function run({ quick = false, base = null, rounds: wanted = null } = {}) {
  const rounds = wanted ?? (quick ? 3 : 15);
  const sides = [await startServer(BIN)];
  if (base) sides.push(await startServer(join(base, 'bin', 'corral.cjs')));
  const [main] = sides;
  try {
    // One of each first: the OS caches, the server's first attach loads the chrome's views.
    await main.cli(['ps', '--json']);
    for (const side of sides) await attachOnce(side.sandbox, side.bin);
    const ps = [];
    const attach = sides.map(() => []);
    for (let i = 0; i < rounds; i++) {
      const order = i % 2 === 0 ? ['ps', 'attach'] : ['attach', 'ps'];
      for (const what of order) {
        if (what === 'ps') ps.push((await main.cli(['ps', '--json'])).ms);
        else for (const [k, side] of (i % 2 === 0 ? sides : [...sides].reverse()).entries()) attach[i % 2 === 0 ? k : sides.length - 1 - k].push(await attachOnce(side.sandbox, side.bin));
      }
    }
    const ratio = median(attach[0]) / median(ps);
    const serverShare = await serverAttachP50(main);
    process.stderr.write(`  attach p50 ${round(median(attach[0]))} ms p95 ${round(percentile(attach[0], 95))} ms; ps --json p50 ${round(median(ps))} ms; server's client.attach p50 ${serverShare} ms\n`);
    const rows = [
      {
        name: 'client: `corral attach` to first full frame (p50)',
        value: round(median(attach[0]), 1),
        unit: 'ms',
        baseline: '`corral ps --json`',
        baselineValue: round(median(ps), 1),
        ratio: round(ratio),
        target: '≤ 1.5×',
        pass: ratio <= 1.5,
      },
    ];
    if (base) {
      const before = median(attach[1]);
      const baseShare = await serverAttachP50(sides[1]);
      process.stderr.write(`  base ${base}: attach p50 ${round(before)} ms; server's client.attach p50 ${baseShare} ms\n`);
      rows.push({
        name: 'client: attach p50, this build − base (same run)',
        value: round(median(attach[0]) - before, 1),
        unit: 'ms',
        baseline: 'base build',
        baselineValue: round(before, 1),
        ratio: round(median(attach[0]) / before),
        target: '≤ +5 ms',
        pass: median(attach[0]) - before <= 5,
      });
    }
    return rows;
  } finally {
    for (const side of sides) await stopServer(side);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
  const rows = await run({ base: opt('--base'), rounds: opt('--rounds') ? Number(opt('--rounds')) : null });
  for (const row of rows) process.stdout.write(`${row.name}: ${row.value} ${row.unit} (${row.baseline} ${row.baselineValue}, ×${row.ratio})\n`);
}
