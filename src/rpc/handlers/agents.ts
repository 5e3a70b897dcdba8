/** herdr-style `agent.*` methods and the `ai.*` hook notifications (SPEC §4, §5). */
import { CorralError } from '../../contract/protocol.js';
import { optBool, optInt, optStrAny, optStrings, str, text, type Params } from '../params.js';
import { AGENT_STATUSES, HOOK_METHODS, type AgentStatus } from '../../contract/protocol.js';
import { promptAgent, startAgent } from '../../actions/agent-actions.js';
import { budgetRaises, joinSharedBudget, setAgentBudget, sharedBudgetRaises, usageReport } from '../../actions/budget.js';
import { requireGateToRaise } from '../gate-refusal.js';
import { DEFAULT_UNTIL, statusMatches, waitForAgent } from '../../actions/agent-wait.js';
import { readAgent } from '../../actions/transcript.js';
import { readAnswer } from '../../actions/answer-read.js';
import { sendKeys } from '../../actions/pane-io.js';
import { agentPane, keysParam, readOptions, worktreeOptions } from './handler-params.js';
import { agentView } from '../../core/views.js';
import type { Handler, HandlerGroup, HookHandlers, RequestContext } from './context.js';
import { OnceLog } from '../../core/once-log.js';
import { BOUNDS } from '../../contract/bounds.js';

/** Hooks refused because they came from outside the pane they name (SPEC §8). */
const refusedHooks = new OnceLog();

/**
 * A hook speaks only for the pane whose process tree sent it (SPEC §8): the pane it names
 * must be the one the kernel's peer credentials place it in, or nothing changes and the
 * server log says so (once per place and pane). `pane_id` stays in the params because the
 * agent's hook config says which pane it thinks it is in; it is checked, never believed.
 */
function hookHandler(event: string) {
  return (p: Params, { core, peer }: Pick<RequestContext, 'core' | 'peer'>): { ok: true } => {
    const paneId = str(p, 'pane_id');
    const pane = core.model.findPane(paneId);
    if (!pane) throw new CorralError('pane_not_found', `no pane "${paneId}"`, { pane_id: paneId });
    const place = peer.place(false);
    if (place.kind !== 'pane' || place.surfaceId !== pane.surfaceId) {
      const from = place.kind === 'pane' ? `pane ${core.paneBySurface(place.surfaceId)?.id ?? `surface ${place.surfaceId}`}` : place.kind === 'outside' ? 'outside every pane' : `an unidentified process (${place.why})`;
      refusedHooks.note(`${event} ${from} ${pane.surfaceId}`, `hook ${event} for pane ${pane.id} ignored: it came from ${from} (pid ${peer.pid ?? 'unknown'})`);
      throw new CorralError('peer_not_in_pane', `a hook counts only for the pane it runs in: this one came from ${from}, not from pane ${pane.id}`, { pane_id: pane.id });
    }
    core.agents.applyHook(pane, event, p);
    return { ok: true };
  };
}

/** `until` statuses: each must be a known status; none given means the default set. */
function untilParam(p: Params): AgentStatus[] | undefined {
  const raw = p.until === undefined || p.until === null ? undefined : typeof p.until === 'string' ? [p.until] : optStrings(p, 'until');
  if (!raw || raw.length === 0) return undefined;
  const unknown = raw.filter((s) => !(AGENT_STATUSES as readonly string[]).includes(s));
  if (unknown.length) throw new CorralError('invalid_params', `unknown status ${unknown.join(', ')} in "until"; one of ${AGENT_STATUSES.join(', ')}`);
  return raw as AgentStatus[];
}
/** `timeout_ms`, when given: a whole number of milliseconds a timer can hold. */
function timeoutParam(p: Params): number | undefined {
  return optInt(p, 'timeout_ms', BOUNDS.timeoutMs.min, BOUNDS.timeoutMs.max);
}

export const agentHandlers = {
  // Params are checked before the target is resolved: a malformed request is invalid_params whatever it names.
  'agent.start': async (p, { core, signal }) => {
    const args = optStrings(p, 'args');
    const timeoutMs = timeoutParam(p);
    const prompt = p.prompt === undefined || p.prompt === null ? undefined : text(p, 'prompt');
    const worktree = worktreeOptions(p);
    const pane = core.resolveOne(str(p, 'pane_id'));
    return startAgent(core, pane, {
      kind: str(p, 'kind'),
      name: p.name === undefined || p.name === null || p.name === '' ? undefined : str(p, 'name'),
      args,
      timeoutMs,
      signal,
      prompt,
      worktree,
      maxTokens: optInt(p, 'max_tokens', BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max),
      sharedBudget: sharedBudgetParam(p),
    });
  },
  'agent.prompt': async (p, { core, signal }) => {
    const until = untilParam(p);
    const wait = p.wait === true;
    if (until && !wait) throw new CorralError('invalid_params', '"until" needs "wait"');
    const timeoutMs = timeoutParam(p);
    const body = text(p, 'text');
    const maxTokens = optInt(p, 'max_tokens', BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max) ?? null;
    const agent = await promptAgent(core, agentPane(core, p), { text: body, wait, until, timeoutMs, signal, maxTokens });
    return { agent };
  },
  'agent.usage': (p, { core }) => usageReport(core, agentPane(core, p)),
  'agent.budget': (p, { core }) => {
    const clear = optBool(p, 'clear') ?? false;
    const tokens = optInt(p, 'tokens', BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max);
    if (clear === (tokens !== undefined)) throw new CorralError('invalid_params', 'agent budget takes either "tokens" (a positive integer) or "clear"');
    const pane = agentPane(core, p);
    const shared = p.shared === undefined || p.shared === null ? undefined : str(p, 'shared');
    if (shared !== undefined) {
      if (clear) throw new CorralError('invalid_params', 'a shared budget is not cleared agent by agent: "shared" needs "tokens"');
      requireGateToRaise('agent.budget', sharedBudgetRaises(core, shared, tokens!), core.scripting, 'raising a shared budget');
      return { agent: joinSharedBudget(core, pane, shared, tokens!) };
    }
    const limit = clear ? null : tokens!;
    requireGateToRaise('agent.budget', budgetRaises(core, pane, limit), core.scripting, clear ? 'clearing a budget' : 'raising a budget');
    return { agent: setAgentBudget(core, pane, limit) };
  },
  'agent.wait': async (p, { core, signal }) => {
    const until = untilParam(p) ?? DEFAULT_UNTIL;
    const timeoutMs = timeoutParam(p);
    const pane = agentPane(core, p);
    const agent = await waitForAgent(core, pane, {
      until: (a) => statusMatches(a, until),
      deadline: timeoutMs === undefined ? undefined : Date.now() + timeoutMs,
      signal,
      onDeadline: () => new CorralError('timeout', `the agent in ${pane.id} did not reach ${until.join('|')} within ${timeoutMs} ms`),
    });
    return { agent };
  },
  'agent.read': async (p, { core }) => {
    const answer = optBool(p, 'answer') ?? false;
    const turns = optInt(p, 'turns', BOUNDS.answerTurns.min, BOUNDS.answerTurns.max);
    if (!answer) {
      if (turns !== undefined) throw new CorralError('invalid_params', '"turns" needs "answer"');
      return { read: await readAgent(core, agentPane(core, p), readOptions(p)) };
    }
    const other = ['source', 'lines', 'format'].find((name) => p[name] !== undefined && p[name] !== null);
    if (other) throw new CorralError('invalid_params', `"${other}" does not go with "answer" (an answer is plain text from the session record or the screen)`);
    return { read: await readAnswer(core, agentPane(core, p), turns ?? 1) };
  },
  'agent.send_keys': (p, { core }) => {
    const keys = keysParam(p);
    const pane = agentPane(core, p);
    sendKeys(core, pane, keys);
    return { agent: agentView(core, pane) };
  },
  'agent.list': (p, { core }) => {
    const workspace = optStrAny(p, ['workspace', 'workspace_id']);
    const tab = optStrAny(p, ['tab', 'tab_id']);
    const agents = [...core.agents.agents()]
      .filter(({ pane }) => (!workspace || pane.workspaceId === workspace) && (!tab || pane.tabId === tab))
      .map(({ pane }) => agentView(core, pane));
    return { agents };
  },
  'agent.get': (p, { core }) => ({ agent: agentView(core, agentPane(core, p)) }),
  'agent.rename': (p, { core }) => {
    const pane = agentPane(core, p);
    core.agents.rename(pane, str(p, 'name'));
    return { agent: agentView(core, pane) };
  },
  'agent.release': (p, { core }) => {
    const pane = agentPane(core, p);
    core.agents.rename(pane, null);
    return { agent: agentView(core, pane) };
  },
  'agent.focus': (p, { core }) => {
    const pane = agentPane(core, p);
    core.focusPane(pane.id);
    return { agent: agentView(core, pane) };
  },
  'agent.explain': (p, { core }) => {
    const pane = agentPane(core, p);
    return { agent: agentView(core, pane), explanation: core.agents.explain(pane) };
  },
} satisfies HandlerGroup;

/** Hook events arrive as notifications (`ai.*`); each maps onto the agent in the sending pane. */
export const hookHandlers = Object.fromEntries(HOOK_METHODS.map((event) => [event, hookHandler(event)])) as Record<string, Handler<{ ok: true }>> as HookHandlers;

/** `shared_budget: {name, tokens}` of `agent.start` (a flow's or an `up` file's budget). */
function sharedBudgetParam(p: Params): { name: string; tokens: number } | undefined {
  const raw = p.shared_budget;
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new CorralError('invalid_params', '"shared_budget" must be {name, tokens}');
  const inner = raw as Params;
  const tokens = optInt(inner, 'tokens', BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max);
  if (tokens === undefined) throw new CorralError('invalid_params', '"shared_budget.tokens" is required');
  return { name: str(inner, 'name'), tokens };
}
