/**
 * The user's flood (issue 45): `cat` of a base64 file in 120-column lines, started and awaited
 * the way a script does — two CLI processes — in a NEW pane, against tmux started the way a
 * script does, in the same run. Not the held socket of bench/throughput.mjs: the issue found
 * that bench at 0.74× while a script saw 1.2–1.5×.
 *
 *   corral: a new pane (`tab create`), its prompt awaited (untimed); then, timed, one shell:
 *           sh -c 'corral pane run P "cat F; echo MARK-k-tag"; corral pane wait-output P --regex "^MARK-k-tag"'
 *           floods 2 and 3 in the same pane the same way (later floods)
 *   tmux:   sh -c 'tmux new-session -d -x C -y R "cat F; echo MARK; tmux wait-for -S ch" \; wait-for ch'
 *           (a new session, so a new pane, every time; the server already running)
 *   held socket: `pane.run` then `pane.wait_for_output` on a socket the bench holds, in a new
 *           pane too (what bench/throughput.mjs times, but in a new pane): the CLI's share is
 *           the difference.
 *
 * `runs` rounds (3; `--quick` 1), each a new corral pane with `floods` floods and as many tmux
 * sessions, the sides alternating flood by flood. Reports each row's median with min–max, and
 * the ratio of medians to tmux.
 *
 *   node bench/user-flood.mjs [--mb 61] [--runs 3] [--floods 3] [--base DIR]
 *
 * `--base DIR`: another build (a worktree with `dist/` built), its own server, its CLI floods
 * interleaved with this build's in the same rounds: a same-run before/after on a shared machine.
 */
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BIN, CorralServer, TmuxServer, cpuSeconds, median, minOf, maxOf, round, timeSpawn } from './lib.mjs';
import { RpcClient } from './agent-lib.mjs';
import { generateBase64File } from './throughput.mjs';

export const description = "the user's flood: `corral pane run` + `pane wait-output --regex` in a new pane vs tmux new-session + wait-for (s)";

const q = (s) => `'${s.replaceAll("'", `'\\''`)}'`;

function tagOf() {
  return Math.random().toString(36).slice(2, 8);
}

/** median, min and max of a list, rounded. */
export function spread(values, digits = 2) {
  return { median: round(median(values), digits), min: round(minOf(values), digits), max: round(maxOf(values), digits) };
}

export const fmtSpread = (s, unit = '') => `${s.median}${unit} (${s.min}–${s.max})`;

/** A new corral pane, its shell's prompt shown; its id. */
export async function newPane(server) {
  const tab = await server.json(['tab', 'create', '--workspace', 'w1', '--no-focus']);
  const pane = tab.result.root_pane.pane_id;
  await server.cli(['pane', 'wait-output', pane, '--regex', '[$#]$', '--timeout', '15000']);
  return pane;
}

/** One flood through the CLI, as a script runs it; seconds and the server's CPU seconds. */
async function cliFlood(server, pane, file, k) {
  const mark = `MARK-${k}-${tagOf()}`;
  const corral = `${q(process.execPath)} ${q(server.bin ?? BIN)}`;
  const script = `${corral} pane run ${pane} ${q(`cat ${file}; echo ${mark}`)} && ${corral} pane wait-output ${pane} --regex ${q(`^${mark}`)} --timeout 600000 >/dev/null`;
  const cpu0 = cpuSeconds(server.pid);
  const r = await timeSpawn('sh', ['-c', script], { env: server.env, timeoutMs: 620_000 });
  if (r.code !== 0) throw new Error(`corral flood exited ${r.code}: ${r.stderr}`);
  return { seconds: r.ms / 1000, cpu: cpuSeconds(server.pid) - cpu0 };
}

/** One flood over a held socket (no CLI start), for the CLI's share. */
async function socketFlood(server, rpc, pane, file, k) {
  const mark = `MARK-${k}-${tagOf()}`;
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  await rpc.call('pane.run', { pane_id: pane, command: `cat ${file}; echo ${mark}` });
  await rpc.call('pane.wait_for_output', { pane_id: pane, match: { type: 'regex', value: `^${mark}` }, timeout_ms: 600_000 }, 605_000);
  return { seconds: (performance.now() - t0) / 1000, cpu: cpuSeconds(server.pid) - cpu0 };
}

/** One tmux flood as a script runs it: a new session running the cat, and wait-for. */
export async function tmuxFlood(tmux, tmuxPid, cols, rows, file, k) {
  const ch = `ch-${k}-${tagOf()}`;
  const t = `tmux -L ${tmux.socket} -f ${q(tmux.conf)}`;
  const script = `${t} new-session -d -s s${ch} -x ${cols} -y ${rows} ${q(`cat ${file}; echo MARK; tmux wait-for -S ${ch}; sleep 600`)} \\; wait-for ${ch}`;
  const cpu0 = cpuSeconds(tmuxPid);
  const r = await timeSpawn('sh', ['-c', script], { env: tmux.env, timeoutMs: 620_000 });
  if (r.code !== 0) throw new Error(`tmux flood exited ${r.code}: ${r.stderr}`);
  const result = { seconds: r.ms / 1000, cpu: cpuSeconds(tmuxPid) - cpu0 };
  await tmux.must(['kill-session', '-t', `s${ch}`]);
  return result;
}

export async function run({ quick = false, mb = null, runs: wantRuns = null, floods: wantFloods = null, base = null } = {}) {
  const megabytes = mb ?? (quick ? 5 : 61);
  const runs = wantRuns ?? (quick ? 1 : 3);
  const floods = wantFloods ?? (quick ? 2 : 3);
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-userflood-'));
  const server = new CorralServer();
  const baseServer = base ? new CorralServer({ bin: join(base, 'bin', 'corral.cjs') }) : null;
  const tmux = new TmuxServer();
  let rpc = null;
  try {
    const file = join(dir, 'base64.txt');
    const size = generateBase64File(file, megabytes * 1024 * 1024);
    readFileSync(file); // into the page cache before either side reads it
    await server.start();
    // The workspace a user has; its size is every new pane's size (no client attached).
    const first = await server.newWorkspacePane();
    if (baseServer) {
      await baseServer.start();
      await baseServer.newWorkspacePane();
    }
    const { cols, rows } = (await server.json(['pane', 'get', first])).result.pane;
    rpc = await RpcClient.open(server.socketPath);
    // A session that holds the tmux server up, as a user's does.
    await tmux.start(cols, rows);
    const tmuxPid = await tmux.pid();

    const cli = Array.from({ length: floods }, () => []);
    const baseCli = Array.from({ length: floods }, () => []);
    const held = Array.from({ length: floods }, () => []);
    const tm = [];
    const serverFirst = [];
    let baseFirst = null;
    for (let i = 0; i < runs; i++) {
      const pane = await newPane(server);
      const sock = await newPane(server);
      const basePane = baseServer ? await newPane(baseServer) : null;
      for (let k = 0; k < floods; k++) {
        const order = (i + k) % 2 === 0 ? ['cli', 'base', 'tmux', 'held'] : ['held', 'tmux', 'base', 'cli'];
        for (const side of order) {
          let r;
          if (side === 'base') {
            if (!baseServer) continue;
            baseCli[k].push((r = await cliFlood(baseServer, basePane, file, k)));
          } else if (side === 'cli') cli[k].push((r = await cliFlood(server, pane, file, k)));
          else if (side === 'held') held[k].push((r = await socketFlood(server, rpc, sock, file, k)));
          else tm.push((r = await tmuxFlood(tmux, tmuxPid, cols, rows, file, k)));
          if (i === 0 && k === 0 && (side === 'cli' || side === 'held') && serverFirst.length === 0) serverFirst.push({ side, ...r });
          if (i === 0 && k === 0 && side === 'base') baseFirst = r;
          process.stderr.write(`  user-flood run ${i + 1} flood ${k + 1} ${side}: ${r.seconds.toFixed(2)} s, server CPU ${r.cpu.toFixed(2)} s\n`);
        }
      }
    }
    const secs = (list) => list.map((r) => r.seconds);
    const t = spread(secs(tm));
    const later = (sets) => sets.slice(1).flat();
    const mbs = round(size / 1024 / 1024, 1);
    const row = (name, list, target) => {
      const s = spread(secs(list));
      const ratio = round(s.median / t.median);
      return { name, value: s.median, min: s.min, max: s.max, unit: 's', baseline: 'tmux new-session + wait-for', baselineValue: t.median, baselineMin: t.min, baselineMax: t.max, ratio, ...(target ? { target: `≤ ${target}×`, pass: ratio <= target } : {}) };
    };
    return [
      row(`user flood: cat ${mbs} MB base64 (120-col), CLI pane run + wait-output --regex, first flood in a new pane, ${cols}×${rows} (median of ${runs})`, cli[0], 1.0),
      row(`user flood: the same, floods 2–${floods} in that pane (median of ${runs * (floods - 1)})`, later(cli), 1.0),
      row(`user flood: held socket (pane.run + pane.wait_for_output), first flood in a new pane (median of ${runs})`, held[0]),
      row(`user flood: held socket, floods 2–${floods} (median of ${runs * (floods - 1)})`, later(held)),
      { name: `user flood: the server's first flood (${serverFirst[0]?.side})`, value: round(serverFirst[0]?.seconds ?? NaN), unit: 's', baseline: 'tmux median', baselineValue: t.median, ratio: round((serverFirst[0]?.seconds ?? NaN) / t.median) },
      ...(baseServer
        ? [
            row(`user flood: base build ${base}, CLI, first flood in a new pane (median of ${runs})`, baseCli[0]),
            row(`user flood: base build, CLI, floods 2–${floods} (median of ${runs * (floods - 1)})`, later(baseCli)),
            { name: "user flood: the base build's server's first flood (cli)", value: round(baseFirst.seconds), unit: 's', baseline: 'tmux median', baselineValue: t.median, ratio: round(baseFirst.seconds / t.median) },
          ]
        : []),
      { name: 'user flood: server CPU per flood (median, CLI)', value: round(median(cli.flat().map((r) => r.cpu))), unit: 'cpu-s', baseline: 'tmux', baselineValue: round(median(tm.map((r) => r.cpu))), ratio: round(median(cli.flat().map((r) => r.cpu)) / median(tm.map((r) => r.cpu))) },
    ];
  } finally {
    rpc?.close();
    await Promise.allSettled([server.stop(), tmux.stop(), baseServer?.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const opt = (name) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : null);
  const base = args.includes('--base') ? args[args.indexOf('--base') + 1] : null;
  const rows = await run({ quick: args.includes('--quick'), mb: opt('--mb'), runs: opt('--runs'), floods: opt('--floods'), base });
  for (const r of rows) process.stdout.write(`${r.name}: ${r.value} ${r.unit}${r.min !== undefined ? ` (${r.min}–${r.max})` : ''}; ${r.baseline} ${r.baselineValue}${r.baselineMin !== undefined ? ` (${r.baselineMin}–${r.baselineMax})` : ''}; ×${r.ratio}\n`);
}
