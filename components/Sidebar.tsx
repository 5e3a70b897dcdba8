/** The sidebar: workspaces with their rollup badges, then every agent with its state. */
import { Box } from 'ink';
import type { SidebarAgent, SidebarWorkspace } from './chrome-model.js';
import { BADGE, BADGE_WORD_WIDTH, badgeFor } from './badges.js';
import type { Segment } from './canvas.js';
import { listWindow, listWindowByHeight } from './list-window.js';
import { Painted, PaintedLine } from './Painted.js';
import { GLYPH, THEME } from './theme.js';
import { fit, textWidth, truncate } from './text-cells.js';

const SIDEBAR = {
  // Heading, blank separator and AGENTS heading: lines that are not list entries.
  fixedLines: 3,
  // Below this many label cells the `where` column goes, then the status word: names first
  // (most agent names and kinds, `claude`, `reviewer`, fit in 8).
  minLabel: 8,
} as const;

export interface SidebarProps {
  workspaces: readonly SidebarWorkspace[];
  agents: readonly SidebarAgent[];
  /** Content width, without the border column. */
  width: number;
  height: number;
}

function marker(focused: boolean): Segment {
  return focused ? { text: GLYPH.focusBar, style: THEME.focusMarker } : { text: ' ' };
}

/** `▌1 api          ● `: focus bar, switch key, label, rollup badge; a machine's heading is one muted line. */
export function workspaceRow(ws: SidebarWorkspace, width: number): Segment[] {
  if (ws.heading) return [{ text: ' ' }, { text: fit(ws.label, Math.max(0, width - 1)), style: THEME.heading }];
  const badge = badgeFor(ws.badge);
  const index = String(ws.index);
  const labelWidth = Math.max(0, width - textWidth(index) - 4);
  return [
    marker(ws.focused),
    { text: index, style: ws.focused ? THEME.focusedText : THEME.muted },
    { text: ' ' },
    { text: fit(ws.label, labelWidth), style: ws.focused ? THEME.focusedText : undefined },
    { text: ' ' },
    { text: badge.glyph, style: badge.style },
  ];
}

/** `▌✔ builder  w1:t2 done   `: focus bar, badge, label, where, status word. */
export function agentRow(agent: SidebarAgent, width: number): Segment[] {
  const badge = BADGE[agent.status];
  const whereWidth = textWidth(agent.where);
  // marker + glyph + space, then a space before each optional column.
  let labelWidth = width - 3;
  const withWord = labelWidth - (BADGE_WORD_WIDTH + 1) >= SIDEBAR.minLabel;
  if (withWord) labelWidth -= BADGE_WORD_WIDTH + 1;
  const withWhere = whereWidth > 0 && labelWidth - (whereWidth + 1) >= SIDEBAR.minLabel;
  if (withWhere) labelWidth -= whereWidth + 1;
  // An unseen `done` is news: its name is bold too, not only its badge.
  const labelStyle = agent.focused || agent.status === 'done' ? THEME.focusedText : undefined;
  const row: Segment[] = [
    // A notified agent keeps a mark in the focus column until its pane is looked at.
    agent.notified && !agent.focused ? { text: GLYPH.notified, style: THEME.notifyMark } : marker(agent.focused),
    { text: badge.glyph, style: badge.style },
    { text: ' ' },
    { text: fit(agent.label, Math.max(0, labelWidth)), style: labelStyle },
  ];
  if (withWhere) row.push({ text: ' ' }, { text: truncate(agent.where, whereWidth), style: THEME.muted });
  if (withWord) row.push({ text: ' ' }, { text: fit(badge.word, BADGE_WORD_WIDTH), style: badge.wordStyle });
  return row;
}

/** Lines an agent takes: its row, its worktree's line when it works in one, its usage line once known. */
export function agentHeight(agent: SidebarAgent): number {
  return 1 + (agent.worktree ? 1 : 0) + (agent.usage ? 1 : 0);
}

/** `   48k · ctx 31%`: what the agent spent and how full its context is, under its row. */
export function usageRow(agent: SidebarAgent, width: number): Segment[] {
  return [{ text: '   ' }, { text: truncate(agent.usage ?? '', Math.max(0, width - 3)), style: THEME.muted }];
}

/** `   ⎇ corral/fix +12 −3`: the agent's branch and its diff size, under its row. */
export function worktreeRow(agent: SidebarAgent, width: number): Segment[] {
  const wt = agent.worktree!;
  const counts: Segment[] =
    wt.added === null || wt.removed === null
      ? []
      : [{ text: ' ' }, { text: `+${wt.added}`, style: THEME.added }, { text: ' ' }, { text: `\u2212${wt.removed}`, style: THEME.removed }];
  const countsWidth = counts.reduce((n, s) => n + textWidth(s.text), 0);
  const branchWidth = Math.max(0, width - 5 - countsWidth);
  return [{ text: `   ${GLYPH.branch} ` }, { text: truncate(wt.branch, branchWidth), style: THEME.muted }, ...counts];
}

/**
 * Which workspaces and agents the sidebar shows, and where: shared by the view and by the
 * mouse hit-test so a click lands on the entry drawn under it.
 */
export function sidebarWindows(workspaces: readonly SidebarWorkspace[], agents: readonly SidebarAgent[], height: number) {
  const focusedWs = workspaces.findIndex((w) => w.focused);
  // Workspaces get what they need, but leave room for at least one agent line.
  const wsWindow = listWindow(workspaces.length, Math.max(1, height - SIDEBAR.fixedLines - 1), focusedWs);
  const wsLines = wsWindow.end - wsWindow.start + (wsWindow.hidden > 0 ? 1 : 0);
  const agentCapacity = Math.max(0, height - SIDEBAR.fixedLines - wsLines);
  const agentWindow = listWindowByHeight(agents.map(agentHeight), agentCapacity, agents.findIndex((a) => a.focused));
  // Row 0 is the WORKSPACES heading; agents follow a blank row and the AGENTS heading.
  const firstAgentRow = 1 + wsLines + 2 + (agents.length === 0 ? 1 : 0);
  return { wsWindow, agentWindow, firstWorkspaceRow: 1, firstAgentRow };
}

/** The sidebar's content (the caller draws the border column). */
export function Sidebar({ workspaces, agents, width, height }: SidebarProps) {
  const { wsWindow, agentWindow } = sidebarWindows(workspaces, agents, height);
  return (
    // No fixed height: Ink would process every blank row; renderBlock pads the block instead.
    <Box flexDirection="column" width={width}>
      <Painted style={THEME.heading}> WORKSPACES</Painted>
      {workspaces.slice(wsWindow.start, wsWindow.end).map((ws) => (
        <PaintedLine key={ws.id} parts={workspaceRow(ws, width)} />
      ))}
      {wsWindow.hidden > 0 && <Painted style={THEME.muted}>{`  +${wsWindow.hidden} more`}</Painted>}
      <Painted> </Painted>
      <Painted style={THEME.heading}> AGENTS</Painted>
      {agents.length === 0 && <Painted style={THEME.muted}>  no agents yet</Painted>}
      {agents.slice(agentWindow.start, agentWindow.end).flatMap((agent) => [
        <PaintedLine key={agent.key} parts={agentRow(agent, width)} />,
        ...(agent.worktree ? [<PaintedLine key={`${agent.key}:worktree`} parts={worktreeRow(agent, width)} />] : []),
        ...(agent.usage ? [<PaintedLine key={`${agent.key}:usage`} parts={usageRow(agent, width)} />] : []),
      ])}
      {agentWindow.hidden > 0 && <Painted style={THEME.muted}>{`  +${agentWindow.hidden} more`}</Painted>}
    </Box>
  );
}
