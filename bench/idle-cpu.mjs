/**
 * Idle CPU: a corral server and a tmux server, each holding 10 panes with idle bash shells
 * (10 workspaces / 10 windows, 160×48 each), settle 2 s, then both servers' own CPU time
 * (utime+stime from /proc/<pid>/stat) over the same window, as percent of one core.
 * Target (issue): corral < 1%.
 */
import { CLK_TCK, CorralServer, TmuxServer, corralPaneReady, cpuSeconds, round, sleep } from './lib.mjs';

export const description = 'server CPU with 10 idle shells: corral vs tmux (% of one core)';

const PANES = 10;

export async function run({ quick = false } = {}) {
  const windowMs = quick ? 3000 : 10_000;
  const server = new CorralServer();
  const tmux = new TmuxServer();
  try {
    await server.start();
    const panes = [];
    for (let i = 0; i < PANES; i++) panes.push(await server.newWorkspacePane());
    for (const pane of panes) await corralPaneReady(server, pane);

    const first = await tmux.start(160, 48);
    const tpanes = [first];
    for (let i = 1; i < PANES; i++) tpanes.push(await tmux.newWindowPane());
    for (const [i, pane] of tpanes.entries()) {
      await tmux.must(['send-keys', '-t', pane, `tmux wait-for -S ready-${i}`, 'Enter']);
      await tmux.must(['wait-for', `ready-${i}`], { timeoutMs: 15_000 });
    }
    const tmuxPid = await tmux.pid();

    await sleep(2000);
    const c0 = cpuSeconds(server.pid);
    const t0 = cpuSeconds(tmuxPid);
    const start = performance.now();
    await sleep(windowMs);
    const elapsed = (performance.now() - start) / 1000;
    const corralPct = ((cpuSeconds(server.pid) - c0) / elapsed) * 100;
    const tmuxPct = ((cpuSeconds(tmuxPid) - t0) / elapsed) * 100;
    const resolution = (1 / CLK_TCK / elapsed) * 100;
    return [
      {
        name: `idle: server CPU, ${PANES} idle shells, ${round(elapsed, 0)} s window (±${round(resolution, 2)}%)`,
        value: round(corralPct, 2),
        unit: '% core',
        baseline: 'tmux',
        baselineValue: round(tmuxPct, 2),
        // tmux usually measures 0 ticks; a ratio against 0 means nothing.
        ratio: tmuxPct > 0 ? round(corralPct / tmuxPct) : null,
        target: '< 1%',
        pass: corralPct < 1,
      },
    ];
  } finally {
    await Promise.allSettled([server.stop(), tmux.stop()]);
  }
}
