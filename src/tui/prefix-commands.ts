/**
 * What each prefix command does (SPEC §12: `c` new tab, `v`/`-` split, `h j k l` focus, `x`
 * close, `z` zoom, …), given the controller's parts it needs. The key routing (which key is
 * which command, repeats, overlays) is src/tui/key-routes.ts; this is the doing.
 */
import type { CommandId } from '../config/keybindings.js';
import { neighbor } from '../session/layout.js';
import type { PaneRecord } from '../session/model.js';
import { encodePaste } from '../terminal/paste.js';
import type { Notifier } from '../notify/notifier.js';
import { nextAttention, type OverlayState, type RenameTarget } from './chrome-builder.js';
import type { ClientCore } from './client-view.js';
import type { CopyModes } from './copy-mode/copy-modes.js';
import { openReview, type ReviewHost } from './review.js';
import { busyProgram, currentName, nextPaneInTab, type FocusHistory } from './tui-actions.js';

/** Cells one resize key moves a border: columns are narrower than rows are tall. */
const RESIZE_STEP = { cols: 2, rows: 1 } as const;

/** What a prefix command may use of the controller. */
export interface CommandHost {
  core: ClientCore;
  copy: CopyModes;
  notifier: Notifier;
  focusHistory: FocusHistory;
  review: ReviewHost;
  /** The prefix key's bytes (`send_prefix` types them into the pane). */
  prefixBytes: string;
  sendToFocused(data: string, pane?: PaneRecord): void;
  openOverlay(overlay: OverlayState): void;
  flash(text: string, error: boolean): void;
  detach(): void;
}

/** The rename prompt for a pane, tab or workspace, holding its name now. */
function openRename(host: CommandHost, target: RenameTarget): void {
  host.openOverlay({ kind: 'rename', target, value: currentName(host.core, target) });
}

/** Runs one prefix command; `key` is the key that named it (`select_tab` reads its digit). */
export function runPrefixCommand(host: CommandHost, command: CommandId, key: string): void {
  const core = host.core;
  const pane = core.model.focusedPane();
  switch (command) {
    case 'send_prefix':
      host.sendToFocused(host.prefixBytes);
      return;
    case 'help':
      host.openOverlay({ kind: 'help' });
      return;
    case 'detach':
      // Ends nothing, so asks nothing: the panes keep running in the server.
      return host.detach();
    case 'toggle_scripting':
      core.setScripting(!core.scripting);
      host.flash(`scripting gate ${core.scripting ? 'open: scripts may submit input' : 'closed'}`, false);
      return;
    case 'new_workspace':
      core.createWorkspace({ cwd: pane ? core.paneCwd(pane) : process.cwd() });
      return;
    case 'workspace_switcher': {
      const ids = [...core.model.workspaces.keys()];
      host.openOverlay({ kind: 'workspace-switcher', selected: Math.max(0, ids.indexOf(core.model.focusedWorkspace ?? '')) });
      return;
    }
    case 'next_workspace':
    case 'prev_workspace': {
      const ids = [...core.model.workspaces.keys()];
      if (ids.length === 0) return;
      const at = ids.indexOf(core.model.focusedWorkspace ?? '');
      const step = command === 'next_workspace' ? 1 : -1;
      core.focusWorkspace(ids[(at + step + ids.length) % ids.length]!);
      return;
    }
    case 'next_attention': {
      const target = nextAttention(core, pane?.id ?? null);
      if (target) core.focusPane(target);
      else host.flash('no agent needs attention', false);
      return;
    }
  }
  if (!pane) return;
  const tab = core.model.tab(pane.tabId);
  const workspace = core.model.workspace(pane.workspaceId);
  switch (command) {
    case 'new_tab':
      core.createTab({ workspaceId: workspace.id, cwd: core.paneCwd(pane) });
      return;
    case 'split_right':
    case 'split_down':
      core.splitPane(pane.id, command === 'split_right' ? 'right' : 'down');
      return;
    case 'focus_left':
    case 'focus_right':
    case 'focus_up':
    case 'focus_down': {
      const direction = command.slice('focus_'.length) as 'left' | 'right' | 'up' | 'down';
      const target = neighbor(core.tabRects(tab), pane.id, direction);
      if (target) core.focusPane(target);
      return;
    }
    case 'close_pane': {
      const busy = busyProgram(core, pane);
      if (busy === null) core.closePane(pane.id);
      else host.openOverlay({ kind: 'confirm', question: `Close pane ${pane.id}? ${busy} is running in it`, onYes: () => core.closePane(pane.id) });
      return;
    }
    case 'last_pane': {
      const last = host.focusHistory.last(core);
      if (last) core.focusPane(last);
      else host.flash('no last pane', false);
      return;
    }
    case 'next_pane': {
      const next = nextPaneInTab(core, pane);
      if (next) core.focusPane(next);
      return;
    }
    case 'resize_left':
    case 'resize_right':
    case 'resize_up':
    case 'resize_down': {
      const direction = command.slice('resize_'.length) as 'left' | 'right' | 'up' | 'down';
      const cells = direction === 'left' || direction === 'right' ? RESIZE_STEP.cols : RESIZE_STEP.rows;
      if (tab.zoomedPane) core.zoomPane(pane.id, false);
      core.resizePane(pane.id, direction, cells);
      return;
    }
    case 'rename_tab':
      openRename(host, { kind: 'tab', id: tab.id });
      return;
    case 'rename_workspace':
      openRename(host, { kind: 'workspace', id: workspace.id });
      return;
    case 'mute_pane': {
      const muted = host.notifier.toggleMute(pane.surfaceId);
      host.flash(`notifications from ${pane.id} ${muted ? 'muted' : 'on'}`, false);
      return;
    }
    case 'zoom':
      core.zoomPane(pane.id);
      return;
    case 'next_tab':
    case 'prev_tab': {
      const tabs = workspace.tabs;
      const at = tabs.indexOf(tab.id);
      const step = command === 'next_tab' ? 1 : -1;
      core.focusTab(tabs[(at + step + tabs.length) % tabs.length]!);
      return;
    }
    case 'select_tab': {
      const target = workspace.tabs[Number(key) - 1];
      if (target) core.focusTab(target);
      else host.flash(`no tab ${key}`, true);
      return;
    }
    case 'rename':
      openRename(host, { kind: 'pane', id: pane.id });
      return;
    case 'copy_mode':
      host.copy.enter(pane);
      return;
    case 'review':
      void openReview(host.review, pane);
      return;
    case 'paste_buffer':
      if (host.copy.buffer === '') return host.flash('the paste buffer is empty: copy something in copy mode first', false);
      host.copy.exit(pane.id);
      // As a paste from the outer terminal: bracketed when the app asked for it.
      host.sendToFocused(encodePaste(host.copy.buffer, core.view(pane).bracketedPasteMode), pane);
      return;
  }
}
