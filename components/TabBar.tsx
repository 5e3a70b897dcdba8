/** The tab bar: the focused workspace's tabs, ` 1:api ● `, the focused one highlighted. */
import { Box } from 'ink';
import type { TabEntry } from './chrome-model.js';
import { badgeFor } from './badges.js';
import type { Segment } from './canvas.js';
import { segmentsWidth } from './box.js';
import { PaintedLine } from './Painted.js';
import { GLYPH, THEME } from './theme.js';
import { truncate } from './text-cells.js';

const TAB = {
  // Long labels would push the other tabs out of view; tmux caps window names similarly.
  maxLabel: 20,
} as const;

/** One tab: a ` 1:api ` chip (inverse when focused), then its badge and a gap. */
export function tabSegments(tab: TabEntry): Segment[] {
  const badge = badgeFor(tab.badge);
  const chip = ` ${tab.index}:${truncate(tab.label, TAB.maxLabel)} `;
  return [{ text: chip, style: tab.focused ? THEME.selected : undefined }, { text: badge.glyph, style: badge.style }, { text: ' ' }];
}

/**
 * The tabs that fit in `width` cells, scrolled so the focused tab is visible, with `‹`/`›`
 * where tabs are cut off.
 */
export function tabBarSegments(tabs: readonly TabEntry[], width: number): Segment[] {
  const pieces = tabs.map(tabSegments);
  const { start, end } = visibleTabWindow(tabs, width);
  const out: Segment[] = [];
  if (start > 0) out.push({ text: GLYPH.moreLeft, style: THEME.muted });
  for (let k = start; k < end; k++) out.push(...pieces[k]);
  if (end < tabs.length) out.push({ text: GLYPH.moreRight, style: THEME.muted });
  return out;
}

/** The tabs shown (`start` to `end`, exclusive) and each one's cell width; shared with hit-testing. */
export function visibleTabWindow(tabs: readonly TabEntry[], width: number): { start: number; end: number; widths: number[] } {
  const widths = tabs.map(tabSegments).map(segmentsWidth);
  const n = tabs.length;
  const focus = Math.max(0, tabs.findIndex((t) => t.focused));
  const fits = (start: number, end: number): boolean => {
    let w = (start > 0 ? 1 : 0) + (end < n ? 1 : 0);
    for (let k = start; k < end; k++) w += widths[k];
    return w <= width;
  };
  let start = 0;
  while (start < focus && !fits(start, Math.min(n, focus + 1))) start++;
  let end = Math.min(n, focus + 1);
  while (end < n && fits(start, end + 1)) end++;
  return { start, end, widths };
}

export interface TabBarProps {
  tabs: readonly TabEntry[];
  width: number;
}

export function TabBar({ tabs, width }: TabBarProps) {
  return (
    <Box width={width} height={1} overflow="hidden">
      <PaintedLine parts={tabBarSegments(tabs, width)} />
    </Box>
  );
}
