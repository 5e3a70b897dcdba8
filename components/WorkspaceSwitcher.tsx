/** The workspace switcher: every workspace with its badge, the selected one highlighted. */
import { Box } from 'ink';
import type { Overlay } from './chrome-model.js';
import { badgeFor } from './badges.js';
import type { Segment } from './canvas.js';
import { listWindow } from './list-window.js';
import { Painted, PaintedLine } from './Painted.js';
import { centredRect, overlayLimits, renderBoxed, type OverlayRender } from './overlay-box.js';
import { THEME } from './theme.js';
import { fit, textWidth } from './text-cells.js';

type SwitcherModel = Extract<Overlay, { kind: 'workspace-switcher' }>;
type SwitcherItem = SwitcherModel['items'][number];

const SWITCHER = {
  // Wide enough for the footer's key hints and a typical name without looking like a tooltip.
  minWidth: 34,
  // Cells around a label in a row: space, badge, space, "N ", then a trailing space; plus the border.
  rowChrome: 6,
} as const;

/** ` ● 2 web      `: badge, switch number, label; the selected row inverse after the badge. */
export function switcherRow(item: SwitcherItem, position: number, selected: boolean, width: number): Segment[] {
  const badge = badgeFor(item.badge);
  return [
    { text: ' ' },
    { text: badge.glyph, style: badge.style },
    { text: ' ' },
    { text: fit(` ${position} ${item.label}`, Math.max(0, width - 3)), style: selected ? THEME.selected : undefined },
  ];
}

export interface WorkspaceSwitcherProps {
  items: readonly SwitcherItem[];
  selected: number;
  width: number;
  height: number;
}

export function WorkspaceSwitcher({ items, selected, width, height }: WorkspaceSwitcherProps) {
  const win = listWindow(items.length, height, selected);
  return (
    <Box flexDirection="column" width={width} height={height}>
      {items.length === 0 && <Painted style={THEME.muted}> no workspaces</Painted>}
      {items.slice(win.start, win.end).map((item, k) => (
        <PaintedLine key={item.id} parts={switcherRow(item, win.start + k + 1, win.start + k === selected, width)} />
      ))}
      {win.hidden > 0 && <Painted style={THEME.muted}>{`   +${win.hidden} more`}</Painted>}
    </Box>
  );
}

/** Sizes and renders the switcher for a screen of cols × rows. */
export function renderSwitcher(model: SwitcherModel, cols: number, rows: number): OverlayRender | null {
  const limits = overlayLimits(cols, rows);
  let longest = 0;
  for (const item of model.items) longest = Math.max(longest, textWidth(item.label) + String(model.items.length).length);
  const rect = centredRect(cols, rows, Math.max(SWITCHER.minWidth, longest + SWITCHER.rowChrome + 2), Math.min(limits.rows, Math.max(1, model.items.length) + 2));
  if (!rect) return null;
  const width = rect.cols - 2;
  const height = rect.rows - 2;
  const text = renderBoxed(rect, <WorkspaceSwitcher items={model.items} selected={model.selected} width={width} height={height} />, {
    title: [{ text: 'Workspaces', style: THEME.overlayTitle }],
    footer: [{ text: '↑↓ enter esc', style: THEME.muted }],
  });
  return { text, rect };
}
