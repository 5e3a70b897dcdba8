/** The rename prompt: one input line, `Rename <what>: value▏`. */
import { Box } from 'ink';
import { PaintedLine } from './Painted.js';
import { centredRect, renderBoxed, type OverlayRender } from './overlay-box.js';
import { GLYPH, THEME } from './theme.js';
import { clean, textWidth, truncateStart } from './text-cells.js';

const RENAME = {
  // Room to type a name without the box resizing on every key for typical names.
  minWidth: 44,
  // Border (2), padding (2) and the input cursor (1).
  chrome: 5,
  // The box is the border plus the input line.
  rows: 3,
  // Cells of the value kept visible however long the prompt: you must see what you type.
  minValue: 8,
} as const;

/**
 * The prompt and the visible end of the value for an interior `width` cells wide. The
 * prompt shortens in steps (never to a cut-off word) so the value keeps RENAME.minValue cells.
 */
export function renameParts(what: string, value: string, width: number): { prompt: string; value: string } {
  const inner = Math.max(0, width - 2 - 1);
  const name = clean(what);
  const prompt = [`Rename ${name}: `, `${name}: `, ''].find((p) => textWidth(p) + RENAME.minValue <= inner) ?? '';
  return { prompt, value: truncateStart(value, inner - textWidth(prompt)) };
}

export function RenameOverlay({ prompt, value }: { prompt: string; value: string }) {
  return (
    <Box paddingX={1}>
      <PaintedLine parts={[{ text: prompt, style: THEME.muted }, { text: value, style: THEME.focusedText }, { text: GLYPH.inputCursor, style: THEME.inputCursor }]} />
    </Box>
  );
}

/** Sizes and renders the rename prompt; `cursor` is where typed text goes (after the value). */
export function renderRename(what: string, value: string, cols: number, rows: number): OverlayRender | null {
  const want = textWidth(`Rename ${what}: ${value}`) + RENAME.chrome + 1;
  const rect = centredRect(cols, rows, Math.max(RENAME.minWidth, want), RENAME.rows);
  if (!rect) return null;
  const parts = renameParts(what, value, rect.cols - 2);
  const text = renderBoxed(rect, <RenameOverlay prompt={parts.prompt} value={parts.value} />, {
    footer: [{ text: 'enter ok · esc cancel', style: THEME.muted }],
  });
  const cursor = { x: rect.x + 2 + textWidth(parts.prompt) + textWidth(parts.value), y: rect.y + 1 };
  return { text, rect, cursor };
}
