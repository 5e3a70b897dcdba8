/**
 * The user's path through an outer terminal (issue 45): what a person meets, timed in a real
 * pty with tmux in the same run, `runs` runs (3) each, and for each run its own ratio — the
 * issue's figures moved 0.67–1.61× between runs, so one pooled median hides what a user sees.
 *
 *   attach      `corral attach` spawned in a fresh 120×40 node-pty until its first full frame
 *               (bench/client-attach.mjs attachOnce), against `corral ps --json` run to exit,
 *               alternating; `rounds` of each a run, including the server's first attach
 *   input box   echo into an agent-style input box (bench/fixtures/input-box.mjs: three
 *               coloured lines redrawn whole per key, as Ink does), in corral's TUI and in tmux
 *               attached side by side, keys alternating between them
 *   plain echo  the same in bash at its prompt
 *   busy echo   plain echo while five panes (two visible beside the typed one, three in another
 *               tab/window) redraw 30 coloured lines at 30 fps (bench/fixtures/redraw.mjs), on
 *               both sides at once as the issue measured it (ten redrawing processes and both
 *               multiplexers on the machine), keys alternating
 *
 * Echo: key written to the outer pty → the first chunk of output that holds the letter
 * (bench/tui-lib.mjs typeAndStamp), a 20–40 ms gap between keys.
 *
 *   node bench/user-tui.mjs [--runs 3] [--keys 60] [--only attach,box,echo,busy] [--base DIR]
 *
 * Beside the plain, busy and input-box echoes, a third side: the Node floor (bench/fixtures/
 * pty-passthrough.mjs, a shell in node-pty wired straight through with write(2), no emulator, no
 * compositor), typed into in the same alternation (for the busy echo, on the same busy machine)
 * and reported against tmux and against corral: what any Node program pays on this machine,
 * and corral's own share above it.
 *
 * `--base DIR`: another build (a worktree with `dist/` built) measured in the same rounds —
 * attached in alternation for the attach row, a third side typed into for the plain echo and
 * the input box (not the busy echo: fifteen redrawing panes would measure the machine) — and
 * reported as its own rows: a same-run before/after on a shared machine.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, median, percentile, round } from './lib.mjs';
import { CorralTui, LETTERS, PassthroughTui, TmuxTui, clearLine, keyGap, typeAndStamp, warmUp } from './tui-lib.mjs';
import { attachOnce, startServer, stopServer } from './client-attach.mjs';
import { fmtSpread, spread } from './user-flood.mjs';

export const description = "the user's path in an outer terminal: attach vs ps, echo in an input box, plain echo, echo beside five redrawing panes, against tmux (ms)";

const COLS = 120;
const ROWS = 40;
const FIXTURES = join(import.meta.dirname, 'fixtures');

/** Rows for one measure: one per run (its ratio), and the median of the runs' ratios with their spread. */
function runRows(what, perRun, baseline, target) {
  const ratios = perRun.map((r) => r.value / r.base);
  const s = spread(ratios);
  const rows = perRun.map((r, i) => ({
    name: `${what}, run ${i + 1}`,
    value: round(r.value, 2),
    unit: 'ms',
    baseline,
    baselineValue: round(r.base, 2),
    ratio: round(r.value / r.base),
  }));
  rows.push({
    name: `${what}: median of ${perRun.length} runs' ratios (min–max ${s.min}–${s.max})`,
    value: round(median(perRun.map((r) => r.value)), 2),
    unit: 'ms',
    baseline,
    baselineValue: round(median(perRun.map((r) => r.base)), 2),
    ratio: s.median,
    target: `≤ ${target}×`,
    pass: s.median <= target,
  });
  process.stderr.write(`  ${what}: ratios ${ratios.map((r) => r.toFixed(2)).join(', ')} → ${fmtSpread(s, '×')}\n`);
  return rows;
}

async function attachRows(runs, rounds, base) {
  const side = await startServer(BIN);
  const other = base ? await startServer(join(base, 'bin', 'corral.cjs')) : null;
  try {
    const perRun = [];
    const basePerRun = [];
    for (let run = 0; run < runs; run++) {
      const ps = [];
      const attach = [];
      const baseAttach = [];
      for (let i = 0; i < rounds; i++) {
        const order = other ? ['attach', 'base', 'ps'] : ['attach', 'ps'];
        for (const what of (i + run) % 2 === 0 ? order : [...order].reverse()) {
          if (what === 'ps') ps.push((await side.cli(['ps', '--json'])).ms);
          else if (what === 'base') baseAttach.push(await attachOnce(other.sandbox, other.bin));
          else attach.push(await attachOnce(side.sandbox, side.bin));
        }
      }
      process.stderr.write(`  attach run ${run + 1}: attach ${attach.map((v) => v.toFixed(0)).join(' ')} ms; ps ${ps.map((v) => v.toFixed(0)).join(' ')} ms${other ? `; base attach ${baseAttach.map((v) => v.toFixed(0)).join(' ')} ms` : ''}\n`);
      perRun.push({ value: median(attach), base: median(ps) });
      if (other) basePerRun.push({ value: median(baseAttach), base: median(ps) });
    }
    const rows = runRows(`user attach: \`corral attach\` in a fresh ${COLS}×${ROWS} pty to its first frame (p50 of ${rounds})`, perRun, '`corral ps --json`', 1.3);
    if (other) rows.push(...runRows(`user attach, base build ${base}`, basePerRun, '`corral ps --json`', 1.3));
    return rows;
  } finally {
    await stopServer(side);
    if (other) await stopServer(other);
  }
}

/** `n` keys into each side, alternating key by key; each side's echo times (ms). */
async function alternate(sides, n) {
  const ms = new Map(sides.map((s) => [s.name, []]));
  for (let i = 0; i < n; i++) {
    const ch = LETTERS[i % LETTERS.length];
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      const [written, seen] = await typeAndStamp(side, ch, 5000);
      ms.get(side.name).push(seen - written);
      await keyGap();
    }
    if ((i + 1) % LETTERS.length === 0) for (const side of sides) await clearLine(side);
  }
  for (const side of sides) await clearLine(side);
  return ms;
}

const FLOOR = 'node floor';

/**
 * Runs of `n` alternating keys; per run corral's and tmux's p50 (and p95 for the log). The
 * base build's and the Node floor's runs, when those sides type too, go to `others` by name.
 */
async function echoRuns(sides, runs, n, label, others = {}) {
  const perRun = [];
  const p = (v) => `p50 ${median(v).toFixed(2)} p95 ${percentile(v, 95).toFixed(2)}`;
  for (let run = 0; run < runs; run++) {
    const ms = await alternate(run % 2 === 0 ? sides : [...sides].reverse(), n);
    const c = ms.get('corral');
    const t = ms.get('tmux');
    const extra = Object.keys(others).filter((name) => ms.has(name));
    process.stderr.write(`  ${label} run ${run + 1}: corral ${p(c)}; tmux ${p(t)}${extra.map((name) => `; ${name} ${p(ms.get(name))}`).join('')} ms\n`);
    perRun.push({ value: median(c), base: median(t), p95: percentile(c, 95), baseP95: percentile(t, 95) });
    for (const name of extra) others[name].push({ value: median(ms.get(name)), base: median(t), corral: median(c) });
  }
  return perRun;
}

/** corral, tmux and the Node floor, and the base build's corral when given. */
function makeSides(base, floor = true) {
  const sides = [new CorralTui({ cols: COLS, rows: ROWS }), new TmuxTui({ cols: COLS, rows: ROWS })];
  if (floor) sides.push(Object.assign(new PassthroughTui({ cols: COLS, rows: ROWS }), { name: FLOOR }));
  if (base) sides.push(Object.assign(new CorralTui({ cols: COLS, rows: ROWS, bin: join(base, 'bin', 'corral.cjs') }), { name: 'corral base' }));
  return sides;
}

/** The floor's rows: its own ratio to tmux per run, and corral's to it (no target: what the machine allows). */
function floorRows(what, floorRuns) {
  const rows = runRows(`${what}: the Node floor (a shell in node-pty passed straight through)`, floorRuns, 'tmux', Infinity);
  rows.push(...runRows(`${what}: corral against the Node floor`, floorRuns.map((r) => ({ value: r.corral, base: r.value })), 'the Node floor', Infinity));
  return rows.map(({ target, pass, ...row }) => row);
}

/** Starts a program in each side's typed pane (replacing its shell) and waits for it to draw. */
async function startInPane(side, command, seen) {
  side.term.write(`exec ${command}\r`);
  await side.term.waitFor(seen, `${side.name}: ${command}`, 15_000);
  await side.term.settle(200, 5000);
}

async function boxAndEchoRows(runs, n, only, base) {
  const rows = [];
  if (only.has('echo')) {
    const sides = makeSides(base);
    try {
      await Promise.all(sides.map((s) => s.ready()));
      await Promise.all(sides.map((s) => s.term.settle(500)));
      await warmUp(sides);
      const others = { 'corral base': [], [FLOOR]: [] };
      rows.push(...runRows(`user echo: plain echo in bash, corral TUI and tmux attached side by side, keys alternating (p50 of ${n})`, await echoRuns(sides, runs, n, 'plain echo', others), 'tmux', 1.3));
      rows.push(...floorRows('user echo: plain echo', others[FLOOR]));
      if (base) rows.push(...runRows(`user echo: plain echo, base build ${base}`, others['corral base'], 'tmux', 1.3));
      if (only.has('busy')) rows.push(...(await busyRows(sides.filter((s) => s.name !== 'corral base'), runs, n)));
    } finally {
      await Promise.allSettled(sides.map((s) => s.close()));
    }
  }
  if (only.has('box')) {
    const sides = makeSides(base);
    try {
      await Promise.all(sides.map((s) => s.ready()));
      await Promise.all(sides.map((s) => s.term.settle(500)));
      const box = join(FIXTURES, 'input-box.mjs');
      for (const side of sides) await startInPane(side, `${process.execPath} ${box}`, () => side.term.text().includes('╰'));
      await warmUp(sides);
      const others = { 'corral base': [], [FLOOR]: [] };
      rows.push(...runRows(`user echo: agent-style input box (3 coloured lines redrawn per key), side by side, keys alternating (p50 of ${n})`, await echoRuns(sides, runs, n, 'input box', others), 'tmux', 1.3));
      rows.push(...floorRows('user echo: input box', others[FLOOR]));
      if (base) rows.push(...runRows(`user echo: input box, base build ${base}`, others['corral base'], 'tmux', 1.3));
    } finally {
      await Promise.allSettled(sides.map((s) => s.close()));
    }
  }
  return rows;
}

/**
 * Five redrawing panes on one side: two beside the typed pane, three in a second tab (tmux: a
 * second window); resolves with a function that closes them.
 */
async function startRedraws(side) {
  const command = `${process.execPath} ${join(FIXTURES, 'redraw.mjs')} 30 30`;
  const closers = [];
  if (side instanceof CorralTui) {
    const split = async (pane) => JSON.parse((await side.cli(['pane', 'split', pane, '--direction', 'right', '--no-focus'])).stdout).result.pane.pane_id;
    const a = await split('w1:p1');
    const b = await split(a);
    const tab = JSON.parse((await side.cli(['tab', 'create', '--workspace', 'w1', '--no-focus'])).stdout).result;
    const c = tab.root_pane.pane_id;
    const d = await split(c);
    const e = await split(d);
    for (const pane of [a, b, c, d, e]) {
      await side.cli(['pane', 'run', pane, `exec ${command}`]);
      closers.push(() => side.cli(['pane', 'close', pane]));
    }
  } else {
    const pane = async (args) => (await side.must([...args, '-d', '-P', '-F', '#{pane_id}', command])).stdout.trim();
    const a = await pane(['split-window', '-h', '-t', '%0']);
    const b = await pane(['split-window', '-h', '-t', a]);
    const c = await pane(['new-window']);
    const d = await pane(['split-window', '-h', '-t', c]);
    const e = await pane(['split-window', '-h', '-t', d]);
    for (const p of [e, d, c, b, a]) closers.push(() => side.must(['kill-pane', '-t', p]));
  }
  // Frames with digits going by on the outer terminal: the two visible ones are drawing.
  let frames = 0;
  const stop = side.term.listen((_now, data) => {
    if (data && /\d{9} /.test(data)) frames++;
  });
  await side.term.waitFor(() => frames > 10, `${side.name}: redraws shown`, 15_000);
  stop();
  return async () => {
    for (const close of closers) await close();
    await side.term.settle(200, 5000);
  };
}

/**
 * `sides`: corral and tmux, each given five redrawing panes, and the Node floor when there, typed
 * into in the same alternation on the same busy machine (it has no panes of its own: what a
 * Node program's echo costs while the ten redrawing programs and both multiplexers run).
 */
async function busyRows(sides, runs, n) {
  // As the issue measured it: both sides' five panes redrawing at once, keys alternating.
  const stops = [];
  try {
    for (const side of sides) if (side.name !== FLOOR) stops.push(await startRedraws(side));
    const others = { [FLOOR]: [] };
    const perRun = await echoRuns(sides, runs, n, 'busy echo', others);
    const rows = runRows(`user echo: plain echo while five panes (two shown, three in another tab) redraw 30 coloured lines at 30 fps, in each side at once (p50 of ${n})`, perRun, 'tmux', 1.0);
    if (others[FLOOR].length > 0) rows.push(...floorRows('user echo: busy echo', others[FLOOR]));
    return rows;
  } finally {
    for (const stop of stops) await stop();
  }
}

export async function run({ quick = false, runs: wantRuns = null, keys = null, only = null, base = null } = {}) {
  const runs = wantRuns ?? (quick ? 1 : 3);
  const n = keys ?? (quick ? 16 : 60);
  const parts = new Set(only ?? ['attach', 'box', 'echo', 'busy']);
  const rows = [];
  if (parts.has('attach')) rows.push(...(await attachRows(runs, quick ? 3 : 10, base)));
  if (parts.has('busy')) parts.add('echo');
  rows.push(...(await boxAndEchoRows(runs, n, parts, base)));
  return rows;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : null);
  const rows = await run({ quick: args.includes('--quick'), runs: opt('--runs') ? Number(opt('--runs')) : null, keys: opt('--keys') ? Number(opt('--keys')) : null, only: opt('--only')?.split(',') ?? null, base: opt('--base') });
  for (const r of rows) process.stdout.write(`${r.name}: ${r.value} ${r.unit}; ${r.baseline} ${r.baselineValue}; ×${r.ratio}${r.target ? ` (target ${r.target}: ${r.pass ? 'met' : 'NOT met'})` : ''}\n`);
}
