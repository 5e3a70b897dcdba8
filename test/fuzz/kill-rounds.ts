/**
 * Crash consistency of the saved session (issue 42, SPEC §13): a real server is made busy — a
 * pane flooding, panes made and closed, `session.save` in flight — and killed with SIGKILL at
 * a random moment; the next start must restore a complete earlier state: exactly the panes
 * (ids, surface ids, cwds) of some moment the fuzzer made, never a corrupt file moved aside,
 * never empty once a save was reported, and its log must say what it restored. Used by
 * test/integration/kill-restore.test.ts (a few seeded rounds) and by the soak (bench/soak.mjs).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { RawClient, TestServer } from '../integration/harness.js';

export interface KillRound {
  round: number;
  /** The moment the start restored (index into the moments made), or -1 for an empty start. */
  restored: number;
  panes: number;
  killAfterMs: number;
  /**
   * How long before the kill the restored structure stopped being the session's (0: it was
   * the structure at the kill), or null for an empty start. SPEC §13: at most 1 s.
   */
  staleMs: number | null;
  failures: string[];
}

/** One pane as the saved session keeps it. */
interface PaneFacts {
  pane_id: string;
  surface_id: number;
  cwd: string;
}

type Moment = PaneFacts[];

function key(moment: Moment): string {
  return JSON.stringify([...moment].sort((a, b) => a.surface_id - b.surface_id).map((p) => [p.pane_id, p.surface_id, p.cwd]));
}

async function panesOf(client: RawClient): Promise<Moment> {
  const { panes } = await client.call('pane.list', {});
  return (panes as PaneFacts[]).map((p) => ({ pane_id: p.pane_id, surface_id: p.surface_id, cwd: p.cwd }));
}

/** A plan of what the round does before the kill: how long it churns, what it does in order. */
const roundPlan = fc.record({
  killAfterMs: fc.integer({ min: 150, max: 1500 }),
  steps: fc.array(fc.constantFrom('create', 'split', 'close', 'save', 'flood'), { minLength: 20, maxLength: 40 }),
});

/**
 * Runs `rounds` kill-and-restart rounds on `server` (started or not; stopped with SIGKILL at
 * the end of each round, its sandbox kept). `server` should save scrollback often
 * (CORRAL_PERSIST_SCROLLBACK_MS) so saves are under way when the kill comes.
 */
export async function killRounds(server: TestServer, options: { seed: number; rounds: number; log?: (line: string) => void }): Promise<KillRound[]> {
  const plans = fc.sample(roundPlan, { seed: options.seed, numRuns: options.rounds });
  const results: KillRound[] = [];
  /** Every moment the structure was in, as this test made it: what a restore may come back to. */
  const moments = new Map<string, number>();
  let everSaved = false;
  const dirs = ['a', 'b', 'c'].map((d) => join(server.home, 'work', d));
  for (const dir of dirs) mkdirSync(dir, { recursive: true });
  /** The round before this start: when it was killed, and when each of its moments ended. */
  let last: { result: KillRound; killedAt: number; current: string; endedAt: Map<string, number> } | null = null;

  /**
   * Starts the server and checks what it restored after the kill that ended `last`; what is
   * wrong goes to `failures` (that round's, or the first round's for the very first start).
   */
  const checkStart = async (round: number, failures: string[]): Promise<void> => {
    const from = server.stderr.length;
    if (!server.alive) await server.start();
    const log = server.stderr.slice(from);
    const client = await server.connect();
    const restored = await panesOf(client);
    const info = await client.call('session.info', {});
    client.close();
    const restoredKey = key(restored);
    const at = restored.length === 0 ? -1 : (moments.get(restoredKey) ?? -2);
    if (at === -2) failures.push(`start ${round}: restored panes ${restoredKey} were never a state of the session`);
    if (restored.length === 0 && everSaved) failures.push(`start ${round}: started empty after a save was reported`);
    if (info.problems.length > 0) failures.push(`start ${round}: problems at start: ${info.problems.join('; ')}`);
    if (restored.length > 0 && !/restored the session from/.test(log)) failures.push(`start ${round}: the log does not say it restored: ${log.slice(-500)}`);
    if (/could not be restored|moved to/.test(log)) failures.push(`start ${round}: the saved session was refused: ${log.slice(-500)}`);
    if (!last) return;
    const ended = last.endedAt.get(restoredKey);
    last.result.restored = at;
    last.result.panes = restored.length;
    last.result.staleMs = restored.length === 0 ? null : restoredKey === last.current ? 0 : ended !== undefined ? Math.round(last.killedAt - ended) : Number.POSITIVE_INFINITY;
    const r = last.result;
    options.log?.(`round ${r.round}: killed after ${r.killAfterMs} ms; the next start restored ${r.panes} panes (moment ${r.restored}), ${r.staleMs} ms behind the kill${r.failures.length ? `: ${r.failures.join('; ')}` : ''}`);
  };

  for (const [round, plan] of plans.entries()) {
    const failures: string[] = [];
    await checkStart(round, last?.result.failures ?? failures);
    const client = await server.connect();
    // Churn until the kill.
    const events = await server.connect();
    await events.call('events.subscribe', { types: ['session.saved'] });
    let saves = 0;
    /** When each moment (by key) last stopped being the structure, within this round. */
    const endedAt = new Map<string, number>();
    let current = '';
    const record = async () => {
      const now = key(await panesOf(client));
      if (!moments.has(now)) moments.set(now, moments.size);
      if (current !== now && current !== '') endedAt.set(current, performance.now());
      endedAt.delete(now);
      current = now;
    };
    await record();
    let dead = false;
    let killedAt = 0;
    const killed = new Promise<void>((resolve) => {
      setTimeout(() => {
        dead = true;
        killedAt = performance.now();
        void server.halt('SIGKILL').then(() => resolve());
      }, plan.killAfterMs);
    });
    const counting = (async () => {
      while (!dead) {
        try {
          await events.next((m) => m.method === 'events.event' && m.params?.type === 'session.saved', 60_000);
          saves++;
        } catch {
          return;
        }
      }
    })();
    try {
      for (const [i, step] of plan.steps.entries()) {
        if (dead) break;
        const panes = await panesOf(client);
        const some = panes[i % Math.max(1, panes.length)];
        const dir = dirs[i % dirs.length]!;
        if (step === 'create' || (panes.length === 0 && step !== 'save')) await client.call('workspace.create', { cwd: dir, focus: false });
        else if (step === 'split' && some && panes.length < 8) await client.call('pane.split', { pane_id: some.pane_id, cwd: dir });
        else if (step === 'close' && some && panes.length > 1) await client.call('pane.close', { pane_id: some.pane_id });
        else if (step === 'save') client.request('session.save', {}).catch(() => {});
        else if (step === 'flood' && some) await client.call('pane.run', { pane_id: some.pane_id, command: 'seq 1 200000' });
        await record();
      }
    } catch (error) {
      // The kill cut a call short: expected once it came.
      if (!dead) failures.push(`round ${round}: ${(error as Error).message}`);
    }
    await killed;
    await counting;
    client.close();
    events.close();
    if (saves > 0) everSaved = true;
    const result: KillRound = { round, restored: -1, panes: 0, killAfterMs: plan.killAfterMs, staleMs: null, failures };
    results.push(result);
    last = { result, killedAt, current, endedAt };
  }
  // The start after the last kill.
  await checkStart(plans.length, last?.result.failures ?? []);
  return results;
}
