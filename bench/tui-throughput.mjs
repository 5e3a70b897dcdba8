/**
 * Output throughput with the pane visible: the ~45 MB file from bench/throughput.mjs
 * (`generateFile`) is `cat` in a pane shown by corral's TUI and by tmux attached, each in its
 * own 120×40 node-pty "outer terminal" that drains everything written to it.
 *
 *   t0 → type `cat F; printf '%s-%s\n' MARK tag` + Enter into the outer pty
 *      → `MARK-tag` appears in the outer terminal's output (escapes stripped) → t1
 *
 * The outer output is drained but not emulated during the run (a headless xterm in this
 * process would parse tmux's ~45 MB of forwarded output and become the bottleneck). After
 * each run the outer pty is resized by one row and back — both programs then redraw the
 * whole screen — and that redraw is fed to a fresh @xterm/headless to check the marker is on
 * the screen a person would see.
 *
 * Pane sizes are matched in width: corral's pane is 90×36 inside its frame (sidebar left);
 * tmux's window gets a 29-column idle pane on the left so the cat pane is 90×39.
 * Also reports the TUI process's CPU (corral) and tmux server + client CPU per run, and the
 * bytes each wrote to the outer terminal. Runs interleaved, 3 each (`--quick`: 5 MB, 1 run).
 *
 * Target (issue 12 §5): corral ≤ 1.0× tmux attached.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, round } from './lib.mjs';
import { generateFile } from './throughput.mjs';
import { CorralTui, TmuxTui, cpuOf, stripEscapes } from './tui-lib.mjs';

export const description = 'cat a big file in a visible pane: corral TUI vs tmux attached (seconds)';

const COLS = 120;
const ROWS = 40;

function tag() {
  return Math.random().toString(36).slice(2, 10);
}

export async function flood(side, file) {
  const t = tag();
  const marker = `MARK-${t}`;
  const term = side.term;
  const cpu0 = cpuOf(side.pids);
  const bytes0 = term.bytes;
  const reader0 = process.cpuUsage();
  const t0 = performance.now();
  term.write(`cat ${file}; printf '%s-%s\\n' MARK ${t}\r`);
  const t1 = await seeMarker(term, marker, `${side.name} ${marker}`);
  const seconds = (t1 - t0) / 1000;
  const reader = process.cpuUsage(reader0);
  const cpu = cpuOf(side.pids) - cpu0;
  const bytes = term.bytes - bytes0;
  // The outer screen a person would see: force a full redraw, emulate it, look for the marker.
  await term.settle(300, 30_000);
  term.resize(COLS, ROWS - 1);
  await term.settle(300);
  term.resetScreen();
  term.resize(COLS, ROWS);
  await term.waitForText(marker, 10_000);
  await term.settle(200);
  term.screen.dispose();
  term.screen = null;
  return { seconds, cpu, bytes, readerCpu: (reader.user + reader.system) / 1e6 };
}

/**
 * Resolves with the arrival time of the chunk that completes `marker` on the outer terminal.
 * Per chunk only a plain substring test (the marker is printed as one run of text by both
 * programs); every 100 ms the escape-stripped tail is checked as well, in case a redraw
 * split the marker with a cursor move. Cheap either way, so the reader stays out of the way.
 */
function seeMarker(term, marker, what, timeoutMs = 600_000) {
  return new Promise((resolve, reject) => {
    let carry = '';
    const done = (now) => {
      stop();
      clearInterval(poll);
      clearTimeout(timer);
      resolve(now);
    };
    const stop = term.listen((now, data) => {
      if (data === null) return;
      const hay = carry + data;
      carry = hay.slice(-marker.length);
      if (hay.includes(marker)) done(now);
    });
    const poll = setInterval(() => {
      if (stripEscapes(term.tail).includes(marker)) {
        process.stderr.write(`  (${what}: seen only with escapes stripped; time is to the 100 ms poll)\n`);
        done(performance.now());
      }
    }, 100);
    const timer = setTimeout(() => {
      stop();
      clearInterval(poll);
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
  });
}

export async function run({ quick = false } = {}) {
  const megabytes = quick ? 5 : 45;
  const runs = quick ? 1 : 3;
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-data-'));
  const corral = new CorralTui({ cols: COLS, rows: ROWS, screen: false });
  const tmux = new TmuxTui({ cols: COLS, rows: ROWS, screen: false });
  try {
    const file = join(dir, 'flood.txt');
    const size = await generateFile(file, megabytes * 1024 * 1024);
    readFileSync(file); // into the page cache before either side reads it

    await Promise.all([corral.ready(), tmux.ready()]);
    const pane = (await corral.json(['pane', 'get', 'w1:p1'])).result.pane;
    const first = (await tmux.must(['display-message', '-p', '#{pane_id}'])).stdout.trim();
    await tmux.must(['split-window', '-d', '-h', '-b', '-l', String(COLS - pane.cols - 1), '-t', first]);
    const tsize = (await tmux.must(['display-message', '-p', '-t', first, '#{pane_width}x#{pane_height}'])).stdout.trim();
    process.stderr.write(`  tui-throughput: corral pane ${pane.cols}x${pane.rows}, tmux pane ${tsize}\n`);
    await Promise.all([corral.term.settle(500), tmux.term.settle(500)]);

    const results = { corral: [], tmux: [] };
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? [corral, tmux] : [tmux, corral];
      for (const side of order) {
        const r = await flood(side, file);
        results[side.name].push(r);
        process.stderr.write(
          `  tui-throughput ${side.name} run ${i + 1}: ${r.seconds.toFixed(2)} s, CPU ${r.cpu.toFixed(2)} s, ` +
            `${(r.bytes / 1024 / 1024).toFixed(1)} MB to the outer terminal, reader CPU ${r.readerCpu.toFixed(2)} s\n`,
        );
      }
    }
    const med = (side, key) => median(results[side].map((r) => r[key]));
    const c = med('corral', 'seconds');
    const t = med('tmux', 'seconds');
    const mb = round(size / 1024 / 1024, 1);
    return [
      {
        name: `tui throughput: cat ${mb} MB, visible ${pane.cols}-col pane, ${COLS}×${ROWS} outer (median of ${runs})`,
        value: round(c, 2),
        unit: 's',
        baseline: 'tmux attached',
        baselineValue: round(t, 2),
        ratio: round(c / t),
        target: '≤ 1.0×',
        pass: c / t <= 1.0,
      },
      {
        name: 'tui throughput: CPU per run (corral TUI | tmux server+client)',
        value: round(med('corral', 'cpu'), 2),
        unit: 'cpu-s',
        baseline: 'tmux',
        baselineValue: round(med('tmux', 'cpu'), 2),
        ratio: round(med('corral', 'cpu') / med('tmux', 'cpu')),
      },
      {
        name: 'tui throughput: bytes to the outer terminal per run',
        value: round(med('corral', 'bytes') / 1024 / 1024, 1),
        unit: 'MB',
        baseline: 'tmux',
        baselineValue: round(med('tmux', 'bytes') / 1024 / 1024, 1),
        ratio: round(med('corral', 'bytes') / med('tmux', 'bytes')),
      },
    ];
  } finally {
    await Promise.allSettled([corral.close(), tmux.close()]);
    rmSync(dir, { recursive: true, force: true });
  }
}
