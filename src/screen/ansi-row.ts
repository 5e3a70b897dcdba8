/**
 * One row of a cell grid as text with SGR: each run of one style opens with the style's SGR
 * from the default pen and ends with a reset, so a row can be placed anywhere (the chrome's
 * string code, components/canvas.ts) without its style bleeding into what follows.
 */
import { FLAGS } from './cell.js';
import type { CellGrid } from './cell-grid.js';
import { sgrFor } from './sgr.js';

/** Returns to the default pen. */
const RESET = '\x1b[0m';

/** Row `y` of `grid`, every cell (continuations add nothing), runs of one style sharing one SGR. */
export function gridRowToAnsi(grid: CellGrid, y: number): string {
  const { fg, bg, flags } = grid;
  let out = '';
  let text = '';
  let runStart = y * grid.cols;
  const end = runStart + grid.cols;
  const flush = (i: number): void => {
    const open = sgrFor(fg[i]!, bg[i]!, flags[i]! & FLAGS.attrMask);
    out += open === '' || text === '' ? text : open + text + RESET;
    text = '';
  };
  const { chars, clusters } = grid;
  for (let i = runStart; i < end; i++) {
    if (fg[i] !== fg[runStart] || bg[i] !== bg[runStart] || (flags[i]! & FLAGS.attrMask) !== (flags[runStart]! & FLAGS.attrMask)) {
      flush(runStart);
      runStart = i;
    }
    const code = chars[i]!;
    // Most chrome cells are one UTF-16 unit (ASCII, box drawing): no table lookup for those.
    text += code < 0xd800 && code !== 0 ? String.fromCharCode(code) : clusters.stringFor(code);
  }
  if (end > runStart) flush(runStart);
  return out;
}
