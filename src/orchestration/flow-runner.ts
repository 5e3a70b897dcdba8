/**
 * What flow steps do, client-side over the RPC API (SPEC §10):
 *
 * - `pane` steps add a pane to the flow's one workspace through `workspace.up` (the first
 *   creates the workspace, named after the flow; each later one joins it and the layout preset
 *   is applied again over all of them), then start the agent with `agent.start`, which types
 *   the prompt (its `prompt` param) through the same `typePrompt` as `up` and `agent prompt`:
 *   checked to have landed, typed again if the agent dropped it.
 * - `send` steps go through `surface.send_text`; `submit = true` needs the scripting gate.
 * - ready barriers use `corral wait`'s logic (src/wait/wait-logic.ts): a pattern must match output
 *   that appeared after the step started; idle means an agent is idle/done (after a submit:
 *   once it changed state since), or a pane without an agent has been quiet for a second.
 * - a capture is the last N lines of the pane's `recent` text, or with `answer` what its agent
 *   answered in its last turn (`agent.read` with `answer`; see docs/orchestration.md).
 */
import { CorralError, type SurfaceReadResult } from '../contract/protocol.js';
import {
  applyStatus,
  baselineOf,
  compilePattern,
  isPaneIdle,
  matchingLines,
  newLinesSince,
  WAIT,
  type LineBaseline,
  type PaneProgress,
  type RpcCaller,
} from '../wait/wait-logic.js';
import type { FlowPlan, FlowStep } from './flow-file.js';
import type { StepContext, StepHandle, StepRunner } from './scheduler.js';
import { UP_TIMING } from './up-file.js';

export interface RunnerOptions {
  /** Poll interval of ready barriers (SPEC §9: 500 ms). */
  pollMs?: number;
  /** Quiet time that makes a pane without an agent idle (SPEC §9 default: 1000 ms). */
  quietMs?: number;
  now?: () => number;
}

/** Trailing spaces of each row and trailing blank rows are screen padding, not output. */
export function tidyCapture(text: string): string {
  const lines = text.split('\n').map((line) => line.replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines.join('\n');
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Runs steps against a server through one RPC connection. */
export class RpcStepRunner implements StepRunner {
  private workspaceId: string | null = null;
  /** Pane creation is serialised: the first creates the workspace the others join. */
  private creating: Promise<unknown> = Promise.resolve();
  private readonly paneOfStep = new Map<string, { paneId: string; surfaceId: number }>();
  private readonly pollMs: number;
  private readonly quietMs: number;
  private readonly now: () => number;
  /** The flow's shared budget (SPEC §18), named for this run: its agents join it as the flow reaches them. */
  private readonly budget: { name: string; tokens: number } | null;

  constructor(
    private readonly client: Pick<RpcCaller, 'call'>,
    private readonly plan: Pick<FlowPlan, 'name' | 'layout' | 'budgetTokens'>,
    opts: RunnerOptions = {},
  ) {
    this.budget = plan.budgetTokens === undefined ? null : { name: `flow:${plan.name}:${process.pid}:${Date.now()}`, tokens: plan.budgetTokens };
    this.pollMs = opts.pollMs ?? WAIT.pollMs;
    this.quietMs = opts.quietMs ?? WAIT.defaultQuietMs;
    this.now = opts.now ?? Date.now;
  }

  /** The flow's workspace, once its first pane exists. */
  get workspace(): string | null {
    return this.workspaceId;
  }

  async start(step: FlowStep, ctx: StepContext): Promise<StepHandle> {
    return step.action.kind === 'pane' ? this.startPane(step, ctx) : this.startSend(step, ctx);
  }

  private async startPane(step: FlowStep, ctx: StepContext): Promise<StepHandle> {
    if (step.action.kind !== 'pane') throw new Error('not a pane step');
    const { agent, prompt, max_tokens: maxTokens, ...structure } = step.action.pane;
    const started = this.now();
    const created = this.creating.then(() =>
      this.client.call('workspace.up', {
        name: this.plan.name,
        layout: this.plan.layout,
        ...(this.workspaceId ? { workspace: this.workspaceId } : {}),
        panes: [structure],
      }),
    );
    this.creating = created.catch(() => undefined);
    const result = await created;
    this.workspaceId ??= result.workspace.workspace_id;
    const pane = result.panes[0]!;
    this.paneOfStep.set(step.id, { paneId: pane.pane_id, surfaceId: pane.surface_id });
    ctx.setPane(pane.pane_id);
    if (agent !== undefined) {
      ctx.setPhase(prompt ? `starting ${agent}, then typing the prompt` : `starting ${agent}`);
      await this.client.call('agent.start', {
        pane_id: pane.pane_id,
        kind: agent,
        timeout_ms: UP_TIMING.agentStartTimeoutMs,
        ...(prompt ? { prompt } : {}),
        ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
        ...(this.budget ? { shared_budget: this.budget } : {}),
      });
    }
    // A new pane: all of its output is new, and nothing was submitted to its agent.
    return this.readyHandle(step, pane.surface_id, pane.pane_id, { endLine: 0, texts: new Map() }, null, started);
  }

  private async startSend(step: FlowStep, ctx: StepContext): Promise<StepHandle> {
    if (step.action.kind !== 'send') throw new Error('not a send step');
    const { targetStep, target, text, submit, maxTokens } = step.action;
    const started = this.now();
    const known = targetStep ? this.paneOfStep.get(targetStep) : undefined;
    const status = await this.client.call('surface.status', { target: known ? String(known.surfaceId) : target });
    ctx.setPane(status.pane_id);
    const baseline = step.ready?.pattern !== undefined ? baselineOf(await this.readTail(status.surface_id)) : { endLine: 0, texts: new Map() };
    const seq = submit && status.tool !== null ? await this.agentSeq(status.pane_id) : null;
    ctx.setPhase(submit ? 'sending' : 'typing');
    // An agent the flow drives spends from the flow's budget (SPEC §18).
    if (this.budget && status.tool !== null) await this.client.call('agent.budget', { target: status.pane_id, tokens: this.budget.tokens, shared: this.budget.name });
    if (submit && maxTokens !== undefined && status.tool !== null) await this.client.call('agent.prompt', { target: status.pane_id, text, max_tokens: maxTokens });
    else await this.client.call('surface.send_text', { target: String(status.surface_id), text, submit });
    return this.readyHandle(step, status.surface_id, status.pane_id, baseline, seq, started);
  }

  private readTail(surfaceId: number): Promise<SurfaceReadResult> {
    return this.client.call('surface.read', { target: String(surfaceId), lines: WAIT.scanLines, raw: true });
  }

  /** Fails the step `budget_exceeded` when the pane's agent crossed a budget since the step began (SPEC §18). */
  private async checkBudget(paneId: string, since: number): Promise<void> {
    let exceeded;
    try {
      exceeded = (await this.client.call('agent.get', { target: paneId })).agent.budget_exceeded;
    } catch {
      return;
    }
    if (exceeded && exceeded.at >= since) {
      throw new CorralError('budget_exceeded', `the agent in ${paneId} crossed its ${exceeded.scope} budget (${exceeded.used} of ${exceeded.limit} tokens) and was interrupted`, { limit: exceeded.limit, used: exceeded.used, scope: exceeded.scope, pane_id: paneId });
    }
  }

  /** The agent's state_change_seq, null when the pane has no agent. */
  private async agentSeq(paneId: string): Promise<number | null> {
    try {
      return (await this.client.call('agent.get', { target: paneId })).agent.state_change_seq;
    } catch {
      return null;
    }
  }

  /**
   * The ready barrier and capture of a step acting on one pane. `submittedAtSeq` is the
   * agent's state_change_seq before a submit: idle then means idle *after* a change of state
   * (the turn ran), not the idle it was in when the text arrived.
   */
  private readyHandle(step: FlowStep, surfaceId: number, paneId: string, baseline: LineBaseline, submittedAtSeq: number | null, started: number): StepHandle {
    const pattern = step.ready?.pattern !== undefined ? compilePattern(step.ready.pattern) : undefined;
    const budgeted = (step.action.kind === 'send' ? step.action.maxTokens : step.action.pane.max_tokens) !== undefined;
    const idle = step.ready?.idle ?? false;
    const target = String(surfaceId);
    return {
      paneId,
      waitReady: async (signal) => {
        const progress: PaneProgress = { surfaceId, paneId, tool: null, agentStatus: null, outputGeneration: -1, lastOutputAt: this.now() };
        let first = true;
        for (;;) {
          if (pattern && progress.matched === undefined) {
            const lines = matchingLines(newLinesSince(baseline, await this.readTail(surfaceId)), pattern);
            if (lines.length > 0) progress.matched = lines;
          }
          let idleNow = true;
          if (this.budget || budgeted) await this.checkBudget(paneId, started);
          if (idle) {
            const status = await this.client.call('surface.status', { target });
            const before = this.now();
            applyStatus(progress, status, before);
            // The first poll only records where output stands; quiet is counted from the step's start.
            if (first) progress.lastOutputAt = before;
            idleNow = isPaneIdle(progress, before, this.quietMs);
            if (idleNow && submittedAtSeq !== null && progress.tool !== null) {
              const seq = await this.agentSeq(paneId);
              idleNow = seq !== null && seq > submittedAtSeq;
            }
          }
          first = false;
          if ((!pattern || progress.matched !== undefined) && idleNow) return;
          await sleep(this.pollMs, signal);
        }
      },
      capture: async (lines, answer = false) => {
        const status = await this.client.call('surface.status', { target });
        // What the agent answered, without its UI (issue 29): plain text, no tidying needed.
        if (answer) {
          if (status.tool === null) throw new CorralError('agent_not_found', `capture with answer = true needs an agent, and pane ${paneId} runs none`, { pane_id: paneId });
          return (await this.client.call('agent.read', { target: paneId, answer: true })).read.text;
        }
        // agent.read gathers a full-screen agent's transcript beyond the screen; pane.read is the rest.
        const read =
          status.tool !== null
            ? await this.client.call('agent.read', { target: paneId, source: 'recent', lines })
            : await this.client.call('pane.read', { pane_id: paneId, source: 'recent', lines });
        return tidyCapture(read.read.text);
      },
    };
  }
}
