/** The bottom row: prefix state, scripting gate and hint on the left; the message on the right. */
import { Box } from 'ink';
import type { StatusLine as StatusLineModel } from './chrome-model.js';
import type { Segment } from './canvas.js';
import { segmentsWidth } from './box.js';
import { PaintedLine } from './Painted.js';
import { THEME } from './theme.js';
import { textWidth, truncate } from './text-cells.js';

const STATUS = {
  // Cells between the left part and the message, so they never run together.
  gap: 1,
} as const;

/** Prefix chip and scripting gate: the part that must stay visible. */
export function statusLeft(status: StatusLineModel): Segment[] {
  return [
    status.prefixActive
      ? { text: ' PREFIX ', style: THEME.prefixActive }
      : { text: ` ${truncate(status.prefixLabel, 12)} `, style: THEME.prefixIdle },
    { text: ' ' },
    status.scripting ? { text: 'scripting: on', style: THEME.scriptingOn } : { text: 'scripting: off', style: THEME.scriptingOff },
  ];
}

export interface StatusLineProps {
  status: StatusLineModel;
  width: number;
}

export function StatusLine({ status, width }: StatusLineProps) {
  const left = statusLeft(status);
  const leftWidth = segmentsWidth(left);
  // The message (often an error to act on) beats the hint, but not the prefix chip or gate.
  const message = status.message ? truncate(status.message, width - leftWidth - STATUS.gap) : '';
  const messageWidth = message === '' ? 0 : textWidth(message) + STATUS.gap;
  // A view-only client is told why in the hint's place: it matters more than the help key.
  const hintText = status.viewOnly ?? status.hint;
  // Cut here rather than by Ink: Ink's … would eat the end of the gate, not the hint.
  const hint = hintText ? truncate(`  ${hintText}`, width - leftWidth - messageWidth) : '';
  return (
    <Box width={width} height={1} overflow="hidden">
      <Box flexGrow={1} flexShrink={1} overflow="hidden">
        <PaintedLine parts={[...left, { text: hint, style: status.viewOnly ? THEME.error : THEME.muted }]} />
      </Box>
      {message !== '' && (
        <Box flexShrink={0} marginLeft={STATUS.gap}>
          <PaintedLine parts={[{ text: message, style: status.messageIsError ? THEME.error : THEME.message }]} />
        </Box>
      )}
    </Box>
  );
}
