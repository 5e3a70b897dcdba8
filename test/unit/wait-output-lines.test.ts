/** Which unwrapped lines `pane.wait_for_output` matches on its `recent` source (src/actions/pane-io.ts). */
import { describe, expect, it } from 'vitest';
import { logicalLinesInRows } from '../../src/actions/pane-io.js';

describe('logicalLinesInRows', () => {
  // Rows 10-12 are one wrapped line, 13 a short line, 14-15 another wrapped line; 16 is one past the end.
  const text = 'aaaWRAPPED\nshort\nbbbTAIL';
  const starts = [10, 13, 14];

  it('keeps every line that reaches into the last N rows, whole', () => {
    expect(logicalLinesInRows(text, starts, 16, 1)).toEqual(['bbbTAIL']);
    expect(logicalLinesInRows(text, starts, 16, 3)).toEqual(['short', 'bbbTAIL']);
    // Row 12 is the wrapped line's last row: the whole line counts, though it starts at row 10.
    expect(logicalLinesInRows(text, starts, 16, 4)).toEqual(['aaaWRAPPED', 'short', 'bbbTAIL']);
    expect(logicalLinesInRows(text, starts, 16, 80)).toEqual(['aaaWRAPPED', 'short', 'bbbTAIL']);
  });

  it('an empty read has no lines', () => {
    expect(logicalLinesInRows('', [], 0, 80)).toEqual([]);
  });
});
