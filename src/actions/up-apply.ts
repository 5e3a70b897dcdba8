/**
 * `workspace.up` on the server (SPEC §5, §10): builds the workspace a validated plan
 * describes — panes laid out by the preset, named, running their commands — then starts the
 * agents in parallel through the same path as `agent.start` and types each prompt (not
 * submitted). Not behind the scripting gate (SPEC §8): `up` is the user's own declaration.
 * With `workspace`, the panes are added to that workspace's focused tab instead, and the
 * preset is applied again over all of the tab's panes (how `flow run` grows its workspace).
 */
import { CorralError, type PaneInfo, type WorkspaceInfo, type WorktreeCreated } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { leaves, presetLayout } from '../session/layout.js';
import { paneView, workspaceView } from '../core/views.js';
import { startAgent } from './agent-actions.js';
import { UP_TIMING, type UpPlan } from '../orchestration/up-file.js';
import { createdView, discardWorktree, makeWorktree, requireSetupOk, setupInPane } from './worktree-actions.js';
import type { WorktreeRecord } from '../worktree/worktrees.js';
import type { WorktreeIncludeReport } from '../contract/protocol.js';

export interface UpResult {
  workspace: WorkspaceInfo;
  panes: PaneInfo[];
  worktrees?: WorktreeCreated[];
}

type Made = { record: WorktreeRecord; include: WorktreeIncludeReport };

/**
 * The plan's worktrees (SPEC §15), made before any pane: one that cannot be made (a name that
 * exists, not a repository) takes back the ones made before it, so a refused `up` creates nothing.
 */
async function makeWorktrees(core: CorralCore, plan: UpPlan): Promise<(Made | null)[]> {
  const made: (Made | null)[] = [];
  try {
    for (const spec of plan.panes) made.push(spec.worktree === undefined ? null : await makeWorktree(core, spec.cwd, { name: spec.worktree }));
  } catch (error) {
    for (const m of made) if (m) await discardWorktree(core, m.record).catch(() => {});
    throw error;
  }
  return made;
}

/** Creates the panes of `plan` (in a new workspace, or added to `workspaceId`'s focused tab). */
function createPanes(core: CorralCore, plan: UpPlan, workspaceId: string | undefined): { workspaceId: string; tabId: string; panes: PaneRecord[] } {
  core.requirePaneRoom(plan.panes.length);
  const panes: PaneRecord[] = [];
  let tabId: string;
  let anchor: string;
  let rest = plan.panes;
  if (workspaceId === undefined) {
    const [first, ...others] = plan.panes;
    const created = core.createWorkspace({ cwd: first!.cwd, label: plan.name, focus: true, env: first!.env });
    workspaceId = created.workspace.id;
    tabId = created.tab.id;
    panes.push(created.pane);
    anchor = created.pane.id;
    rest = others;
  } else {
    const workspace = core.model.workspace(workspaceId);
    tabId = workspace.focusedTab;
    const existing = leaves(core.model.tab(tabId).layout);
    anchor = existing[existing.length - 1]!;
  }
  // Each new pane goes right of the last one, so reading order is creation (file) order.
  for (const spec of rest) {
    const pane = core.splitPane(anchor, 'right', { cwd: spec.cwd, focus: false, env: spec.env });
    panes.push(pane);
    anchor = pane.id;
  }
  core.setTabLayout(tabId, presetLayout(leaves(core.model.tab(tabId).layout), plan.layout));
  return { workspaceId, tabId, panes };
}

/** Applies a validated plan; resolves once every agent is ready and its prompt typed. */
export async function applyUp(core: CorralCore, plan: UpPlan, opts: { workspace?: string; signal?: AbortSignal } = {}): Promise<UpResult> {
  if (plan.panes.length === 0) throw new CorralError('invalid_params', 'no panes to create');
  core.requirePaneRoom(plan.panes.length);
  const worktrees = await makeWorktrees(core, plan);
  // A pane with a worktree starts in it.
  const placed: UpPlan = { ...plan, panes: plan.panes.map((spec, i) => (worktrees[i] ? { ...spec, cwd: worktrees[i]!.record.path } : spec)) };
  const { workspaceId, panes } = createPanes(core, placed, opts.workspace);
  const created: (WorktreeCreated | null)[] = plan.panes.map(() => null);
  plan.panes.forEach((spec, i) => {
    const pane = panes[i]!;
    if (spec.name !== undefined) core.renamePane(pane.id, spec.name);
    // Typed ahead: the shell reads it once it is up, as it would from a person. In a worktree, after its setup.
    if (spec.command !== undefined && !worktrees[i]) core.typeLine(pane, spec.command);
    if (spec.command !== undefined && spec.restore) core.setRestoreCommand(pane, spec.command);
  });
  const focus = plan.panes.findIndex((spec) => spec.focus);
  if (focus >= 0) core.focusPane(panes[focus]!.id);

  /** Runs pane i's worktree setup in it; a failure stops its agent (as `agent start --worktree` without --keep-going). */
  const settleWorktree = async (i: number): Promise<void> => {
    const made = worktrees[i];
    if (!made) return;
    created[i] = createdView(made.record, made.include, await setupInPane(core, panes[i]!, made.record, opts.signal));
    const spec = plan.panes[i]!;
    requireSetupOk(created[i]!, false, spec.agent ? 'so its agent was not started' : spec.command ? 'so its command was not run' : `pane ${panes[i]!.id} is open in it`);
  };
  const started = await Promise.allSettled(
    plan.panes.map(async (spec, i) => {
      if (spec.agent === undefined && !worktrees[i]) return;
      const pane = panes[i]!;
      try {
        await settleWorktree(i);
        if (spec.command !== undefined) core.typeLine(core.paneBySurface(pane.surfaceId) ?? pane, spec.command);
        if (spec.agent === undefined) return;
        await startAgent(core, pane, {
          kind: spec.agent,
          timeoutMs: UP_TIMING.agentStartTimeoutMs,
          signal: opts.signal,
          prompt: spec.prompt,
          maxTokens: spec.max_tokens,
          // The file's agents share its budget (SPEC §18), named after the workspace they were made in.
          sharedBudget: plan.budget_tokens !== undefined ? { name: `up:${workspaceId}`, tokens: plan.budget_tokens } : undefined,
        });
      } catch (error) {
        const code = error instanceof CorralError ? error.code : 'internal_error';
        const reason = error instanceof Error ? error.message : String(error);
        const what = spec.agent ? `the ${spec.agent} agent in pane ${pane.id}` : `pane ${pane.id}`;
        throw new CorralError(code, `${what}${spec.name ? ` (${spec.name})` : ''} did not start: ${reason}`);
      }
    }),
  );
  const failures = started.flatMap((r) => (r.status === 'rejected' ? [r.reason as CorralError] : []));
  const current = panes.map((pane) => core.paneBySurface(pane.surfaceId) ?? pane);
  if (failures.length > 0) {
    const first = failures[0]!;
    const more = failures.length > 1 ? ` (and ${failures.length - 1} more agent${failures.length > 2 ? 's' : ''} failed)` : '';
    throw new CorralError(first.code, `${first.message}${more}; workspace ${workspaceId} and its panes were left as they are`, {
      workspace_id: workspaceId,
      panes: current.filter((p) => core.model.findPane(p.id)).map((p) => p.id),
      errors: failures.map((f) => ({ code: f.code, message: f.message })),
    });
  }
  const made = created.filter((c): c is WorktreeCreated => c !== null);
  return {
    workspace: workspaceView(core, core.model.workspace(workspaceId)),
    panes: current.filter((p) => core.model.findPane(p.id)).map((p) => paneView(core, p)),
    ...(made.length > 0 ? { worktrees: made } : {}),
  };
}
