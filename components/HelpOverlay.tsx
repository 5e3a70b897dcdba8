/** The help overlay: key bindings by category, keys in one column and descriptions in the next. */
import { Box } from 'ink';
import type { HelpEntry } from './chrome-model.js';
import { Painted } from './Painted.js';
import { centredRect, overlayLimits, renderBoxed, type OverlayRender } from './overlay-box.js';
import { THEME } from './theme.js';
import { fit, textWidth, truncate } from './text-cells.js';

const HELP = {
  // Wider than this and the eye has to travel too far from a key to its description (ids sit between).
  maxColumnWidth: 100,
  // Narrower than this a second column would truncate most descriptions.
  minColumnWidth: 34,
  // Keys wider than this share of a column get truncated: descriptions matter more.
  maxKeysShare: 0.4,
  // Cells between keys and description, and between the two columns.
  keyGap: 2,
  columnGap: 3,
  // Keeps the box from collapsing around an empty or tiny help list.
  minWidth: 24,
  // Fewer description cells than this and the action ids are left out of the help.
  minDescription: 20,
  // One space inside the border on each side.
  paddingX: 1,
} as const;

export type HelpSection = { category: string; entries: HelpEntry[] };
export type HelpRow = { kind: 'heading'; text: string } | { kind: 'entry'; keys: string; description: string; id?: string } | { kind: 'blank' };

/** Sections flattened into lines: heading, entries, a blank line between sections. */
export function helpRows(sections: readonly HelpSection[]): HelpRow[] {
  const rows: HelpRow[] = [];
  for (const section of sections) {
    if (rows.length > 0) rows.push({ kind: 'blank' });
    rows.push({ kind: 'heading', text: section.category });
    for (const e of section.entries) rows.push({ kind: 'entry', keys: e.keys, description: e.description, id: e.id });
  }
  return rows;
}

/**
 * Splits rows into `columns` columns of at most `capacity` lines, breaking at a section
 * heading when one lets both halves fit; rows that fit nowhere are cut off and counted.
 */
export function helpColumns(rows: readonly HelpRow[], capacity: number, columns: 1 | 2): { columns: HelpRow[][]; hidden: number } {
  const cap = Math.max(0, capacity);
  if (columns === 1 || rows.length <= cap) {
    const shown = rows.slice(0, cap);
    return { columns: [shown], hidden: rows.length - shown.length };
  }
  let split = Math.min(cap, rows.length);
  let best = Infinity;
  rows.forEach((row, i) => {
    const balance = Math.abs(i - rows.length / 2);
    if (row.kind === 'heading' && i > 0 && i <= cap && rows.length - i <= cap && balance < best) {
      best = balance;
      split = i;
    }
  });
  const first = rows.slice(0, split);
  while (first.length > 0 && first[first.length - 1].kind === 'blank') first.pop();
  const rest = rows.slice(split);
  const second = rest.slice(0, cap);
  return { columns: [first, second], hidden: rest.length - second.length };
}

function HelpColumn({ rows, width, keysWidth, idWidth }: { rows: readonly HelpRow[]; width: number; keysWidth: number; idWidth: number }) {
  // The action id (the config name) sits between keys and description; it goes first when cramped.
  const withIds = idWidth > 0 && width - keysWidth - HELP.keyGap - idWidth - HELP.keyGap >= HELP.minDescription;
  const descWidth = Math.max(0, width - keysWidth - HELP.keyGap - (withIds ? idWidth + HELP.keyGap : 0));
  return (
    <Box flexDirection="column" width={width} flexShrink={0}>
      {rows.map((row, i) => {
        if (row.kind === 'blank') return <Painted key={i}> </Painted>;
        if (row.kind === 'heading') return <Painted key={i} style={THEME.heading}>{truncate(row.text, width)}</Painted>;
        return (
          <Box key={i}>
            <Box width={keysWidth + HELP.keyGap} flexShrink={0}>
              <Painted style={THEME.helpKeys}>{fit(row.keys, keysWidth)}</Painted>
            </Box>
            {withIds && (
              <Box width={idWidth + HELP.keyGap} flexShrink={0}>
                <Painted style={THEME.muted}>{fit(row.id ?? '', idWidth)}</Painted>
              </Box>
            )}
            <Painted>{truncate(row.description, descWidth)}</Painted>
          </Box>
        );
      })}
    </Box>
  );
}

export interface HelpOverlayProps {
  columns: HelpRow[][];
  hidden: number;
  columnWidth: number;
  keysWidth: number;
  idWidth: number;
}

export function HelpOverlay({ columns, hidden, columnWidth, keysWidth, idWidth }: HelpOverlayProps) {
  return (
    <Box flexDirection="column" paddingX={HELP.paddingX}>
      <Box columnGap={HELP.columnGap}>
        {columns.map((rows, i) => (
          <HelpColumn key={i} rows={rows} width={columnWidth} keysWidth={keysWidth} idWidth={idWidth} />
        ))}
      </Box>
      {hidden > 0 && <Painted style={THEME.muted}>{`… ${hidden} more lines: enlarge the terminal`}</Painted>}
    </Box>
  );
}

/** Sizes, lays out and renders the help overlay for a screen of cols × rows. */
export function renderHelp(sections: readonly HelpSection[], cols: number, rows: number): OverlayRender | null {
  const limits = overlayLimits(cols, rows);
  const all = helpRows(sections);
  let keysWidth = 0;
  let idWidth = 0;
  let descWidth = 0;
  let headingWidth = 0;
  for (const row of all) {
    if (row.kind === 'entry') {
      keysWidth = Math.max(keysWidth, textWidth(row.keys));
      idWidth = Math.max(idWidth, textWidth(row.id ?? ''));
      descWidth = Math.max(descWidth, textWidth(row.description));
    }
    if (row.kind === 'heading') headingWidth = Math.max(headingWidth, textWidth(row.text));
  }
  const idColumn = idWidth > 0 ? idWidth + HELP.keyGap : 0;
  let contentWidth = Math.max(headingWidth, keysWidth + HELP.keyGap + idColumn + descWidth);
  contentWidth = Math.max(contentWidth, HELP.minWidth);
  const chrome = 2 + 2 * HELP.paddingX; // border + padding, per box
  const capacity = limits.rows - 2;
  const twoColumns = all.length > capacity && (limits.cols - chrome - HELP.columnGap) / 2 >= HELP.minColumnWidth;
  const columnWidth = twoColumns
    ? Math.min(HELP.maxColumnWidth, Math.floor((limits.cols - chrome - HELP.columnGap) / 2), contentWidth)
    : Math.min(HELP.maxColumnWidth, limits.cols - chrome, contentWidth);
  // Squeeze the keys only when the column is too narrow for keys and descriptions both.
  if (columnWidth < keysWidth + HELP.keyGap + idColumn + descWidth) keysWidth = Math.min(keysWidth, Math.floor(columnWidth * HELP.maxKeysShare));
  let laid = helpColumns(all, capacity, twoColumns ? 2 : 1);
  // Cut off? Then one line goes to saying so.
  if (laid.hidden > 0) laid = helpColumns(all, capacity - 1, twoColumns ? 2 : 1);
  const height = Math.max(...laid.columns.map((c) => c.length)) + (laid.hidden > 0 ? 1 : 0);
  const width = laid.columns.length * columnWidth + (laid.columns.length - 1) * HELP.columnGap;
  const rect = centredRect(cols, rows, width + chrome, height + 2);
  if (!rect) return null;
  const text = renderBoxed(rect, <HelpOverlay columns={laid.columns} hidden={laid.hidden} columnWidth={columnWidth} keysWidth={keysWidth} idWidth={idWidth} />, {
    title: [{ text: 'Help', style: THEME.overlayTitle }],
    footer: [{ text: 'esc close', style: THEME.muted }],
  });
  return { text, rect };
}
