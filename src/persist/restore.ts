/**
 * Server start: reads the saved session and recreates it in the (empty) core (SPEC §13).
 * Never stops a start: a file that cannot be restored is moved aside as
 * `<session>.json.corrupt-<time>` and reported; the server then starts empty.
 */
import { statSync } from 'node:fs';
import os from 'node:os';
import type { CorralCore, RestoredPaneStart } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { resumeArgv } from '../agents/resume.js';
import { visibleControls } from '../terminal/control-chars.js';
import { parseState, stateToRecords, StateProblem, type SavedPane, type SessionState } from './session-state.js';
import { moveAside, readPrivateFile, scrollbackFile, savedScrollbacks, type SessionFiles } from './state-files.js';
import { decompressScrollback, restorePreamble } from './saved-scrollback.js';
import { rm } from 'node:fs/promises';

export interface RestoreOutcome {
  /** The file restored from, or null when nothing was. */
  restoredFrom: string | null;
  restoredAt: string | null;
  /** When the saved state was written. */
  savedAt: string | null;
  panes: number;
  problems: string[];
  /**
   * False when a file that could not be restored is still in place (moving it aside failed):
   * it must not be overwritten, so the session is not saved until someone deals with it.
   */
  mayWrite: boolean;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** One word for a POSIX shell: as is when plain, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Shown to a person: control characters made visible. */
function shown(text: string): string {
  return visibleControls(text);
}

/** How one saved pane starts again: cwd, what its terminal says, what (if anything) runs again. */
export function planPane(saved: SavedPane, workspaceCwd: string, scrollback: string, savedAt: Date, opts: { resumeAgents: boolean; home: string }): RestoredPaneStart {
  const notes: string[] = [];
  let cwd = saved.cwd;
  const cwdGone = !isDirectory(cwd);
  if (cwdGone) {
    const fallback = isDirectory(workspaceCwd) ? workspaceCwd : opts.home;
    notes.push(`${shown(saved.cwd)} is gone; the shell starts in ${shown(fallback)}`);
    cwd = fallback;
  }
  let input: string | null = null;
  const agent = saved.agent;
  if (agent && cwdGone) {
    // Its work was in that directory (a worktree discarded meanwhile, SPEC §15): resumed anywhere
    // else it would edit the wrong checkout.
    const label = agent.name ? `${agent.kind} agent "${agent.name}"` : `${agent.kind} agent`;
    notes.push(`${label} ran there: ${shown(agent.argv.join(' '))} (not restarted in another directory)`);
  } else if (agent) {
    const label = agent.name ? `${agent.kind} agent "${agent.name}"` : `${agent.kind} agent`;
    const argv = opts.resumeAgents ? resumeArgv(agent.kind, agent.session_id, agent.argv) : null;
    if (argv) {
      input = argv.map(shellWord).join(' ') + '\r';
      notes.push(`resuming ${label}, its session ${shown(agent.session_id ?? '')}`);
    } else {
      const why = !opts.resumeAgents
        ? 'resume_agents is off'
        : agent.session_id === null
          ? 'its own session id was never reported'
          : `corral cannot resume ${agent.kind} sessions by id`;
      notes.push(`${label} ran here: ${shown(agent.argv.join(' '))} (not restarted: ${why})`);
    }
  } else if (saved.restore_command !== null) {
    input = saved.restore_command + '\r';
    notes.push(`re-running: ${shown(saved.restore_command)}`);
  } else if (saved.command !== '') {
    notes.push(`was running: ${shown(saved.command)} (not restarted)`);
  }
  return { cwd, env: saved.env, preamble: restorePreamble(scrollback, savedAt, notes), input, restoreCommand: saved.restore_command };
}

async function readScrollback(files: SessionFiles, surfaceId: number, problems: string[]): Promise<string> {
  try {
    const data = await readPrivateFile(scrollbackFile(files, surfaceId));
    return data === null ? '' : decompressScrollback(data);
  } catch (error) {
    problems.push(`the saved scrollback of surface ${surfaceId} could not be read (${(error as Error).message})`);
    return '';
  }
}

/** Reads `files.state`; on success recreates the session in `core`. Never throws. */
export async function restoreSavedSession(
  core: CorralCore,
  files: SessionFiles,
  opts: { resumeAgents: boolean; now?: Date; home?: string },
): Promise<RestoreOutcome> {
  const now = opts.now ?? new Date();
  const outcome: RestoreOutcome = { restoredFrom: null, restoredAt: null, savedAt: null, panes: 0, problems: [], mayWrite: true };
  let state: SessionState;
  try {
    const data = await readPrivateFile(files.state);
    if (data === null) return outcome;
    state = parseState(data.toString('utf8'));
  } catch (error) {
    const reason = error instanceof StateProblem ? error.message : `unreadable: ${(error as Error).message}`;
    try {
      const aside = await moveAside(files.state, now);
      outcome.problems.push(`the saved session ${files.state} could not be restored (${reason}); it was moved to ${aside} and the server started empty`);
    } catch (moveError) {
      outcome.mayWrite = false;
      outcome.problems.push(
        `the saved session ${files.state} could not be restored (${reason}) nor moved aside (${(moveError as Error).message}); ` +
          'the server started empty and will not save over it',
      );
    }
    return outcome;
  }
  const scrollbacks = new Map<number, string>();
  for (const pane of state.panes) scrollbacks.set(pane.surface_id, await readScrollback(files, pane.surface_id, outcome.problems));
  // Files of panes that are not in the state any more (closed before a kill -9) go.
  const live = new Set(state.panes.map((p) => p.surface_id));
  for (const surfaceId of await savedScrollbacks(files)) {
    if (!live.has(surfaceId)) await rm(scrollbackFile(files, surfaceId), { force: true }).catch(() => {});
  }
  const savedAt = Number.isNaN(Date.parse(state.saved_at)) ? now : new Date(state.saved_at);
  const byId = new Map(state.panes.map((p) => [p.id, p]));
  const workspaceCwd = new Map(state.workspaces.map((w) => [w.id, w.cwd]));
  const home = opts.home ?? os.homedir();
  try {
    core.restoreSession(stateToRecords(state), (pane: PaneRecord) => {
      const saved = byId.get(pane.id)!;
      const plan = planPane(saved, workspaceCwd.get(saved.workspace) ?? home, scrollbacks.get(saved.surface_id) ?? '', savedAt, {
        resumeAgents: opts.resumeAgents,
        home,
      });
      // A resumed agent comes back under its name, with its session id (SPEC §13).
      const agent = saved.agent;
      const argv = agent && opts.resumeAgents && plan.input !== null ? resumeArgv(agent.kind, agent.session_id, agent.argv) : null;
      if (agent && argv) {
        core.agents.sessions.expectAgent(pane, { kind: agent.kind, name: agent.name, argv, sessionId: agent.session_id });
        // Its screen is what it draws below that command, not the saved lines above it.
        if (plan.input !== null) core.agents.expectCommand(pane, plan.input.trimEnd(), { beforeShell: true });
      }
      return plan;
    });
  } catch (error) {
    // The file is still good; a half-restored session must not be saved over it.
    outcome.mayWrite = false;
    outcome.problems.push(`restoring ${files.state} failed part way (${(error as Error).message}); the session will not be saved over it`);
  }
  outcome.restoredFrom = files.state;
  outcome.restoredAt = now.toISOString();
  outcome.savedAt = state.saved_at;
  outcome.panes = core.model.panes.size;
  return outcome;
}
