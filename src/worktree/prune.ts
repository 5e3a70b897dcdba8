/**
 * What a prune may take (SPEC §15): a worktree goes only when nothing in it would be lost —
 * its branch merged, no uncommitted change, no process inside. `force` lets unmerged and
 * dirty ones go too; a worktree something runs in stays whatever is asked. Pure, so the rule
 * is the same for `worktree prune` and the property test that holds it to its promise.
 */
import path from 'node:path';
import type { WorktreeRecord } from './registry.js';
import type { WorktreeState } from './worktrees.js';

/** Why the worktree stays (empty: it may go). `busy`: what runs inside it, or null. */
export function pruneReasons(record: WorktreeRecord, state: WorktreeState, busy: string | null, force: boolean): string[] {
  const reasons: string[] = [];
  if (busy) reasons.push(busy);
  if (!force && state.dirty) reasons.push('it has uncommitted changes');
  if (!force && !state.merged) reasons.push(`its branch ${record.branch} has work not merged into ${path.basename(record.repo)}'s checked-out branch`);
  return reasons;
}
