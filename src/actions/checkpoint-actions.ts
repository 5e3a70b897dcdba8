/**
 * What people and scripts do with checkpoints (SPEC §20): list an agent's turns, see what one
 * turn changed, put the files back as a checkpoint had them. The checkpoints are taken by
 * src/actions/checkpoint-keeper.ts; git does the work (src/checkpoint/checkpoint-git.ts).
 */
import { CorralError } from '../contract/protocol.js';
import type { AgentCheckpointsResult, CheckpointDiffResult, CheckpointInfo, RewindResult } from '../contract/checkpoints.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { CHECKPOINT_REFS, deleteRefs, findCheckout, readCheckpoints, requireCommit, restoreTree, type CheckpointRecord, type Checkout } from '../checkpoint/checkpoint-git.js';
import { treeDiff } from '../worktree/diff.js';
import type { GitContext } from '../worktree/git.js';
import { checkpointInfo, checkpointKeeper, type CheckpointKeeper } from './checkpoint-keeper.js';

/** The keeper, or `internal_error` on a core no server set one on. */
function keeperOf(core: CorralCore): CheckpointKeeper {
  const keeper = checkpointKeeper(core);
  if (!keeper) throw new CorralError('internal_error', 'this corral keeps no checkpoints (no server started it)');
  return keeper;
}

/** The agent in `pane`, its ref key, and the checkout its pane works in with that checkout's checkpoints. */
async function agentCheckpoints(core: CorralCore, pane: PaneRecord): Promise<{ key: string; kind: string; checkout: Checkout | null; records: CheckpointRecord[] }> {
  const keeper = keeperOf(core);
  const agent = keeper.agentKey(pane);
  if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  const checkout = await findCheckout(keeper.ctx, core.paneCwd(pane, 0));
  if (!checkout) return { ...agent, checkout: null, records: [] };
  const all = await readCheckpoints(keeper.ctx, checkout.top, `${CHECKPOINT_REFS}/${agent.key}/`);
  // A name's refs can hold checkpoints of other worktrees of the repository: only this checkout's count here.
  return { ...agent, checkout, records: all.filter((record) => record.checkout === checkout.top) };
}

/** A checkout, or `not_a_git_repo` naming the pane's directory. */
function requireCheckout(core: CorralCore, pane: PaneRecord, checkout: Checkout | null): Checkout {
  if (checkout) return checkout;
  const cwd = core.paneCwd(pane, 0);
  throw new CorralError('not_a_git_repo', `pane ${pane.id} works in ${cwd}, which is in no git repository's working tree: it has no checkpoints`, { dir: cwd });
}

/** `agent.checkpoints`: the agent's checkpoints in its checkout, oldest first; with `counts`, what each turn changed. */
export async function listCheckpoints(core: CorralCore, pane: PaneRecord, opts: { counts: boolean }): Promise<AgentCheckpointsResult> {
  const { key, checkout, records } = await agentCheckpoints(core, pane);
  const checkpoints: CheckpointInfo[] = records.map(checkpointInfo);
  if (opts.counts && checkout && records.length > 0) {
    const keeper = keeperOf(core);
    const now = await keeper.captureIn(checkout.top);
    for (let i = 0; i < records.length; i++) {
      const to = records[i + 1]?.commit ?? now?.tree;
      if (!to) continue;
      const diff = await treeDiff(keeper.ctx, checkout.top, records[i]!.commit, to, { patch: false });
      Object.assign(checkpoints[i]!, { files_changed: diff.files.length, added: diff.added, removed: diff.removed });
    }
  }
  return { agent: key, checkout: checkout?.top ?? null, checkpoints };
}

/** `agent.diff` with `turn`: from the turn's checkpoint to the next checkpoint, or to the files now. */
export async function checkpointDiff(core: CorralCore, pane: PaneRecord, turn: number, patch: boolean): Promise<CheckpointDiffResult> {
  const { key, checkout, records } = await agentCheckpoints(core, pane);
  const at = requireCheckout(core, pane, checkout);
  const index = records.findIndex((record) => record.reason === 'turn' && record.turn === turn);
  if (index < 0) {
    const turns = records.filter((r) => r.reason === 'turn').map((r) => r.turn);
    const known = turns.length === 0 ? 'it has none in this checkout yet' : `its turns here are ${turns[0]}–${turns.at(-1)}`;
    throw new CorralError('checkpoint_not_found', `agent ${key} has no checkpoint of turn ${turn}: ${known} (agent checkpoints ${key})`, { agent: key, turn });
  }
  const from = records[index]!;
  const next = records[index + 1] ?? null;
  const keeper = keeperOf(core);
  const to = next?.commit ?? (await keeper.captureIn(at.top))?.tree;
  if (!to) throw new CorralError('not_a_git_repo', `the files of ${at.top} could not be read`);
  const diff = await treeDiff(keeper.ctx, at.top, from.commit, to, { patch });
  return { agent: key, turn, from: from.id, to: next?.id ?? null, ...diff };
}

/**
 * `agent.rewind`: takes a checkpoint of the files as they are (`reason: rewind`, so this can be
 * undone), then puts them back as checkpoint `id` had them. Refused while the agent works or
 * waits on a question: its files would change under it.
 */
export async function rewindAgent(core: CorralCore, pane: PaneRecord, id: number): Promise<RewindResult> {
  const status = core.agents.agentIn(pane)?.state.status;
  if (status === 'working' || status === 'blocked') {
    throw new CorralError('agent_busy', `the agent in ${pane.id} is ${status}: rewind it once it is idle or done (its files would change under it)`, { pane_id: pane.id, agent_status: status });
  }
  const { key, kind, checkout, records } = await agentCheckpoints(core, pane);
  const at = requireCheckout(core, pane, checkout);
  const target = records.find((record) => record.id === id);
  if (!target) {
    throw new CorralError('checkpoint_not_found', `agent ${key} has no checkpoint ${id} in ${at.top} (agent checkpoints ${key} lists them)`, { agent: key, id });
  }
  const keeper = keeperOf(core);
  await requireCommit(keeper.ctx, at, target.commit);
  return keeper.exclusive(at, async (steps) => {
    const now = await steps.readFiles();
    const before = await steps.keep({ key, kind }, now, { reason: 'rewind', prompt: '' });
    const changed = await treeDiff(keeper.ctx, at.top, now.tree, target.commit, { patch: false });
    await restoreTree(keeper.ctx, at, now.tree, target.commit);
    return { agent: key, rewound_to: id, checkpoint: checkpointInfo(before), files: changed.files };
  });
}

/** Removes the checkpoint refs taken of a checkout (a worktree discarded or pruned), in its repository. */
export async function dropCheckpointsOf(ctx: GitContext, repo: string, checkoutTop: string): Promise<number> {
  const records = await readCheckpoints(ctx, repo, CHECKPOINT_REFS);
  const refs = records.filter((record) => record.checkout === checkoutTop).map((record) => record.ref);
  await deleteRefs(ctx, repo, refs);
  return refs.length;
}
