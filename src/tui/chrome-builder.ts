/**
 * Builds the chrome model (what the sidebar, tab bar, frames and status line show) from the
 * core's state and the TUI's own state. Pure with respect to the screen: no drawing here.
 */
import type { ClientCore } from './client-view.js';
import type { AgentUsage, AgentWorktree } from '../contract/protocol.js';
import { usageSummary } from '../contract/usage-format.js';
import { COMMANDS, commandKeys, type CommandId } from '../config/keybindings.js';
import type { ChromeModel, HelpEntry, Overlay, PaneFrame, SidebarAgent, SidebarWorkspace, TabEntry } from '../../components/chrome-model.js';
import { tabRollup, workspaceRollup } from '../core/views.js';
import { offsetRect, type ScreenGeometry } from '../../components/geometry.js';
import { intersectRect } from '../contract/rect.js';
import { visibleControls as shown } from '../terminal/control-chars.js';

/** TUI state the chrome shows. */
export interface UiState {
  prefixActive: boolean;
  prefixLabel: string;
  overlay: OverlayState | null;
  message: { text: string; error: boolean } | null;
  /** A label for a pane's frame (e.g. "copy mode"), by pane id. */
  frameLabels: ReadonlyMap<string, string>;
  keyOverrides: Readonly<Record<string, string>>;
  /** Notification marks and mutes per surface (null before the notifier exists). */
  notify: { isMarked(surfaceId: number): boolean; isMuted(surfaceId: number): boolean } | null;
  /** Why this client's input does not reach panes now (view-only, SPEC §8), or null. */
  inputRefusal: () => string | null;
}

export type OverlayState =
  | { kind: 'help' }
  | { kind: 'workspace-switcher'; selected: number }
  | { kind: 'rename'; target: RenameTarget; value: string }
  | { kind: 'confirm'; question: string; onYes: () => void };

/** What the rename prompt renames. */
export type RenameTarget = { kind: 'pane' | 'tab' | 'workspace'; id: string };

/** `ctrl+b ? help`, with the prefix and help key in force (both can be configured). */
export function statusHint(ui: Pick<UiState, 'keyOverrides' | 'prefixLabel'>): string {
  return `${ui.prefixLabel} ${commandKeys('help', ui.keyOverrides, ui.prefixLabel)[0]} help`;
}

/** The frames of the focused tab's visible panes, in screen cells. */
export function visibleFrames(core: ClientCore, geometry: ScreenGeometry): { paneId: string; surfaceId: number; rect: PaneFrame['rect'] }[] {
  const pane = core.model.focusedPane();
  if (!pane) return [];
  const tab = core.model.tab(pane.tabId);
  const rects = core.tabRects(tab);
  const frames = [];
  for (const [paneId, rect] of rects) {
    // The tab is laid out for the most recently active client (SPEC §1): on a smaller one the
    // frames are clipped to its main area, on a larger one the rest stays empty.
    const clipped = intersectRect(offsetRect(rect, geometry.main), geometry.main);
    if (clipped) frames.push({ paneId, surfaceId: core.model.pane(paneId).surfaceId, rect: clipped });
  }
  return frames;
}

/**
 * Everything the chrome views draw. Every text that came from a pane or a peer (labels,
 * names, titles, messages) goes through `shown` (visibleControls): ESC, OSC, C1 appear as
 * `^[`, `\x9b` and cannot act on the user's terminal (SPEC §8).
 */
export function buildChrome(core: ClientCore, geometry: ScreenGeometry, ui: UiState, size: { cols: number; rows: number }): ChromeModel {
  const model = core.model;
  const focusedPane = model.focusedPane();
  const workspaces: SidebarWorkspace[] = [...model.workspaces.values()].map((w, i) => ({
    id: w.id,
    label: shown(w.label),
    index: i + 1,
    focused: model.focusedWorkspace === w.id,
    badge: workspaceRollup(core, w),
  }));
  // Other machines (SPEC §14): a heading with its state and round trip, then its workspaces.
  for (const machine of core.machines?.() ?? []) {
    const at = workspaces.findIndex((w) => w.id.startsWith(`${machine.name}/`));
    const latency = machine.latencyMs === null ? '' : ` ${Math.round(machine.latencyMs)}ms`;
    const heading: SidebarWorkspace = { id: `machine:${machine.name}`, label: shown(`${machine.label} · ${machine.state}${latency}`), index: 0, focused: false, badge: null, heading: true };
    workspaces.splice(at === -1 ? workspaces.length : at, 0, heading);
  }
  const focusedWorkspace = model.focusedWorkspace ? model.workspaces.get(model.focusedWorkspace) : undefined;
  const tabs: TabEntry[] = (focusedWorkspace?.tabs ?? []).map((id, i) => ({
    id,
    label: shown(model.tab(id).label),
    index: i + 1,
    // Asked of the model, not read from the record: a client's own tab (src/tui/client-view.ts).
    focused: model.isTabFocused(model.tab(id)),
    badge: tabRollup(core, model.tab(id)),
  }));
  const frames: PaneFrame[] = visibleFrames(core, geometry).map(({ paneId, rect }) => {
    const pane = model.pane(paneId);
    const tab = model.tab(pane.tabId);
    const scrollIndicator = ui.frameLabels.get(paneId) ?? null;
    return {
      paneId,
      rect,
      title: paneTitle(core, paneId) + (ui.notify?.isMuted(pane.surfaceId) ? ' · muted' : '') + machineNote(core, paneId),
      focused: focusedPane?.id === paneId,
      zoomed: tab.zoomedPane === paneId,
      agentStatus: core.agents.agentIn(pane)?.state.status ?? null,
      scrollIndicator,
    };
  });
  return {
    cols: size.cols,
    rows: size.rows,
    sidebarWidth: geometry.sidebarWidth,
    workspaces,
    agents: sidebarAgents(core, ui),
    tabs,
    frames,
    status: {
      prefixActive: ui.prefixActive,
      prefixLabel: ui.prefixLabel,
      scripting: core.scripting,
      viewOnly: ui.inputRefusal(),
      hint: statusHint(ui),
      message: ui.message ? shown(ui.message.text) : null,
      messageIsError: ui.message?.error ?? false,
    },
    overlay: overlayModel(core, ui),
  };
}

/** Every live agent, for the sidebar. */
function sidebarAgents(core: ClientCore, ui: Pick<UiState, 'notify'>): SidebarAgent[] {
  const focused = core.model.focusedPane();
  return [...core.agents.agents()].map(({ pane, agent }) => ({
    key: pane.id,
    label: shown(agent.name ?? agent.kind),
    where: pane.tabId,
    status: agent.state.status,
    notified: ui.notify?.isMarked(pane.surfaceId) ?? false,
    seen: agent.state.seen,
    focused: focused?.id === pane.id,
    // Kept current by events (src/actions/worktree-watch.ts): reading it runs no git.
    worktree: sidebarWorktree(core.worktrees?.forPane(pane) ?? null),
    usage: sidebarUsage(core.agents.usageOf?.(pane) ?? null),
  }));
}

/** `48k · ctx 31%` (SPEC §18), or null while the agent's usage is unknown. */
function sidebarUsage(usage: AgentUsage | null): string | null {
  return usage ? usageSummary(usage) : null;
}

/** An agent's worktree for the sidebar: the branch came from a repository, so its controls are made visible. */
function sidebarWorktree(worktree: AgentWorktree | null): SidebarAgent['worktree'] {
  return worktree ? { branch: shown(worktree.branch), added: worktree.added, removed: worktree.removed } : null;
}

/** `w1:p2 builder · claude working` — id, name, and the agent (or the app's title). */
function paneTitle(core: ClientCore, paneId: string): string {
  const pane = core.model.pane(paneId);
  const parts = [pane.id];
  if (pane.name) parts.push(pane.name);
  const agent = core.agents.agentIn(pane);
  if (agent) parts.push(`· ${agent.name ? `${agent.name} ` : ''}${agent.kind} ${agent.state.status}`);
  else {
    const title = core.view(pane).title;
    if (title) parts.push(`· ${title}`);
  }
  return shown(parts.join(' '));
}

/** ` · reconnecting` on a pane of a machine whose link is not up (its keys are refused meanwhile). */
function machineNote(core: ClientCore, paneId: string): string {
  const slash = paneId.indexOf('/');
  if (slash <= 0) return '';
  const machine = core.machines?.().find((m) => m.name === paneId.slice(0, slash));
  return machine && machine.state !== 'connected' ? ` · ${machine.state}` : '';
}

/** The next agent that needs the user: blocked ones first, then finished (done) ones. */
export function nextAttention(core: ClientCore, after: string | null): string | null {
  const entries = [...core.agents.agents()];
  for (const wanted of ['blocked', 'done'] as const) {
    const candidates = entries.filter(({ agent }) => agent.state.status === wanted).map(({ pane }) => pane.id);
    if (candidates.length === 0) continue;
    const at = after ? candidates.indexOf(after) : -1;
    return candidates[(at + 1) % candidates.length]!;
  }
  return null;
}

function overlayModel(core: ClientCore, ui: UiState): Overlay | null {
  const overlay = ui.overlay;
  if (!overlay) return null;
  switch (overlay.kind) {
    case 'help':
      return { kind: 'help', sections: helpSections(ui) };
    case 'workspace-switcher':
      return {
        kind: 'workspace-switcher',
        selected: overlay.selected,
        items: [...core.model.workspaces.values()].map((w) => ({ id: w.id, label: shown(w.label), badge: null })),
      };
    case 'rename':
      return { kind: 'rename', what: `${overlay.target.kind} ${overlay.target.id}`, value: overlay.value };
    case 'confirm':
      return { kind: 'confirm', question: overlay.question };
  }
}

/** Keys as the help lists them; a run of digits 1…9 is one short entry, so the keys column stays narrow. */
function helpKeys(keys: readonly string[]): string {
  const text = keys.join(' ');
  return text === '1 2 3 4 5 6 7 8 9' ? '1…9' : text;
}

/** The help overlay, generated from the keybindings table. */
export function helpSections(ui: Pick<UiState, 'keyOverrides' | 'prefixLabel'>): { category: string; entries: HelpEntry[] }[] {
  const sections = new Map<string, HelpEntry[]>();
  for (const [id, spec] of Object.entries(COMMANDS) as [CommandId, (typeof COMMANDS)[CommandId]][]) {
    const keys = commandKeys(id, ui.keyOverrides, ui.prefixLabel);
    const entries = sections.get(spec.category) ?? [];
    entries.push({ keys: helpKeys(keys), description: spec.description, id });
    sections.set(spec.category, entries);
  }
  return [...sections].map(([category, entries]) => ({ category: `${category} (after ${ui.prefixLabel})`, entries }));
}
