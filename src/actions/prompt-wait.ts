/**
 * `agent prompt --wait` after the submission (SPEC §5): first activity, then a settled status.
 *
 * Activity is what a person would call the agent reacting: a rule saw it working or blocked,
 * or its screen shows a row that was not there before the prompt was typed and is not the
 * prompt (src/agents/prompt-probe.ts `answeredOnScreen`) — an answer streaming, a new view —
 * within `promptActivityWindowMs`; else `agent_prompt_stalled`. A turn only the screen showed
 * may never look busy to any rule (an answer drawn between two checks, an agent with no busy
 * idiom): once that screen has been quiet `quickTurnQuietMs` with an answer on it, the
 * registry records the turn — working, then done — and the wait settles on it.
 */
import { CorralError, eventSurfaceId, type AgentInfo, type AgentStatus } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { agentView } from '../core/views.js';
import { answeredOnScreen } from '../agents/prompt-probe.js';
import { waitUntil } from '../wait/wait-until.js';
import { statusMatches, waitForAgent } from './agent-wait.js';

export const PROMPT_WAIT = {
  /** After submitting, activity must show within this long (SPEC §5). */
  promptActivityWindowMs: 5000,
  /**
   * A turn seen only on the screen is over once the screen has been this quiet: long enough
   * that an agent still waiting for its model's first token (a static screen for seconds under
   * load: OpenCode took 3–5 s from Enter to its first busy frame at load 12) is not taken for
   * done, since a wrong `done` is worse than a late one.
   */
  quickTurnQuietMs: 8000,
} as const;

/** What the wait knows of the submission. */
export interface Submission {
  /** `state_change_seq` before the prompt was typed. */
  baseline: number;
  /** The rows detection read before the prompt was typed, and the prompt. */
  screenBefore: readonly string[];
  text: string;
}

function rows(core: CorralCore, pane: PaneRecord): string[] {
  return core.host(pane).terminal.read({ source: 'detection' }).text.split('\n');
}

/** After a submission: the agent started work (or already finished a turn) since `baseline`. */
export function showedActivity(agent: AgentInfo, baseline: number): boolean {
  if (agent.state_change_seq <= baseline) return false;
  const busy = agent.agent_status === 'working' || agent.agent_status === 'blocked' || agent.agent_status === 'stalled';
  return busy || (agent.completion_seq !== undefined && agent.completion_seq > baseline);
}

/**
 * Resolves `status` once a rule saw the turn, `screen` once only the screen shows it; rejects
 * with `agent_prompt_stalled` at the window's end, or `timeout` at the caller's earlier deadline.
 */
export function waitForActivity(
  core: CorralCore,
  pane: PaneRecord,
  submitted: Submission,
  opts: { deadline: number | undefined; timeoutMs: number | undefined; signal: AbortSignal | undefined },
): Promise<'status' | 'screen'> {
  const windowEnd = Date.now() + PROMPT_WAIT.promptActivityWindowMs;
  const stalledFirst = opts.deadline === undefined || windowEnd < opts.deadline;
  const host = core.host(pane);
  return waitUntil<'status' | 'screen'>(
    {
      deadline: stalledFirst ? windowEnd : opts.deadline,
      signal: opts.signal,
      onTimeout: () =>
        stalledFirst
          ? new CorralError('agent_prompt_stalled', `the agent in ${pane.id} showed no activity within ${PROMPT_WAIT.promptActivityWindowMs} ms of the prompt (it may still have received it; read it before resubmitting)`)
          : new CorralError('timeout', `timed out after ${opts.timeoutMs} ms`),
      subscribe: (recheck) => {
        const output = host.onOutput(() => recheck());
        const events = core.listen((event) => {
          if (eventSurfaceId(event) === pane.surfaceId && event.type === 'agent.status_changed') recheck();
        });
        return () => {
          output.dispose();
          events.dispose();
        };
      },
    },
    () => {
      const current = core.paneBySurface(pane.surfaceId) ?? pane;
      if (core.agents.agentIn(current) && showedActivity(agentView(core, current), submitted.baseline)) return 'status';
      return answeredOnScreen(submitted.screenBefore, rows(core, current), submitted.text) ? 'screen' : undefined;
    },
  );
}

/**
 * Waits for a status in `until` past the submission. With `screenOnly` (activity was seen on
 * the screen alone), a screen quiet `quickTurnQuietMs` with an answer on it, while no rule has
 * seen the turn, is recorded as the turn.
 */
export async function waitForSettled(
  core: CorralCore,
  pane: PaneRecord,
  submitted: Submission,
  opts: { until: readonly AgentStatus[]; screenOnly: boolean; deadline: number | undefined; timeoutMs: number | undefined; signal: AbortSignal | undefined; budgetSince?: number },
): Promise<AgentInfo> {
  const stopWatching = opts.screenOnly ? watchForQuickTurn(core, pane, submitted) : () => {};
  try {
    return await waitForAgent(core, pane, {
      until: (a) => statusMatches(a, opts.until, submitted.baseline),
      deadline: opts.deadline,
      budgetSince: opts.budgetSince,
      signal: opts.signal,
      onDeadline: () => new CorralError('timeout', `the agent in ${pane.id} did not reach ${opts.until.join('|')} within ${opts.timeoutMs} ms`),
    });
  } finally {
    stopWatching();
  }
}

/** Records the quick turn once the screen has been quiet long enough with an answer on it; returns the stop. */
function watchForQuickTurn(core: CorralCore, pane: PaneRecord, submitted: Submission): () => void {
  const host = core.host(pane);
  let timer: NodeJS.Timeout | undefined;
  const look = (): void => {
    const current = core.paneBySurface(pane.surfaceId) ?? pane;
    if (!core.agents.agentIn(current)) return;
    // A rule saw the turn after all: its own idle settles it.
    if (showedActivity(agentView(core, current), submitted.baseline)) return;
    if (answeredOnScreen(submitted.screenBefore, rows(core, current), submitted.text)) core.agents.noteQuickTurn(current);
  };
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(look, PROMPT_WAIT.quickTurnQuietMs);
  };
  const output = host.onOutput(arm);
  arm();
  return () => {
    clearTimeout(timer);
    output.dispose();
  };
}
