/**
 * `agent.checkpoints` and `agent.rewind` (SPEC §20; `agent.diff` with `turn` is in
 * worktrees.ts, beside the worktree diff it extends). A rewind is `always` gated in the
 * method table: it rewrites files under a pane, so a caller needs the scripting gate.
 */
import { optBool } from '../params.js';
import { listCheckpoints, rewindAgent } from '../../actions/checkpoint-actions.js';
import { CorralError } from '../../contract/protocol.js';
import { agentPane, checkpointNumber } from './handler-params.js';
import type { HandlerGroup } from './context.js';

export const checkpointHandlers = {
  'agent.checkpoints': async (p, { core }) => listCheckpoints(core, agentPane(core, p), { counts: optBool(p, 'counts') ?? false }),
  'agent.rewind': async (p, { core }) => {
    const to = checkpointNumber(p, 'to');
    if (to === undefined) throw new CorralError('invalid_params', 'param "to" is required: the id of the checkpoint to rewind to (agent checkpoints lists them)');
    return rewindAgent(core, agentPane(core, p), to);
  },
} satisfies HandlerGroup;
