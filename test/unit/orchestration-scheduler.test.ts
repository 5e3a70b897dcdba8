/**
 * The flow scheduler on a fake clock with a scripted runner: parallelism, needs ordering,
 * foreach instances, variables, fail_fast vs continue, timeouts (exit 4), Ctrl-C.
 */
import { describe, expect, it } from 'vitest';
import { parseFlowFile, type FlowStep } from '../../src/orchestration/flow-file.js';
import { runScheduler, type Clock, type StepHandle, type StepRunner, type StepState } from '../../src/orchestration/scheduler.js';
import { formatFlowReport, formatStepLine, ProgressView } from '../../src/orchestration/progress.js';

/** Timers run only when the test advances time; between timers, promises settle. */
class FakeClock implements Clock {
  private t = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;

  now(): number {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers = this.timers.filter((timer) => timer.id !== handle);
  }
  /** Runs every timer due up to now + ms, in time order, letting promises settle in between. */
  async advance(ms: number): Promise<void> {
    const end = this.t + ms;
    await settle();
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.t = next.at;
      next.fn();
      await settle();
    }
    this.t = end;
    await settle();
  }
}

async function settle(): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** How a scripted step behaves: ms to do its action, ms to become ready, or an error. */
interface Script {
  actMs?: number;
  readyMs?: number;
  failCode?: string;
  captured?: string;
}

/** A runner that follows scripts and records what happened when. */
class ScriptedRunner implements StepRunner {
  readonly log: string[] = [];
  readonly started = new Map<string, FlowStep>();

  constructor(
    private readonly clock: FakeClock,
    private readonly scripts: Record<string, Script>,
  ) {}

  private wait(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      const handle = this.clock.setTimeout(resolve, ms);
      signal.addEventListener('abort', () => {
        this.clock.clearTimeout(handle);
        reject(signal.reason);
      });
    });
  }

  async start(step: FlowStep, ctx: { signal: AbortSignal; setPane(id: string): void }): Promise<StepHandle> {
    const script = this.scripts[step.id] ?? {};
    this.started.set(step.id, step);
    this.log.push(`${this.clock.now()} start ${step.id}`);
    await this.wait(script.actMs ?? 0, ctx.signal);
    if (script.failCode && script.readyMs === undefined) throw Object.assign(new Error(`${step.id} broke`), { code: script.failCode });
    ctx.setPane(`w1:${step.id}`);
    return {
      paneId: `w1:${step.id}`,
      waitReady: async (signal) => {
        await this.wait(script.readyMs ?? 0, signal);
        if (script.failCode) throw Object.assign(new Error(`${step.id} broke while waiting`), { code: script.failCode });
        this.log.push(`${this.clock.now()} ready ${step.id}`);
      },
      capture: async (lines) => script.captured ?? `captured ${lines} lines of ${step.id}`,
    };
  }
}

const OPTS = { baseDir: '/p', shownPath: 'f.toml', home: '/h', isDirectory: () => true };

function setup(toml: string, scripts: Record<string, Script> = {}) {
  const clock = new FakeClock();
  const runner = new ScriptedRunner(clock, scripts);
  const plan = parseFlowFile(toml, OPTS);
  return { clock, runner, plan };
}

const flow = (...lines: string[]) => ['[defaults]', 'timeout_secs = 10', ...lines].join('\n') + '\n';
const step = (id: string, needs: string[] = [], extra: string[] = []) => [
  '[[step]]',
  `id = "${id}"`,
  `needs = [${needs.map((n) => `"${n}"`).join(', ')}]`,
  `pane = { command = "echo ${id}" }`,
  ...extra,
];

describe('scheduler', () => {
  it('runs independent steps in parallel and each as soon as its own needs are ready', async () => {
    const { clock, runner, plan } = setup(flow(...step('a'), ...step('b'), ...step('c', ['a']), ...step('d', ['a', 'b'])), {
      a: { actMs: 1000 },
      b: { actMs: 3000 },
      c: { actMs: 500 },
      d: { actMs: 100 },
    });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(10_000);
    const { report, exitCode } = await done;
    expect(runner.log).toEqual(['0 start a', '0 start b', '1000 start c', '3000 start d']);
    expect(exitCode).toBe(0);
    expect(report.status).toBe('ready');
    expect(report.steps.map((s) => [s.id, s.status, s.duration_ms, s.pane_id, s.error])).toEqual([
      ['a', 'ready', 1000, 'w1:a', null],
      ['b', 'ready', 3000, 'w1:b', null],
      ['c', 'ready', 500, 'w1:c', null],
      ['d', 'ready', 100, 'w1:d', null],
    ]);
  });

  it('a step with ready is ready only once its barrier holds', async () => {
    const { clock, runner, plan } = setup(flow(...step('a', [], ['ready = { idle = true }']), ...step('b', ['a'])), { a: { actMs: 100, readyMs: 2000 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(5000);
    await done;
    expect(runner.log).toEqual(['0 start a', '2100 ready a', '2100 start b']);
  });

  it('expands foreach: instances run in parallel, a step needing the base id waits for all', async () => {
    const toml = flow(
      '[[step]]',
      'id = "t"',
      'foreach = ["x", "y", "z"]',
      'pane = { command = "test ${item}" }',
      ...step('after', ['t']),
    );
    const { clock, runner, plan } = setup(toml, { 't[x]': { actMs: 300 }, 't[y]': { actMs: 900 }, 't[z]': { actMs: 600 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(2000);
    const { report } = await done;
    expect(runner.log).toEqual(['0 start t[x]', '0 start t[y]', '0 start t[z]', '900 start after']);
    expect(report.steps.map((s) => s.id)).toEqual(['t[x]', 't[y]', 't[z]', 'after']);
    const started = runner.started.get('t[y]')!;
    expect(started.action).toMatchObject({ pane: { command: 'test y' } });
  });

  it('fills captured variables into later prompts and texts', async () => {
    const toml = flow(
      ...step('a', [], ['ready = { pattern = "done" }', 'capture = { var = "out", lines = 7 }']),
      '[[step]]',
      'id = "b"',
      'needs = ["a"]',
      'send = { target = "w9:p9", text = "got: ${out} (not $${out})" }',
    );
    const { clock, runner, plan } = setup(toml, { a: { captured: 'line1\nline2' } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(100);
    await done;
    expect(runner.started.get('b')!.action).toMatchObject({ text: 'got: line1\nline2 (not ${out})' });
    const { runner: r2, clock: c2, plan: p2 } = setup(toml);
    const d2 = runScheduler({ plan: p2, runner: r2, clock: c2 });
    await c2.advance(100);
    await d2;
    expect(r2.started.get('b')!.action).toMatchObject({ text: 'got: captured 7 lines of a (not ${out})' });
  });

  it('fail_fast: a failure aborts running steps and skips the rest; exit 1', async () => {
    const toml = flow(...step('bad'), ...step('slow'), ...step('later', ['slow']));
    const { clock, runner, plan } = setup(toml, { bad: { actMs: 100, failCode: 'agent_pane_busy' }, slow: { actMs: 5000 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(10_000);
    const { report, exitCode } = await done;
    expect(exitCode).toBe(1);
    expect(report.status).toBe('failed');
    expect(report.steps.map((s) => [s.id, s.status, s.error?.code])).toEqual([
      ['bad', 'failed', 'agent_pane_busy'],
      ['slow', 'aborted', 'aborted'],
      ['later', 'skipped', 'aborted'],
    ]);
    expect(report.steps[1]!.duration_ms).toBe(100);
    expect(runner.log).not.toContain('5000 start later');
  });

  it('continue: independent steps go on, dependants of the failure are skipped', async () => {
    const toml = ['[defaults]', 'timeout_secs = 10', 'on_failure = "continue"', ...step('bad'), ...step('dep', ['bad']), ...step('other'), ...step('next', ['other'])].join('\n');
    const { clock, runner, plan } = setup(toml, { bad: { actMs: 100, failCode: 'internal_error' }, other: { actMs: 2000 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(10_000);
    const { report, exitCode } = await done;
    expect(report.steps.map((s) => [s.id, s.status])).toEqual([
      ['bad', 'failed'],
      ['dep', 'skipped'],
      ['other', 'ready'],
      ['next', 'ready'],
    ]);
    expect(report.steps[1]!.error).toEqual({ code: 'skipped', message: 'step "bad" did not become ready' });
    expect(report.status).toBe('failed');
    expect(exitCode).toBe(1);
  });

  it('a ready timeout fails the step with code timeout and the flow exits 4', async () => {
    const toml = flow(...step('w', [], ['ready = { pattern = "never", timeout_secs = 2.5 }']), ...step('after', ['w']));
    const { clock, runner, plan } = setup(toml, { w: { actMs: 500, readyMs: 60_000 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(4000);
    const { report, exitCode } = await done;
    expect(exitCode).toBe(4);
    expect(report.steps[0]).toMatchObject({ id: 'w', status: 'failed', duration_ms: 3000, error: { code: 'timeout' } });
    expect(report.steps[0]!.error!.message).toBe('step "w" was not ready (output matching /never/) within 2.5 s');
    expect(report.steps[1]!.status).toBe('skipped');
  });

  it('the timeout comes from [defaults] when the step has none', async () => {
    const toml = ['[defaults]', 'timeout_secs = 1', ...step('w', [], ['ready = { idle = true }'])].join('\n');
    const { clock, runner, plan } = setup(toml, { w: { readyMs: 5000 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(1500);
    expect((await done).exitCode).toBe(4);
  });

  it('exit 1, not 4, when the first failure was not a timeout', async () => {
    const toml = ['[defaults]', 'timeout_secs = 1', 'on_failure = "continue"', ...step('bad'), ...step('w', [], ['ready = { idle = true }'])].join('\n');
    const { clock, runner, plan } = setup(toml, { bad: { failCode: 'scripting_disabled' }, w: { actMs: 10, readyMs: 5000 } });
    const done = runScheduler({ plan, runner, clock });
    await clock.advance(3000);
    const { report, exitCode } = await done;
    expect(report.steps.map((s) => s.error?.code)).toEqual(['scripting_disabled', 'timeout']);
    expect(exitCode).toBe(1);
  });

  it('Ctrl-C aborts running steps, skips the rest, reports aborted (exit 1)', async () => {
    const toml = flow(...step('a', [], ['ready = { idle = true }']), ...step('b', ['a']));
    const { clock, runner, plan } = setup(toml, { a: { readyMs: 9000 } });
    const interrupt = new AbortController();
    const done = runScheduler({ plan, runner, clock, signal: interrupt.signal });
    await clock.advance(1000);
    interrupt.abort();
    const { report, exitCode } = await done;
    expect(report.status).toBe('aborted');
    expect(exitCode).toBe(1);
    expect(report.steps.map((s) => [s.id, s.status, s.pane_id])).toEqual([
      ['a', 'aborted', 'w1:a'],
      ['b', 'skipped', null],
    ]);
  });

  it('reports progress on every change', async () => {
    const { clock, runner, plan } = setup(flow(...step('a', [], ['ready = { idle = true }'])), { a: { readyMs: 100 } });
    const seen: string[] = [];
    const done = runScheduler({ plan, runner, clock, onChange: (states) => seen.push(states.map((s) => `${s.status}:${s.phase ?? ''}`).join()) });
    await clock.advance(500);
    await done;
    expect(seen[0]).toBe('running:starting');
    expect(seen).toContain('running:waiting for ready');
    expect(seen[seen.length - 1]).toBe('ready:');
  });
});

describe('progress output', () => {
  const state = (over: Partial<StepState>): StepState => ({ id: 'build', status: 'running', duration_ms: null, pane_id: 'w1:p1', error: null, startedAt: 0, phase: 'waiting for ready', ...over });

  it('formats a step line with elapsed time', () => {
    expect(formatStepLine(state({}), 6, 2500)).toBe('▸ build   running     2.5s  w1:p1   waiting for ready');
    expect(formatStepLine(state({ status: 'failed', duration_ms: 1000, error: { code: 'timeout', message: 'too slow' } }), 5, 9999)).toBe(
      '✗ build  failed      1.0s  w1:p1   too slow',
    );
  });

  it('writes plain lines per status change when not a terminal, and redraws in place on one', () => {
    let plain = '';
    const view = new ProgressView({ write: (t: string) => (plain += t), isTTY: false }, 'f', () => 0);
    view.update([state({})]);
    view.update([state({ phase: 'other' })]);
    view.update([state({ status: 'ready', duration_ms: 1200, phase: null })]);
    view.finish();
    expect(plain).toBe('flow f: step build running (w1:p1)\nflow f: step build ready (w1:p1) after 1.2s\n');
    let tty = '';
    const live = new ProgressView({ write: (t: string) => (tty += t), isTTY: true, columns: 100 }, 'f', () => 1000);
    live.update([state({}), state({ id: 'b2', status: 'pending', pane_id: null, startedAt: null, phase: null })]);
    live.update([state({})]);
    live.finish();
    expect(tty.startsWith('\r\x1b[2K▸ build')).toBe(true);
    expect(tty).toContain('\x1b[2A');
  });

  it('shows an error quoting a pane with its control characters made visible', () => {
    const error = { code: 'agent_pane_busy', message: 'not at a shell prompt (running: vi \x1b]52;c;eA==\x07\x9b2J)' };
    expect(formatStepLine(state({ status: 'failed', duration_ms: 1000, error }), 5, 0)).toContain('vi ^[]52;c;eA==^G\\x9b2J)');
    let plain = '';
    new ProgressView({ write: (t: string) => (plain += t), isTTY: false }, 'f', () => 0).update([state({ status: 'failed', duration_ms: 1000, error })]);
    expect(plain).not.toMatch(/[\x00-\x09\x0b-\x1f\x7f-\x9f]/);
  });

  it('formats the final report', () => {
    expect(
      formatFlowReport({ flow: 'f', status: 'failed', steps: [{ id: 'a', status: 'failed', duration_ms: 1500, pane_id: null, error: { code: 'x', message: 'boom' } }] }),
    ).toBe('flow "f": failed\n  a     failed      1.5s  -       boom\n');
  });
});
