/**
 * What the chrome shows under a screen cell — a tab chip or a sidebar entry — computed with
 * the same windowing the views draw with, so a click always lands on what is under it.
 */
import type { ChromeModel } from './chrome-model.js';
import { chromeLayout } from './Chrome.js';
import { agentHeight, sidebarWindows } from './Sidebar.js';
import { visibleTabWindow } from './TabBar.js';

export type ChromeHit = { kind: 'tab'; id: string } | { kind: 'workspace'; id: string } | { kind: 'agent'; key: string };

/** The chrome entry at cell (x, y), or null. */
export function hitTest(model: ChromeModel, x: number, y: number): ChromeHit | null {
  const layout = chromeLayout(model);
  const { tabBar, sidebar } = layout;
  if (y === tabBar.y && x >= tabBar.x && x < tabBar.x + tabBar.cols) {
    const { start, end, widths } = visibleTabWindow(model.tabs, tabBar.cols);
    // A `‹` marker takes the first cell when tabs are scrolled off to the left.
    let cursor = tabBar.x + (start > 0 ? 1 : 0);
    for (let k = start; k < end; k++) {
      if (x >= cursor && x < cursor + widths[k]!) return { kind: 'tab', id: model.tabs[k]!.id };
      cursor += widths[k]!;
    }
    return null;
  }
  if (x >= sidebar.x && x < sidebar.x + sidebar.cols && y >= sidebar.y && y < sidebar.y + sidebar.rows) {
    const windows = sidebarWindows(model.workspaces, model.agents, sidebar.rows);
    const wsIndex = windows.wsWindow.start + (y - windows.firstWorkspaceRow);
    if (y >= windows.firstWorkspaceRow && wsIndex < windows.wsWindow.end) return { kind: 'workspace', id: model.workspaces[wsIndex]!.id };
    // An agent with a worktree line takes two rows; either selects it.
    let row = windows.firstAgentRow;
    for (let i = windows.agentWindow.start; i < windows.agentWindow.end; i++) {
      const agent = model.agents[i]!;
      if (y >= row && y < row + agentHeight(agent)) return { kind: 'agent', key: agent.key };
      row += agentHeight(agent);
    }
  }
  return null;
}
