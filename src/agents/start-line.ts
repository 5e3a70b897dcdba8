/**
 * The rows above the command that started an agent are not its screen. When corral types an
 * agent's command (`agent start`, or a restore resuming one), the shell echoes it on a row;
 * what is above that row was there before the agent ran: a restored pane's saved scrollback,
 * the last screen of an agent that quit. Read as the new agent's screen, an old composer there
 * says "ready" before the new agent reads its input (a resumed Gemini CLI loads its history
 * for seconds first, and a prompt typed then is lost), an old dialog says "blocked".
 *
 * So detection reads only the rows below that echo for as long as the echo is where it was:
 * once the agent clears the screen, switches to the alternate screen, draws over the row or
 * scrolls it away, every row is its own again. Pure: rows in, rows out.
 */

/** The echoed command's row: its absolute row number (as `PaneTerminal.endLine` counts) and text. */
export interface StartLine {
  row: number;
  text: string;
}

/** A command longer than this many rows of the pane is not looked for (a paste, not a command). */
const MAX_ROWS = 8;

/** Text compared without whitespace: a wrap at a space leaves it off the row's trimmed text. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * The lowest of `rows` (the screen's rows, the first at absolute row `firstRow`) where the
 * shell's echo of the typed `command` ends: a row that ends with it, or with its last part
 * when it wrapped over the rows above. Null when no row does (it scrolled away, or was drawn
 * over): then nothing is hidden.
 */
export function findStartLine(rows: readonly string[], firstRow: number, command: string): StartLine | null {
  const typed = squeeze(command);
  if (typed === '') return null;
  for (let i = rows.length - 1; i >= 0; i--) {
    if (squeeze(rows[i]!) === '') continue;
    let joined = '';
    for (let j = i; j >= Math.max(0, i - MAX_ROWS + 1); j--) {
      joined = squeeze(rows[j]!) + joined;
      if (joined.endsWith(typed)) return { row: firstRow + i, text: rows[i]!.trimEnd() };
      // The rows above belong to the command only while what is joined is part of its end.
      if (!typed.endsWith(joined)) break;
    }
  }
  return null;
}

/**
 * Where the agent's screen starts, found when it is first seen: the echo of its command, or,
 * when the echo is not on screen yet and `lastRowIfNoEcho` (a restored pane: the agent can be
 * running before the shell's output is read), the last row shown, since all of it is older
 * than the agent. Not for a command typed at a live prompt: there a missing echo means the
 * agent already cleared it, and the last row is the agent's own. Null for a blank screen.
 */
export function startLineAtAdoption(rows: readonly string[], firstRow: number, command: string, lastRowIfNoEcho = true): StartLine | null {
  const echo = findStartLine(rows, firstRow, command);
  if (echo || !lastRowIfNoEcho) return echo;
  for (let i = rows.length - 1; i >= 0; i--) if (rows[i]!.trim() !== '') return { row: firstRow + i, text: rows[i]!.trimEnd() };
  return null;
}

/**
 * The rows the agent drew: those below `line` while it is still on screen as it was echoed;
 * `line: null` in the result when it is gone (the agent took the whole screen: keep nothing
 * back from now on).
 */
export function rowsBelowStartLine(rows: readonly string[], firstRow: number, line: StartLine): { rows: readonly string[]; line: StartLine | null } {
  const at = line.row - firstRow;
  if (at < 0 || at >= rows.length || rows[at]!.trimEnd() !== line.text) return { rows, line: null };
  return { rows: rows.slice(at + 1), line };
}
