/**
 * Output throughput: `cat` a big text file (printable text, some SGR colours, some lines
 * longer than the pane so they wrap) in a 160×48 corral pane and in a 160×48 detached tmux
 * pane, and time until the end marker after it has been seen. Runs interleaved.
 *
 *   corral: t0 → `pane.run P "cat F; printf '%s-%s\n' DONE tag"` on a held socket
 *                → `pane.wait_for_output P DONE-tag` returns → t1 (see runCorral)
 *   tmux:   t0 → `tmux send-keys -t P "cat F; printf …; tmux wait-for -S ch" Enter`
 *                → `tmux wait-for ch` returns → t1 (then capture-pane checks the marker)
 *
 * The marker is assembled by printf so the echoed command line never matches it.
 * Also reports each server's own CPU time (utime+stime from /proc) spent per run.
 * Two workloads, each interleaved: the bench file (target, issue 15 §3: corral/tmux ≤ 0.9),
 * and plain ASCII in long lines, `head -c N /dev/urandom | base64 -w 120` (issue 32: ≤ 1.0×).
 *
 * Not the user's path (issue 45): no CLI, a substring wait, ten floods in one warm pane, and a
 * tmux side that pays send-keys and capture-pane polling (~18 % of tmux's time on 45 MB,
 * `npm run profile -- tmux-ways`). bench/user-flood.mjs times the flood as a script runs it.
 */
import { execFileSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorralServer, TmuxServer, corralPaneReady, cpuSeconds, median, round, sleep } from './lib.mjs';
import { RpcClient, runAndWait } from './agent-lib.mjs';

export const description = 'cat a big file in a 160×48 pane: corral vs tmux (seconds, server CPU)';

const COLS = 160;
const ROWS = 48;
const WORDS = [
  'lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do',
  'eiusmod', 'tempor', 'incididunt', 'ut', 'labore', 'et', 'dolore', 'magna', 'aliqua', 'const',
  'function', 'return', 'await', 'import', '{', '}', '=>', '[0x1f]', 'error:', 'warning:',
  'src/core/pane-io.ts:42:7', '✓', 'passed', 'failed', '(12 ms)', '#', '|', '--', '$HOME', '~/.config',
];
const SGR = ['\x1b[31m', '\x1b[32m', '\x1b[1;33m', '\x1b[34m', '\x1b[38;5;208m', '\x1b[38;2;120;200;80m', '\x1b[7m', '\x1b[4m'];

/** Writes ~`bytes` of deterministic, varied text to `path`. */
export async function generateFile(path, bytes) {
  let seed = 0x2545f491;
  const rand = (n) => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const out = createWriteStream(path);
  let written = 0;
  let lineNo = 0;
  while (written < bytes) {
    const parts = [];
    for (let chunkLines = 0; chunkLines < 2000; chunkLines++) {
      // Mostly short lines, some that wrap (up to ~2.5 rows), a few empty.
      const target = rand(10) === 0 ? 0 : rand(8) === 0 ? 160 + rand(240) : 10 + rand(140);
      let line = `${++lineNo}: `;
      while (line.length < target) {
        const word = WORDS[rand(WORDS.length)];
        line += rand(12) === 0 ? `${SGR[rand(SGR.length)]}${word}\x1b[0m ` : `${word} `;
      }
      parts.push(line + '\n');
    }
    const chunk = parts.join('');
    written += Buffer.byteLength(chunk);
    if (!out.write(chunk)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r, j) => out.end((e) => (e ? j(e) : r())));
  return statSync(path).size;
}

/** Writes ~`bytes` of base64 in 120-column lines (random bytes, so nothing repeats). */
export function generateBase64File(path, bytes) {
  execFileSync('bash', ['-c', `head -c ${Math.round((bytes * 3) / 4)} /dev/urandom | base64 -w 120 > '${path}'`]);
  return statSync(path).size;
}

function tag() {
  return Math.random().toString(36).slice(2, 10);
}

/**
 * One `cat` in corral, driven over a socket the bench holds (`rpc`, an RpcClient): as tmux's
 * side pays a C client's start (~2 ms), corral's pays no CLI start either — a Node CLI's
 * start is measured by `cli-startup`, and on a loaded machine it took 200–300 ms, twice per
 * run, which this figure is not about.
 */
export async function runCorral(server, pane, file, rpc) {
  const t = tag();
  const cpu0 = cpuSeconds(server.pid);
  const t0 = performance.now();
  await runAndWait(rpc, pane, `cat ${file}`, t, 600_000);
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, cpu: cpuSeconds(server.pid) - cpu0 };
}

export async function runTmux(tmux, tmuxPid, pane, file) {
  const t = tag();
  const cpu0 = cpuSeconds(tmuxPid);
  const t0 = performance.now();
  await tmux.must(['send-keys', '-t', pane, `cat ${file}; printf '%s-%s\\n' MARK ${t}; tmux wait-for -S ch-${t}`, 'Enter']);
  await tmux.must(['wait-for', `ch-${t}`], { timeoutMs: 620_000 });
  let seconds = (performance.now() - t0) / 1000;
  // The marker was written before the signal; confirm tmux has put it on the screen.
  for (let i = 0; ; i++) {
    const screen = (await tmux.must(['capture-pane', '-p', '-t', pane])).stdout;
    if (screen.includes(`MARK-${t}`)) break;
    if (i >= 500) throw new Error('tmux: marker never appeared');
    await sleep(20);
    seconds = (performance.now() - t0) / 1000;
  }
  return { seconds, cpu: cpuSeconds(tmuxPid) - cpu0 };
}

export async function run({ quick = false } = {}) {
  const megabytes = quick ? 5 : 45;
  const runs = quick ? 1 : 5;
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-data-'));
  const server = new CorralServer();
  const tmux = new TmuxServer();
  let rpc = null;
  try {
    const workloads = [
      { key: 'bench file', file: join(dir, 'flood.txt'), target: 0.9 },
      { key: 'base64, 120-column lines', file: join(dir, 'base64.txt'), target: 1.0 },
    ];
    workloads[0].size = await generateFile(workloads[0].file, megabytes * 1024 * 1024);
    workloads[1].size = generateBase64File(workloads[1].file, megabytes * 1024 * 1024);
    for (const w of workloads) readFileSync(w.file); // into the page cache before either side reads it

    await server.start();
    const pane = await server.newWorkspacePane();
    const info = await server.json(['pane', 'get', pane]);
    const { cols, rows } = info.result.pane;
    if (cols !== COLS || rows !== ROWS) throw new Error(`corral pane is ${cols}×${rows}, expected ${COLS}×${ROWS}`);
    await corralPaneReady(server, pane);
    rpc = await RpcClient.open(server.socketPath);

    const tpane = await tmux.start(COLS, ROWS);
    const tmuxPid = await tmux.pid();
    await tmux.must(['send-keys', '-t', tpane, 'tmux wait-for -S ready', 'Enter']);
    await tmux.must(['wait-for', 'ready'], { timeoutMs: 15_000 });

    const rows_ = [];
    for (const w of workloads) {
      const results = { corral: [], tmux: [] };
      for (let i = 0; i < runs; i++) {
        // Alternate which side goes first.
        const order = i % 2 === 0 ? ['corral', 'tmux'] : ['tmux', 'corral'];
        for (const side of order) {
          const r = side === 'corral' ? await runCorral(server, pane, w.file, rpc) : await runTmux(tmux, tmuxPid, tpane, w.file);
          results[side].push(r);
          process.stderr.write(`  throughput (${w.key}) ${side} run ${i + 1}: ${r.seconds.toFixed(2)} s, server CPU ${r.cpu.toFixed(2)} s\n`);
        }
      }
      const secs = (side) => median(results[side].map((r) => r.seconds));
      const cpu = (side) => median(results[side].map((r) => r.cpu));
      const mb = round(w.size / 1024 / 1024, 1);
      const c = secs('corral');
      const t = secs('tmux');
      const label = w === workloads[0] ? '' : ` (${w.key})`;
      rows_.push(
        { name: `throughput${label}: cat ${mb} MB, ${COLS}×${ROWS} pane (median of ${runs})`, value: round(c, 2), unit: 's', baseline: 'tmux', baselineValue: round(t, 2), ratio: round(c / t), target: `≤ ${w.target}×`, pass: c / t <= w.target },
        { name: `throughput${label}: MB/s`, value: round(mb / c, 1), unit: 'MB/s', baseline: 'tmux', baselineValue: round(mb / t, 1), ratio: round(t / c) },
        { name: `throughput${label}: server CPU per run`, value: round(cpu('corral'), 2), unit: 'cpu-s', baseline: 'tmux', baselineValue: round(cpu('tmux'), 2), ratio: round(cpu('corral') / cpu('tmux')) },
      );
    }
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))?.[1] ?? NaN);
    const tmuxRssKb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${tmuxPid}/status`, 'utf8'))?.[1] ?? NaN);
    return [
      ...rows_,
      { name: 'throughput: server RSS after', value: round(rssKb / 1024, 0), unit: 'MB', baseline: 'tmux', baselineValue: round(tmuxRssKb / 1024, 0), ratio: round(rssKb / tmuxRssKb, 1) },
    ];
  } finally {
    rpc?.close();
    await Promise.allSettled([server.stop(), tmux.stop()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
