/**
 * Reads a pane's last N logical lines with SGR colours for the saved session, without ever
 * holding the event loop: rows are converted (src/terminal/ansi-row.ts) a slice at a time,
 * yielding between slices. Converted rows are not kept between saves: a cache of every
 * pane's last 2000 rows as SGR strings cost ~3 MB a pane (20 panes × 10k lines: server RSS
 * 206 MB with it, 136 MB without, bench/scale.mjs's workload), more than re-converting the
 * rows of a pane that changed, once per `scrollbackEveryMs`, costs in time.
 *
 * Rows are addressed by absolute number (`scrollbackFirstLine` + index), so output arriving
 * between slices (which may trim the oldest rows) shifts nothing under the reader.
 */
import { rowToAnsi } from '../terminal/ansi-row.js';
import type { PaneTerminal } from '../terminal/pane-terminal.js';

/** Rows converted per turn of the event loop. */
export const CAPTURE_SLICE_ROWS = 100;

const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ScrollbackCapture {
  constructor(private readonly terminal: PaneTerminal) {}

  /**
   * The last `lines` logical lines (wrapped rows joined), oldest first, '\n'-separated; null
   * while a full-screen program owns the alternate screen (its frame is not history).
   */
  async capture(lines: number, sliceRows = CAPTURE_SLICE_ROWS): Promise<string | null> {
    if (lines <= 0) return '';
    const terminal = this.terminal;
    if (terminal.isAlternateScreen) return null;
    const firstAbs = () => terminal.scrollbackFirstLine;
    let buffer = terminal.scrollback;
    // One past the last row that shows anything: trailing blank screen rows are not history.
    let endAbs = firstAbs() + buffer.length;
    while (endAbs > firstAbs()) {
      const line = buffer.getLine(endAbs - 1 - firstAbs());
      if (line && line.translateToString(true).trim() !== '') break;
      endAbs--;
    }
    const logical: string[] = [];
    let pieces: string[] = [];
    let visited = 0;
    for (let abs = endAbs - 1; logical.length < lines; abs--) {
      if (visited++ >= sliceRows) {
        visited = 1;
        await yieldTurn();
        if (terminal.isAlternateScreen) return null;
        buffer = terminal.scrollback;
      }
      const index = abs - firstAbs();
      if (index < 0) break; // trimmed meanwhile, or the top of the buffer
      const line = buffer.getLine(index);
      if (!line) break;
      // A row whose next row continues it keeps its written spaces; a line's last row is trimmed.
      const endsLine = !buffer.getLine(index + 1)?.isWrapped || abs === endAbs - 1;
      const trim = endsLine ? 'visual' : 'content';
      pieces.push(rowToAnsi(line, buffer.getNullCell(), trim));
      if (!line.isWrapped) {
        logical.push(pieces.reverse().join(''));
        pieces = [];
      }
    }
    if (pieces.length > 0) logical.push(pieces.reverse().join(''));
    return logical.reverse().join('\n');
  }
}
