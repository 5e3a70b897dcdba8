/**
 * Server CPU with recognised agents sitting idle: one server holds 8 workspaces each running
 * the fake claude (started with `corral agent start`, so detected as kind claude and idle,
 * ready for input); a second server in the same run holds 8 workspaces of idle bash. Both
 * settle 2 s, then each server's own CPU (utime+stime, /proc/<pid>/stat) is taken over the
 * same window: 10 s (`--quick` 3 s), as % of one core.
 *
 * Also, for scale (no target): the same agent server while all 8 fakes show the working
 * screen with a spinner redraw every 120 ms (screen checks and throttled process checks run
 * then), and the fakes' own CPU while idle.
 *
 * Target (issue): < 2 % of one core with 8 idle agents.
 */
import { FakeControl, agentServer, isIdleStatus, startFakeAgent } from './agent-lib.mjs';
import { CLK_TCK, corralPaneReady, cpuSeconds, round, sleep } from './lib.mjs';

export const description = 'server CPU with 8 idle recognised agents vs 8 idle bash panes';

const AGENTS = 8;

function cpuOf(pids) {
  let total = 0;
  for (const pid of pids) {
    try {
      total += cpuSeconds(pid);
    } catch {
      // gone
    }
  }
  return total;
}

/** CPU % of one core for each pid list over the same window. */
async function measure(groups, windowMs) {
  const before = groups.map(cpuOf);
  const start = performance.now();
  await sleep(windowMs);
  const elapsed = (performance.now() - start) / 1000;
  return { elapsed, pct: groups.map((g, i) => ((cpuOf(g) - before[i]) / elapsed) * 100) };
}

export async function run({ quick = false } = {}) {
  const windowMs = quick ? 3000 : 10_000;
  const agents = agentServer();
  const shells = agentServer();
  const controls = [];
  try {
    await Promise.all([agents.start(), shells.start()]);
    const started = [];
    for (let i = 0; i < AGENTS; i++) started.push(await startFakeAgent(agents, `idle${i + 1}`, { spinnerMs: 120 }));
    for (let i = 0; i < AGENTS; i++) await corralPaneReady(shells, await shells.newWorkspacePane());

    const list = (await agents.json(['agent', 'list'])).result.agents;
    const idle = list.filter((a) => a.kind === 'claude' && isIdleStatus(a.agent_status));
    if (idle.length !== AGENTS) throw new Error(`expected ${AGENTS} idle claude agents, got ${JSON.stringify(list.map((a) => [a.name, a.kind, a.agent_status]))}`);
    const fakePids = list.map((a) => a.pid).filter(Boolean);

    await sleep(2000);
    const idleRun = await measure([[agents.pid], [shells.pid], fakePids], windowMs);
    const [agentPct, shellPct, fakePct] = idleRun.pct;

    // For scale: all 8 working (spinner redraws), then back to idle.
    for (const s of started) controls.push(await FakeControl.connectTo(s.control));
    for (const c of controls) await c.switchTo('working');
    await sleep(1000);
    const busyRun = await measure([[agents.pid]], windowMs);
    for (const c of controls) await c.switchTo('idle');

    const resolution = (1 / CLK_TCK / idleRun.elapsed) * 100;
    const win = `${round(idleRun.elapsed, 0)} s window, ±${round(resolution, 2)}%`;
    return [
      {
        name: `agent-cpu: server, ${AGENTS} idle claude agents (${win})`,
        value: round(agentPct, 2),
        unit: '% core',
        baseline: `${AGENTS} idle bash`,
        baselineValue: round(shellPct, 2),
        ratio: shellPct > 0 ? round(agentPct / shellPct) : null,
        target: '< 2%',
        pass: agentPct < 2,
      },
      { name: `agent-cpu: the ${AGENTS} fake claude processes themselves, idle`, value: round(fakePct, 2), unit: '% core' },
      { name: `agent-cpu: server, ${AGENTS} working agents (spinner every 120 ms)`, value: round(busyRun.pct[0], 2), unit: '% core' },
    ];
  } finally {
    for (const c of controls) c.close();
    await Promise.allSettled([agents.stop(), shells.stop()]);
  }
}
