/**
 * Idle CPU of the TUI: corral's attached client + its server vs tmux's server + attached
 * client, each in a 120×40 node-pty outer terminal, each holding 10 panes with bash idle at
 * its prompt: 4 visible panes in the focused tab/window, 3 in a second tab/window and 3 in a
 * second workspace (tmux: a third window). corral's panes are made with the CLI against the
 * session's server (`pane split`, `tab create`, `workspace create`), tmux's with
 * `split-window` / `new-window`. 2 s to settle, then utime+stime from /proc over the same
 * window (30 s, `--quick` 3 s), as % of one core. The outer terminal keeps draining output.
 * The window is 30 s because V8's memory reducer runs one full GC (~90 ms here) some 5–15 s
 * after start-up activity ends (gone with `--no-memory-reducer`); a 10 s window either caught
 * it (1.2 %) or not (0 %). Over 30 s it counts as what it is: a one-off, not idle load. Since
 * 2026-12-02 that is one or two full collections (the idle trim's and the reducer's single
 * one, ~40–60 ms each) and the first save of the new panes (docs/bench.md, "Idle and throughput").
 * A second window of the same length follows: the same client and server once that one-off
 * work is done, which is what they cost for as long as nothing happens (both rows are kept:
 * the first says what the one-offs cost, the second what idling costs).
 *
 * Target (issue): corral < 0.5 % of one core.
 */
import { CLK_TCK, round, sleep } from './lib.mjs';
import { CorralTui, TmuxTui, cpuOf } from './tui-lib.mjs';

export const description = 'TUI CPU with 10 idle panes: corral TUI vs tmux server+client (% of one core)';

const PANES = 10;

async function buildCorral(c) {
  const split = async (pane, direction, focus = false) =>
    (await c.json(['pane', 'split', pane, '--direction', direction, ...(focus ? [] : ['--no-focus'])])).result.pane.pane_id;
  const panes = ['w1:p1'];
  // Tab 1: four panes (2×2), all visible.
  const right = await split('w1:p1', 'right');
  panes.push(right, await split('w1:p1', 'down'), await split(right, 'down'));
  // Tab 2: three panes, hidden.
  const tab = await c.json(['tab', 'create', '--no-focus']);
  const t2 = tab.result.root_pane.pane_id;
  panes.push(t2, await split(t2, 'right'), await split(t2, 'down'));
  // Workspace 2: three panes, hidden.
  const ws = await c.json(['workspace', 'create', '--cwd', c.sandbox.home, '--no-focus']);
  const w2 = ws.result.root_pane.pane_id;
  panes.push(w2, await split(w2, 'right'), await split(w2, 'down'));
  for (const pane of panes) {
    const tag = Math.random().toString(36).slice(2, 8);
    await c.cli(['pane', 'run', pane, `printf '%s-%s\\n' READY ${tag}`]);
    await c.cli(['pane', 'wait-output', pane, '--match', `READY-${tag}`, '--timeout', '15000']);
  }
  const listed = (await c.json(['pane', 'list'])).result.panes.length;
  if (listed !== PANES) throw new Error(`corral has ${listed} panes, expected ${PANES}`);
}

async function buildTmux(t) {
  const id = async (args) => (await t.must([...args, '-P', '-F', '#{pane_id}'])).stdout.trim();
  const first = (await t.must(['display-message', '-p', '#{pane_id}'])).stdout.trim();
  const panes = [first];
  const right = await id(['split-window', '-d', '-h', '-t', first]);
  panes.push(right, await id(['split-window', '-d', '-v', '-t', first]), await id(['split-window', '-d', '-v', '-t', right]));
  for (let w = 0; w < 2; w++) {
    const root = await id(['new-window', '-d']);
    panes.push(root, await id(['split-window', '-d', '-h', '-t', root]), await id(['split-window', '-d', '-v', '-t', root]));
  }
  for (const [i, pane] of panes.entries()) {
    await t.must(['send-keys', '-t', pane, `tmux wait-for -S ready-${i}`, 'Enter']);
    await t.must(['wait-for', `ready-${i}`], { timeoutMs: 15_000 });
  }
  const listed = (await t.must(['list-panes', '-s', '-F', '#{pane_id}'])).stdout.trim().split('\n').length;
  if (listed !== PANES) throw new Error(`tmux has ${listed} panes, expected ${PANES}`);
}

export async function run({ quick = false } = {}) {
  const windowMs = quick ? 3000 : 30_000;
  const corral = new CorralTui({ cols: 120, rows: 40 });
  const tmux = new TmuxTui({ cols: 120, rows: 40 });
  try {
    await Promise.all([corral.ready(), tmux.ready()]);
    await buildCorral(corral);
    await buildTmux(tmux);
    await sleep(2000);
    const [tmuxClient, tmuxServer] = tmux.pids;
    const c0 = cpuOf(corral.pids);
    const s0 = cpuOf([tmuxServer]);
    const k0 = cpuOf([tmuxClient]);
    const bytes0 = [corral.term.bytes, tmux.term.bytes];
    const start = performance.now();
    await sleep(windowMs);
    const elapsed = (performance.now() - start) / 1000;
    const pct = (cpu) => (cpu / elapsed) * 100;
    const corralPct = pct(cpuOf(corral.pids) - c0);
    const serverPct = pct(cpuOf([tmuxServer]) - s0);
    const clientPct = pct(cpuOf([tmuxClient]) - k0);
    const tmuxPct = serverPct + clientPct;
    const resolution = (1 / CLK_TCK / elapsed) * 100;
    const written = [corral.term.bytes - bytes0[0], tmux.term.bytes - bytes0[1]];
    // The next window: what an idle client and server cost once the start-up's one-off work
    // (the first save of the new panes, the idle trim's collection, V8's memory reducer) is done.
    const c1 = cpuOf(corral.pids);
    const t1 = cpuOf(tmux.pids);
    const steadyStart = performance.now();
    await sleep(windowMs);
    const steadyElapsed = (performance.now() - steadyStart) / 1000;
    const steadyPct = ((cpuOf(corral.pids) - c1) / steadyElapsed) * 100;
    const steadyTmuxPct = ((cpuOf(tmux.pids) - t1) / steadyElapsed) * 100;
    process.stderr.write(`  idle, the next ${round(steadyElapsed, 0)} s: corral ${steadyPct.toFixed(2)}%, tmux ${steadyTmuxPct.toFixed(2)}%\n`);
    process.stderr.write(
      `  idle corral client+server ${corralPct.toFixed(2)}%, tmux server ${serverPct.toFixed(2)}% + client ${clientPct.toFixed(2)}%; ` +
        `bytes to the outer terminal while idle: corral ${written[0]}, tmux ${written[1]}\n`,
    );
    return [
      {
        name: `tui idle: CPU, ${PANES} idle panes, ${round(elapsed, 0)} s window (±${round(resolution, 2)}%)`,
        value: round(corralPct, 2),
        unit: '% core',
        baseline: 'tmux server+client',
        baselineValue: round(tmuxPct, 2),
        // tmux usually measures 0 ticks; a ratio against 0 means nothing.
        ratio: tmuxPct > 0 ? round(corralPct / tmuxPct) : null,
        target: '< 0.5%',
        pass: corralPct < 0.5,
      },
      {
        name: `tui idle: CPU, the next ${round(steadyElapsed, 0)} s (the start-up's one-off save and collections done)`,
        value: round(steadyPct, 2),
        unit: '% core',
        baseline: 'tmux server+client',
        baselineValue: round(steadyTmuxPct, 2),
        ratio: steadyTmuxPct > 0 ? round(steadyPct / steadyTmuxPct) : null,
        target: '< 0.5%',
        pass: steadyPct < 0.5,
      },
      {
        name: 'tui idle: bytes to the outer terminal in the window',
        value: written[0],
        unit: 'B',
        baseline: 'tmux',
        baselineValue: written[1],
      },
    ];
  } finally {
    await Promise.allSettled([corral.close(), tmux.close()]);
  }
}
