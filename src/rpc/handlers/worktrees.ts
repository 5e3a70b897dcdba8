/**
 * `worktree.*`, `agent.diff` (with `turn`, a turn's checkpoint diff: SPEC §20) and `agent.merge` (SPEC §15), and the `worktree` params that
 * `agent.start` and `workspace.create` share. A merge, a discard and a forced prune are
 * `by-peer` in the method table: allowed from outside every pane, refused from inside one
 * (an agent reviewing and merging its own work, or throwing another's away) unless the
 * scripting gate is open — the handler asks where the caller stands.
 */
import { CorralError } from '../../contract/protocol.js';
import { optBool, optOneOf, optStr, str, type Params } from '../params.js';
import { GATE_HOW_TO_OPEN } from '../gate-refusal.js';
import {
  agentWorktree,
  diffWorktree,
  discardWorktree,
  listWorktrees,
  mergeWorktreeBack,
  pruneWorktrees,
  worktreeNamed,
} from '../../actions/worktree-actions.js';
import type { MergeOptions } from '../../worktree/merge.js';
import { agentPane, checkpointNumber } from './handler-params.js';
import { checkpointDiff } from '../../actions/checkpoint-actions.js';
import type { HandlerGroup, RequestContext } from './context.js';
import { isAbsolute } from 'node:path';

/**
 * Work leaving a worktree for the user's branch, or thrown away, is the person's call (docs/worktrees.md):
 * from inside a pane — where an agent runs — it needs the gate open; from outside, it is a person or their own script.
 */
function requireOutsideOrGate(ctx: Pick<RequestContext, 'core' | 'peer'>, what: string): void {
  if (ctx.core.scripting) return;
  const place = ctx.peer.place(false);
  if (place.kind === 'outside') return;
  const from = place.kind === 'pane' ? `from inside pane ${ctx.core.paneBySurface(place.surfaceId)?.id ?? place.surfaceId}` : `from a process corral cannot place (${place.why})`;
  throw new CorralError(
    'scripting_disabled',
    `${what} ${from} needs the scripting gate: an agent must not merge or throw away work behind the person's review. ` +
      `Run it from a terminal outside corral, press m in the review view (prefix D), or ${GATE_HOW_TO_OPEN}`,
  );
}

function mergeOptions(p: Params): MergeOptions {
  const message = optStr(p, 'message');
  if (message !== undefined && message.trim() === '') throw new CorralError('invalid_params', 'param "message" must not be empty');
  return { mode: optOneOf(p, 'mode', ['merge', 'squash', 'rebase'] as const) ?? 'merge', message };
}

const patchParam = (p: Params): boolean => optBool(p, 'patch') ?? true;

export const worktreeHandlers = {
  'worktree.list': async (p, { core }) => {
    const repo = optStr(p, 'repo');
    if (repo !== undefined && !isAbsolute(repo)) throw new CorralError('invalid_params', `repo must be an absolute path, got "${repo}"`);
    return { worktrees: await listWorktrees(core, repo) };
  },
  'worktree.diff': async (p, { core }) => diffWorktree(core, await worktreeNamed(core, str(p, 'name')), patchParam(p)),
  'worktree.merge': async (p, ctx) => {
    const opts = mergeOptions(p);
    const record = await worktreeNamed(ctx.core, str(p, 'name'));
    requireOutsideOrGate(ctx, 'worktree merge');
    return mergeWorktreeBack(ctx.core, record, opts);
  },
  'worktree.discard': async (p, ctx) => {
    const record = await worktreeNamed(ctx.core, str(p, 'name'));
    requireOutsideOrGate(ctx, 'worktree discard');
    return discardWorktree(ctx.core, record);
  },
  'worktree.prune': async (p, ctx) => {
    const force = optBool(p, 'force') ?? false;
    const dryRun = optBool(p, 'dry_run') ?? false;
    // Without force nothing is lost (merged, clean, idle only): anyone may tidy up.
    if (force && !dryRun) requireOutsideOrGate(ctx, 'worktree prune --force');
    return pruneWorktrees(ctx.core, { dryRun, force });
  },
  'agent.diff': async (p, { core }) => {
    const patch = patchParam(p);
    const turn = checkpointNumber(p, 'turn');
    const pane = agentPane(core, p);
    if (turn !== undefined) return checkpointDiff(core, pane, turn, patch);
    return diffWorktree(core, await agentWorktree(core, pane), patch);
  },
  'agent.merge': async (p, ctx) => {
    const opts = mergeOptions(p);
    const record = await agentWorktree(ctx.core, agentPane(ctx.core, p));
    requireOutsideOrGate(ctx, 'agent merge');
    return mergeWorktreeBack(ctx.core, record, opts);
  },
} satisfies HandlerGroup;
