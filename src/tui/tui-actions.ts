/**
 * Decisions behind some TUI commands, kept out of the controller: what runs in a pane (to
 * ask before closing it), the next pane in a tab, the last focused pane, and renaming.
 */
import type { ClientCore } from './client-view.js';
import type { PaneRecord } from '../session/model.js';
import { leaves } from '../session/layout.js';
import type { RenameTarget } from './chrome-builder.js';

/**
 * What keeps a pane busy — an agent or a foreground program — described for a y/n question;
 * null when its shell sits at its prompt (or the process already exited).
 */
export function busyProgram(core: ClientCore, pane: PaneRecord): string | null {
  const agent = core.agents.agentIn(pane);
  if (agent) return `${agent.name ?? agent.kind} (${agent.state.status})`;
  const argv0 = core.paneForegroundProgram(pane);
  if (argv0 === null) return null;
  return argv0 ? argv0.split('/').pop()! : 'a program';
}

/** The pane after `pane` in its tab's reading order, wrapping; null with one pane. */
export function nextPaneInTab(core: ClientCore, pane: PaneRecord): string | null {
  const ids = leaves(core.model.tab(pane.tabId).layout);
  if (ids.length < 2) return null;
  return ids[(ids.indexOf(pane.id) + 1) % ids.length]!;
}

/** Remembers the pane focused before the current one (tmux's last-pane), across tabs. */
export class FocusHistory {
  private current: string | null = null;
  private previous: string | null = null;

  /** Called whenever focus may have changed. */
  observe(focused: string | null): void {
    if (focused === this.current) return;
    if (this.current !== null) this.previous = this.current;
    this.current = focused;
  }

  /** The last focused pane if it still exists. */
  last(core: ClientCore): string | null {
    return this.previous !== null && core.model.findPane(this.previous) ? this.previous : null;
  }
}

/** The name shown in the rename prompt to start from. */
export function currentName(core: ClientCore, target: RenameTarget): string {
  switch (target.kind) {
    case 'pane':
      return core.model.pane(target.id).name ?? '';
    case 'tab':
      return core.model.tab(target.id).label;
    case 'workspace':
      return core.model.workspace(target.id).label;
  }
}

/**
 * Applies a rename typed into the prompt. An empty pane name clears it; tabs and
 * workspaces always have a label, so an empty one leaves it as it was.
 */
export function applyRename(core: ClientCore, target: RenameTarget, typed: string): void {
  const value = typed.trim();
  switch (target.kind) {
    case 'pane':
      if (core.model.findPane(target.id)) core.renamePane(target.id, value);
      return;
    case 'tab':
      if (value !== '' && core.model.tabs.has(target.id)) core.renameTab(target.id, value);
      return;
    case 'workspace':
      if (value !== '' && core.model.workspaces.has(target.id)) core.renameWorkspace(target.id, value);
      return;
  }
}
