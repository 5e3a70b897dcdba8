/** A yes/no question (closing a busy pane, quitting with agents running): `question  y/n`. */
import { Box } from 'ink';
import { PaintedLine } from './Painted.js';
import { centredRect, renderBoxed, type OverlayRender } from './overlay-box.js';
import { THEME } from './theme.js';
import { clean, textWidth, truncate } from './text-cells.js';

const CONFIRM = {
  // Border (2) and padding (2).
  chrome: 4,
  rows: 3,
  minWidth: 30,
  answer: '  y/n',
} as const;

/** Sizes and renders the question; the text is cleaned (it may hold a peer's command line). */
export function renderConfirm(question: string, cols: number, rows: number): OverlayRender | null {
  const text = clean(question);
  const rect = centredRect(cols, rows, Math.max(CONFIRM.minWidth, textWidth(text + CONFIRM.answer) + CONFIRM.chrome), CONFIRM.rows);
  if (!rect) return null;
  const inner = Math.max(0, rect.cols - CONFIRM.chrome);
  const shown = truncate(text, Math.max(0, inner - textWidth(CONFIRM.answer)));
  const body = (
    <Box paddingX={1}>
      <PaintedLine parts={[{ text: shown, style: THEME.focusedText }, { text: CONFIRM.answer, style: THEME.helpKeys }]} />
    </Box>
  );
  return { text: renderBoxed(rect, body, { footer: [{ text: 'y yes · n/esc no', style: THEME.muted }] }), rect };
}
