/**
 * Worktrees as a caller acts on them (SPEC §15): the git side (src/worktree/) plus what only
 * the core knows — which panes and agents work inside a worktree, where a setup's output is
 * shown, when a worktree is too busy to remove. The RPC handlers, `agent start`, `up` and the
 * TUI's review view all come through here.
 */
import { realpath } from 'node:fs/promises';
import { dropCheckpointsOf } from './checkpoint-actions.js';
import { CorralError, type PaneInfo, type TabInfo, type WorkspaceInfo, type WorktreeCreated, type WorktreeDiffResult, type WorktreeInfo, type WorktreeIncludeReport, type WorktreeMergeResult, type WorktreePruneResult, type WorktreeSetupReport } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { processesInside } from '../worktree/busy.js';
import type { MergeOptions } from '../worktree/merge.js';
import { isInside } from '../worktree/paths.js';
import { pruneReasons } from '../worktree/prune.js';
import type { WorktreeRecord } from '../worktree/worktrees.js';
import { onlySgr } from '../persist/saved-scrollback.js';
import { NO_SETUP } from '../worktree/setup.js';
import { shellStarted, waitForQuiet } from './pane-settle.js';
import { paneView, tabView, workspaceView } from '../core/views.js';
import { WorktreeWatch } from './worktree-watch.js';

export const WORKTREE_TIMING = {
  /** Before a setup's output is written under a fresh pane's prompt, the prompt must have been quiet this long. */
  promptQuietMs: 150,
  /** …but no longer than this (a shell that keeps printing). */
  promptWaitMs: 2000,
} as const;

const DIM = '\x1b[2m';
const RED = '\x1b[31m';
const RESET = '\x1b[0m';

/** What is asked of a new worktree: `agent start --worktree`, `workspace create --worktree`, an up pane's `worktree`. */
export interface WorktreeOptions {
  name: string;
  branch?: string;
  base?: string;
  /** Start the agent even when the setup failed. */
  keepGoing?: boolean;
}

/** The server's worktree watch (src/server/start-server.ts sets it on the core). */
export function worktreeWatch(core: CorralCore): WorktreeWatch {
  if (core.worktrees instanceof WorktreeWatch) return core.worktrees;
  throw new CorralError('internal_error', 'this server keeps no worktrees');
}

/** Makes a worktree in the repository holding `dir` (all checks first: a refusal makes nothing). */
export async function makeWorktree(core: CorralCore, dir: string, opts: WorktreeOptions): Promise<{ record: WorktreeRecord; include: WorktreeIncludeReport }> {
  const watch = worktreeWatch(core);
  const made = await watch.worktrees.create(dir, { name: opts.name, branch: opts.branch, base: opts.base });
  watch.added(made.record);
  return made;
}

/** A setup's output for a pane's screen: SGR kept, every other control dropped, a lone CR read as a terminal would (the last overwrite stays). */
export function setupLines(text: string): string[] {
  return text.split('\n').map((line) => onlySgr(line.replace(/\r$/, '').split('\r').at(-1)!) + RESET);
}

/**
 * Runs the worktree's setup with its output shown in `pane`, under the pane's prompt (once the
 * prompt is drawn and quiet): a dim header, the output as it comes (line by line, only its
 * colours kept — it cannot move the cursor or answer terminal queries into the shell), a
 * footer saying how it ended.
 */
export async function setupInPane(core: CorralCore, pane: PaneRecord, record: WorktreeRecord, signal?: AbortSignal): Promise<WorktreeSetupReport> {
  const watch = worktreeWatch(core);
  // Nothing to show, so nothing to wait for: without a setup the worktree is ready at once.
  if (!watch.worktrees.hasSetup(record)) return NO_SETUP;
  await shellStarted(core, pane, signal);
  await waitForQuiet(core, pane, WORKTREE_TIMING.promptQuietMs, Date.now() + WORKTREE_TIMING.promptWaitMs);
  const show = (text: string) => {
    const current = core.paneBySurface(pane.surfaceId);
    if (current) void core.host(current).terminal.write(text);
  };
  show(`\r\n${DIM}── worktree ${record.name}: setup ──${RESET}\r\n`);
  // Whole lines only: an escape sequence split between two reads is never cut in half.
  let partial = '';
  const report = await watch.worktrees.setup(
    record,
    (chunk) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      if (lines.length > 0) show(setupLines(lines.join('\n')).join('\r\n') + '\r\n');
    },
    signal,
  );
  if (partial !== '') show(setupLines(partial).join('\r\n') + '\r\n');
  const took = `${(report.duration_ms / 1000).toFixed(1)} s`;
  const ending =
    report.status === 'ok'
      ? `${DIM}── setup done in ${took} ──${RESET}`
      : `${RED}── setup ${report.status === 'timed_out' ? `stopped after ${took} (setup_timeout_secs)` : `failed (exit ${report.exit_code ?? '?'}) after ${took}`} ──${RESET}`;
  show(`${ending}\r\n`);
  return report;
}

/** The `worktree` object of a reply that made one. */
export function createdView(record: WorktreeRecord, include: WorktreeIncludeReport, setup: WorktreeSetupReport): WorktreeCreated {
  return { name: record.name, path: record.path, repo: record.repo, branch: record.branch, base: record.base, index: record.index, include, setup };
}

/** Throws `worktree_setup_failed` for a failed or timed-out setup, unless the caller keeps going. */
export function requireSetupOk(created: WorktreeCreated, keepGoing: boolean, consequence = 'so the agent was not started'): void {
  const { setup } = created;
  if (setup.status === 'ok' || setup.status === 'none' || keepGoing) return;
  const how = setup.status === 'timed_out' ? `did not finish within setup_timeout_secs (${Math.round(setup.duration_ms / 1000)} s)` : `failed (exit ${setup.exit_code ?? '?'})`;
  throw new CorralError(
    'worktree_setup_failed',
    `the setup of worktree ${created.name} (${setup.command}) ${how}, ${consequence}; the worktree stays at ${created.path} ` +
      '(its output is in the pane): fix it and go on there, use --keep-going, or corral worktree discard ' + created.name,
    { worktree: created },
  );
}

/**
 * `workspace create --worktree`: a worktree made in the repository of `opts.cwd`, a workspace
 * opened in it (named after it), its setup run in the root pane. A failed setup is
 * `worktree_setup_failed` unless `keepGoing`; the workspace and the worktree stay either way.
 */
export async function workspaceInWorktree(
  core: CorralCore,
  opts: { cwd: string; label?: string; focus?: boolean },
  worktree: WorktreeOptions,
  signal?: AbortSignal,
): Promise<{ workspace: WorkspaceInfo; tab: TabInfo; root_pane: PaneInfo; worktree: WorktreeCreated }> {
  const made = await makeWorktree(core, opts.cwd, worktree);
  const created = core.createWorkspace({ ...opts, cwd: made.record.path });
  const view = createdView(made.record, made.include, await setupInPane(core, created.pane, made.record, signal));
  requireSetupOk(view, worktree.keepGoing ?? false, `workspace ${created.workspace.id} is open in it`);
  const pane = core.paneBySurface(created.pane.surfaceId) ?? created.pane;
  return { workspace: workspaceView(core, created.workspace), tab: tabView(core, created.tab), root_pane: paneView(core, pane), worktree: view };
}

/** Panes of this server whose working directory is in the worktree. */
export function panesInside(core: CorralCore, record: WorktreeRecord): PaneRecord[] {
  return [...core.model.panes.values()].filter((pane) => isInside(core.paneCwd(pane, 0), record.path));
}

/** The record of worktree `name`. */
export function worktreeNamed(core: CorralCore, name: string): Promise<WorktreeRecord> {
  return worktreeWatch(core).worktrees.get(name);
}

/** The worktree the agent (or shell) in `pane` works in; `worktree_not_found` when it works in none of corral's. */
export async function agentWorktree(core: CorralCore, pane: PaneRecord): Promise<WorktreeRecord> {
  const cwd = core.paneCwd(pane, 0);
  const record = (await worktreeWatch(core).worktrees.records()).find((r) => isInside(cwd, r.path));
  if (!record) throw new CorralError('worktree_not_found', `pane ${pane.id} works in ${cwd}, which is in no corral worktree`, { pane_id: pane.id });
  return record;
}

/** The diff of the worktree a pane works in, patch included (the TUI's review view). */
export async function paneWorktreeDiff(core: CorralCore, pane: PaneRecord): Promise<WorktreeDiffResult> {
  return diffWorktree(core, await agentWorktree(core, pane), true);
}

/** Every worktree corral made (or those of the repository holding `dir`), with what git and the panes say now. */
export async function listWorktrees(core: CorralCore, dir?: string): Promise<WorktreeInfo[]> {
  const watch = worktreeWatch(core);
  const records = await watch.worktrees.records(dir);
  return Promise.all(
    records.map(async (record) => {
      const panes = panesInside(core, record);
      const agentPane = panes.find((pane) => core.agents.agentIn(pane));
      const agent = agentPane ? core.agents.agentIn(agentPane)! : null;
      const { name, path: where, repo, branch, base, index, created_at } = record;
      return { name, path: where, repo, branch, base, index, created_at, agent: agent ? (agent.name ?? agent.kind) : null, panes: panes.map((p) => p.id), ...(await watch.worktrees.state(record)) };
    }),
  );
}

/** What the worktree changed against its base. */
export async function diffWorktree(core: CorralCore, record: WorktreeRecord, patch: boolean): Promise<WorktreeDiffResult> {
  const diff = await worktreeWatch(core).worktrees.diff(record, { patch });
  return { worktree: record.name, branch: record.branch, base: record.base, ...diff };
}

/** Merges the worktree back; its diff size is counted again after. */
export async function mergeWorktreeBack(core: CorralCore, record: WorktreeRecord, opts: MergeOptions): Promise<WorktreeMergeResult> {
  const watch = worktreeWatch(core);
  try {
    return await watch.worktrees.merge(record, opts);
  } finally {
    void watch.refresh(record.name);
  }
}

/** Why nothing may remove the worktree now (a process runs inside it), or null. */
function busyReason(core: CorralCore, record: WorktreeRecord): string | null {
  const panes = panesInside(core, record).map((p) => p.id);
  const pids = processesInside(record.path);
  if (panes.length === 0 && pids.length === 0) return null;
  return panes.length > 0 ? `pane${panes.length > 1 ? 's' : ''} ${panes.join(', ')} work${panes.length > 1 ? '' : 's'} in it` : `process${pids.length > 1 ? 'es' : ''} ${pids.slice(0, 5).join(', ')} run${pids.length > 1 ? '' : 's'} in it`;
}

/** Removes a worktree and its branch, and its agents' checkpoint refs (SPEC §20): they name files that are gone. */
async function removeWorktree(core: CorralCore, record: WorktreeRecord): Promise<void> {
  const watch = worktreeWatch(core);
  // Checkpoints name the checkout as git does (links resolved); read before the directory goes.
  const top = await realpath(record.path).catch(() => record.path);
  await watch.worktrees.remove(record);
  watch.removed(record);
  await dropCheckpointsOf({ env: watch.worktrees.env }, record.repo, top);
}

/** Removes the worktree, its branch and everything uncommitted in it; refused while anything runs inside. */
export async function discardWorktree(core: CorralCore, record: WorktreeRecord): Promise<{ discarded: string; branch: string; path: string }> {
  const busy = busyReason(core, record);
  if (busy) throw new CorralError('worktree_busy', `worktree ${record.name} was not discarded: ${busy}; close or leave it first`, { worktree: record.name });
  await removeWorktree(core, record);
  return { discarded: record.name, branch: record.branch, path: record.path };
}

/**
 * Removes the worktrees nothing is lost with: merged, clean, no process inside. `force` also
 * removes unmerged and dirty ones — never one a process runs in. `dryRun` only says which.
 */
export async function pruneWorktrees(core: CorralCore, opts: { dryRun: boolean; force: boolean }): Promise<WorktreePruneResult> {
  const watch = worktreeWatch(core);
  const result: WorktreePruneResult = { dry_run: opts.dryRun, removed: [], kept: [] };
  for (const record of await watch.worktrees.records()) {
    const state = await watch.worktrees.state(record);
    const reasons = pruneReasons(record, state, state.missing ? null : busyReason(core, record), opts.force);
    if (reasons.length > 0) {
      result.kept.push({ name: record.name, reasons });
      continue;
    }
    if (!opts.dryRun) await removeWorktree(core, record);
    result.removed.push(record.name);
  }
  return result;
}
