/**
 * The plain data the TUI's chrome is drawn from: sidebar, tab bar, pane frames, status line
 * and overlays. The controller builds it from the core; the Ink views in `components/`
 * render it offscreen. Pane contents are not in here — the compositor draws those. It lives
 * with the views (they own the shape they draw), so src/tui/ imports components/ and never
 * the other way round.
 */
import type { AgentStatus } from '../src/contract/protocol.js';
import type { Rect } from '../src/contract/rect.js';

export interface SidebarWorkspace {
  id: string;
  label: string;
  /** 1-based position, shown as the switch key. */
  index: number;
  focused: boolean;
  /** Rollup of its agents (SPEC §4): blocked > working > done > idle > unknown; null without agents. */
  badge: AgentStatus | null;
  /** A machine's heading row (SPEC §14): its workspaces follow it. Clicking it goes to the first. */
  heading?: boolean;
}

export interface SidebarAgent {
  /** Stable key (the pane id). */
  key: string;
  /** Agent name, else its kind. */
  label: string;
  /** Where it runs, e.g. `w1:t2`. */
  where: string;
  status: AgentStatus;
  /** A notification about this agent was sent and its pane has not been looked at since. */
  notified?: boolean;
  /** `done` shows until the pane is seen; kept for styling decisions. */
  seen: boolean;
  focused: boolean;
  /** The git worktree it works in (SPEC §15): shown on a line of its own below it. */
  worktree?: { branch: string; added: number | null; removed: number | null } | null;
  /** What it spent (SPEC §18), as `48k · ctx 31%`: shown on a line of its own below it; null when unknown. */
  usage?: string | null;
}

export interface TabEntry {
  id: string;
  label: string;
  index: number;
  focused: boolean;
  badge: AgentStatus | null;
}

export interface PaneFrame {
  paneId: string;
  /** The outer rectangle including the border; the pane's screen is inset by one cell. */
  rect: Rect;
  /** e.g. `w1:p2 builder · claude working`. */
  title: string;
  focused: boolean;
  zoomed: boolean;
  agentStatus: AgentStatus | null;
  /** Shown at the frame's bottom-right while the pane is scrolled back, e.g. `↑ 120/5000`. */
  scrollIndicator: string | null;
}

export interface HelpEntry {
  keys: string;
  description: string;
  /** The action id, the name `[keys]` in config.toml uses for it. */
  id?: string;
}

export type Overlay =
  | { kind: 'help'; sections: { category: string; entries: HelpEntry[] }[] }
  | { kind: 'workspace-switcher'; items: { id: string; label: string; badge: AgentStatus | null }[]; selected: number }
  | { kind: 'rename'; what: string; value: string }
  | { kind: 'confirm'; question: string };

export interface StatusLine {
  /** The prefix key was pressed and the next key is a command. */
  prefixActive: boolean;
  prefixLabel: string;
  scripting: boolean;
  /**
   * Why this client only watches (SPEC §8: "view-only: attached from inside pane w1:p2 while
   * the scripting gate is closed"), or null; shown in the hint's place, which it outranks.
   */
  viewOnly: string | null;
  /** Short hints (e.g. `ctrl+b ? help`). */
  hint: string;
  /** A transient message or a config error; it fades after a few seconds. */
  message: string | null;
  messageIsError: boolean;
}

export interface ChromeModel {
  cols: number;
  rows: number;
  /** Sidebar width in cells, 0 when hidden (terminal too narrow). */
  sidebarWidth: number;
  workspaces: SidebarWorkspace[];
  agents: SidebarAgent[];
  tabs: TabEntry[];
  frames: PaneFrame[];
  status: StatusLine;
  overlay: Overlay | null;
}
