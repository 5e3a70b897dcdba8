/**
 * The params several handler groups read, in one place below them all (each group imports
 * this, none imports another group): the pane a selector names, the pane of the agent a target
 * names, a read's options, a list of keys, the worktree to make, a checkpoint number.
 */
import { CorralError, READ_SOURCES } from '../../contract/protocol.js';
import { BOUNDS } from '../../contract/bounds.js';
import type { CorralCore } from '../../core/corral-core.js';
import type { PaneRecord } from '../../session/model.js';
import type { ReadOptions } from '../../actions/pane-io.js';
import type { WorktreeOptions } from '../../actions/worktree-actions.js';
import { optBool, optInt, optOneOf, optStr, optStrAny, optStrings, str, type Params } from '../params.js';

/** The pane a selector param names (`pane_id` by default). */
export function paneParam(core: CorralCore, p: Params, name = 'pane_id') {
  return core.resolveOne(str(p, name));
}

/** The pane hosting the agent a `target` (agent name or pane selector) names. */
export function agentPane(core: CorralCore, p: Params): PaneRecord {
  const target = optStrAny(p, ['target', 'pane_id', 'name']);
  if (!target) throw new CorralError('invalid_params', 'param "target" is required (an agent name or a pane id)');
  const pane = core.agents.paneByAgentName(target) ?? core.resolveOne(target);
  if (!core.agents.agentIn(pane)) {
    throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  }
  return pane;
}

/** `source`, `lines`, `format` of a read. */
export function readOptions(p: Params): ReadOptions {
  return {
    source: optOneOf(p, 'source', READ_SOURCES),
    lines: optInt(p, 'lines', BOUNDS.readLines.min, BOUNDS.readLines.max),
    format: optOneOf(p, 'format', ['text', 'ansi'] as const),
  };
}

/** `keys`: a non-empty list of key names. */
export function keysParam(p: Params): string[] {
  const keys = optStrings(p, 'keys');
  if (!keys || keys.length === 0) throw new CorralError('invalid_params', 'param "keys" must be a non-empty array of key names');
  return keys;
}

/** `worktree`, `branch`, `base`, `keep_going`: the worktree to make, or undefined without `worktree`. */
export function worktreeOptions(p: Params): WorktreeOptions | undefined {
  const name = optStr(p, 'worktree');
  const branch = optStr(p, 'branch');
  const base = optStr(p, 'base');
  const keepGoing = optBool(p, 'keep_going');
  if (name === undefined || name === '') {
    if (branch !== undefined || base !== undefined || keepGoing !== undefined) throw new CorralError('invalid_params', '"branch", "base" and "keep_going" need "worktree"');
    return undefined;
  }
  return { name, branch: branch === '' ? undefined : branch, base: base === '' ? undefined : base, keepGoing };
}

/** A checkpoint id or a turn number (SPEC §20): 1 and up. */
export function checkpointNumber(p: Params, name: string): number | undefined {
  return optInt(p, name, 1, Number.MAX_SAFE_INTEGER);
}
