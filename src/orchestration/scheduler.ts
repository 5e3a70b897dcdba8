/**
 * Runs a validated flow plan: every step starts as soon as all of its `needs` are ready, so
 * independent steps run in parallel. The scheduler owns the ready timeouts, variables and
 * failure policy; what a step *does* (create a pane, send text, watch for ready, read a
 * capture) is the injected runner's business, and time comes from an injected clock — so the
 * whole policy is tested on a fake clock with a fake runner.
 */
import type { FlowPlan, FlowStep } from './flow-file.js';
import { fillTemplate } from './template.js';

export type StepStatus = 'pending' | 'running' | 'ready' | 'failed' | 'skipped' | 'aborted';
export type FlowStatus = 'ready' | 'failed' | 'aborted';

export interface StepError {
  code: string;
  message: string;
}

/** One step's row of the report. */
export interface StepReport {
  id: string;
  status: StepStatus;
  duration_ms: number | null;
  pane_id: string | null;
  error: StepError | null;
}

/** The `flow run --json` report (SPEC §10). */
export interface FlowReport {
  flow: string;
  status: FlowStatus;
  steps: StepReport[];
}

/** Live state of one step, for progress views. */
export interface StepState extends StepReport {
  startedAt: number | null;
  /** What a running step is doing now ("starting claude", "waiting for ready"). */
  phase: string | null;
}

/** What a runner gets to run one step. */
export interface StepContext {
  /** Aborted on timeout, fail_fast or Ctrl-C: stop waiting, leave panes as they are. */
  signal: AbortSignal;
  /** Reports the pane the step acts on as soon as it is known. */
  setPane(paneId: string): void;
  setPhase(phase: string): void;
}

/** A step whose action is done: how to wait for its ready barrier and read its capture. */
export interface StepHandle {
  paneId: string | null;
  /** Resolves once the step's `ready` conditions hold; rejects on error. Not called without `ready`. */
  waitReady(signal: AbortSignal): Promise<void>;
  /** The text the step's capture stores. Called after ready. */
  capture(lines: number, answer?: boolean): Promise<string>;
}

export interface StepRunner {
  /** Performs the step's action (prompt/text already have their variables filled). */
  start(step: FlowStep, ctx: StepContext): Promise<StepHandle>;
}

/** Time, injectable. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface SchedulerOptions {
  plan: FlowPlan;
  runner: StepRunner;
  clock?: Clock;
  /** Ctrl-C: stop orchestration (panes stay), report `aborted`. */
  signal?: AbortSignal;
  /** Called after every change of any step's state. */
  onChange?: (states: readonly StepState[]) => void;
}

function errorOf(error: unknown): StepError {
  if (error instanceof Error) {
    const code: unknown = Reflect.get(error, 'code');
    return { code: typeof code === 'string' ? code : 'internal_error', message: error.message };
  }
  return { code: 'internal_error', message: String(error) };
}

/** A promise that rejects when `signal` aborts, with the abort's reason. */
function abortPromise(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** Fills captured variables into the fields that take them (SPEC §10: prompt and text). */
export function withVariables(step: FlowStep, variables: Readonly<Record<string, string>>): FlowStep {
  if (step.action.kind === 'pane') {
    const { prompt } = step.action.pane;
    if (prompt === undefined) return step;
    return { ...step, action: { ...step.action, pane: { ...step.action.pane, prompt: fillTemplate(prompt, variables, true) } } };
  }
  return { ...step, action: { ...step.action, text: fillTemplate(step.action.text, variables, true) } };
}

/** The exit code for a report (SPEC §6, §10): 0 all ready, 4 when a timeout failed the flow, else 1. */
export function flowExitCode(report: FlowReport, firstFailure: StepError | null): number {
  if (report.status === 'ready') return 0;
  if (report.status === 'failed' && firstFailure?.code === 'timeout') return 4;
  return 1;
}

/** Runs the flow to its end; never rejects. */
export async function runScheduler(opts: SchedulerOptions): Promise<{ report: FlowReport; exitCode: number }> {
  const clock = opts.clock ?? SYSTEM_CLOCK;
  const { plan, runner } = opts;
  const states = new Map<string, StepState>(
    plan.steps.map((s) => [s.id, { id: s.id, status: 'pending', duration_ms: null, pane_id: null, error: null, startedAt: null, phase: null }]),
  );
  const controllers = new Map<string, AbortController>();
  const variables: Record<string, string> = {};
  let firstFailure: StepError | null = null;
  let stopped: 'failed' | 'aborted' | null = null;
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));

  const changed = () => opts.onChange?.([...states.values()]);
  const end = (state: StepState, status: StepStatus, error: StepError | null) => {
    state.status = status;
    state.error = error;
    state.phase = null;
    if (state.startedAt !== null) state.duration_ms = clock.now() - state.startedAt;
  };

  /** Stops everything still running or waiting (fail_fast, Ctrl-C). */
  const stopAll = (why: StepError) => {
    for (const [id, controller] of controllers) {
      const state = states.get(id)!;
      end(state, 'aborted', why);
      controller.abort(Object.assign(new Error(why.message), { code: why.code }));
    }
    controllers.clear();
    for (const state of states.values()) if (state.status === 'pending') end(state, 'skipped', why);
  };

  const settle = () => {
    // Steps whose needs can no longer be met are skipped, transitively.
    let progress = true;
    while (progress) {
      progress = false;
      for (const step of plan.steps) {
        const state = states.get(step.id)!;
        if (state.status !== 'pending') continue;
        const blocker = step.needs.find((n) => ['failed', 'skipped', 'aborted'].includes(states.get(n)!.status));
        if (blocker) {
          end(state, 'skipped', { code: 'skipped', message: `step "${blocker}" did not become ready` });
          progress = true;
        }
      }
    }
    if (stopped === null) {
      for (const step of plan.steps) {
        const state = states.get(step.id)!;
        if (state.status === 'pending' && step.needs.every((n) => states.get(n)!.status === 'ready')) launch(step, state);
      }
    }
    changed();
    if (controllers.size === 0) finish();
  };

  const launch = (step: FlowStep, state: StepState) => {
    const controller = new AbortController();
    controllers.set(step.id, controller);
    state.status = 'running';
    state.startedAt = clock.now();
    state.phase = 'starting';
    const ctx: StepContext = {
      signal: controller.signal,
      setPane: (paneId) => {
        state.pane_id = paneId;
        changed();
      },
      setPhase: (phase) => {
        if (state.status !== 'running') return;
        state.phase = phase;
        changed();
      },
    };
    void runStep(withVariables(step, variables), ctx, controller).then(
      (captured) => {
        if (controllers.get(step.id) !== controller) return;
        controllers.delete(step.id);
        if (step.capture && captured !== undefined) variables[step.capture.variable] = captured;
        end(state, 'ready', null);
        settle();
      },
      (error: unknown) => {
        if (controllers.get(step.id) !== controller) return;
        controllers.delete(step.id);
        const failure = errorOf(error);
        end(state, 'failed', failure);
        firstFailure ??= failure;
        if (plan.onFailure === 'fail_fast' && stopped === null) {
          stopped = 'failed';
          stopAll({ code: 'aborted', message: `stopped because step "${step.id}" failed (on_failure = fail_fast)` });
        }
        settle();
      },
    );
  };

  /** The action, then the ready barrier under its timeout, then the capture. */
  const runStep = async (step: FlowStep, ctx: StepContext, controller: AbortController): Promise<string | undefined> => {
    const aborted = abortPromise(controller.signal);
    aborted.catch(() => undefined);
    const handle = await Promise.race([runner.start(step, ctx), aborted]);
    if (handle.paneId) ctx.setPane(handle.paneId);
    if (!step.ready) return undefined;
    ctx.setPhase('waiting for ready');
    const ms = step.ready.timeoutSecs * 1000;
    const timer = clock.setTimeout(() => {
      const what = [step.ready!.pattern !== undefined ? `output matching /${step.ready!.pattern}/` : '', step.ready!.idle ? 'idle' : ''].filter(Boolean).join(' and ');
      controller.abort(Object.assign(new Error(`step "${step.id}" was not ready (${what}) within ${step.ready!.timeoutSecs} s`), { code: 'timeout' }));
    }, ms);
    try {
      await Promise.race([handle.waitReady(controller.signal), aborted]);
    } finally {
      clock.clearTimeout(timer);
    }
    if (!step.capture) return undefined;
    ctx.setPhase('capturing');
    return Promise.race([handle.capture(step.capture.lines, step.capture.answer ?? false), aborted]);
  };

  if (opts.signal) {
    const onAbort = () => {
      if (stopped === 'aborted') return;
      stopped = 'aborted';
      stopAll({ code: 'aborted', message: 'interrupted (Ctrl-C); the panes were left running' });
      settle();
    };
    if (opts.signal.aborted) onAbort();
    else opts.signal.addEventListener('abort', onAbort, { once: true });
  }
  settle();
  await finished;

  const steps: StepReport[] = plan.steps.map((s) => {
    const { id, status, duration_ms, pane_id, error } = states.get(s.id)!;
    return { id, status, duration_ms, pane_id, error };
  });
  const status: FlowStatus = stopped === 'aborted' ? 'aborted' : steps.every((s) => s.status === 'ready') ? 'ready' : 'failed';
  const report: FlowReport = { flow: plan.name, status, steps };
  return { report, exitCode: flowExitCode(report, firstFailure) };
}
