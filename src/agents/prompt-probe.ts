/**
 * Did a typed prompt land in the agent's input? Before pressing Enter, corral looks for the
 * text on the agent's screen: an agent that is not reading its input yet (still loading a
 * resumed session, or starved on a loaded machine) drops or never shows it, and an Enter sent
 * then submits nothing or an empty line. Pure: screen rows in, a count out.
 *
 * The text is compared without whitespace and without box-drawing characters, so an input
 * box that wraps it over several rows between its borders (`│ … │`) still shows it whole.
 */

/** Past this many characters an agent may show a paste as a placeholder (`[Pasted text #1]`). */
const MAX_PROBED_CHARS = 200;
/** The end of the text is what is looked for: enough to tell it from other lines on screen. */
const PROBE_CHARS = 40;

/** Whitespace, box drawing (U+2500–U+257F) and block elements (U+2580–U+259F). */
const IGNORED = /[\s\u2500-\u259f]+/g;

/** The text without whitespace and box drawing: how a prompt is compared with a screen. */
export function squeeze(text: string): string {
  return text.replace(IGNORED, '');
}

/**
 * What to look for on screen once `text` is typed: the end of its one line, squeezed; null
 * when the text cannot be expected verbatim on screen (several lines, or long enough that an
 * agent may fold it into a placeholder), so only a change of screen can be looked for.
 */
export function promptProbe(text: string): string | null {
  if (/[\r\n]/.test(text.trim()) || text.length > MAX_PROBED_CHARS) return null;
  const squeezed = squeeze(text);
  return squeezed === '' ? null : squeezed.slice(-PROBE_CHARS);
}

/** How many times `probe` shows in `rows` (read as one text, squeezed: wrapping does not matter). */
export function probeCount(rows: readonly string[], probe: string): number {
  const text = squeeze(rows.join('\n'));
  let count = 0;
  for (let at = text.indexOf(probe); at !== -1; at = text.indexOf(probe, at + probe.length)) count++;
  return count;
}

/**
 * Did the agent visibly answer, though no rule ever saw it work? True when the screen now holds
 * a row that was not on it before the prompt was typed, shows a word, and is not the prompt
 * itself (its echo in the input box or the transcript). An answer drawn between two screen
 * checks, or an agent with no busy idiom at all, leaves exactly that; a prompt the agent
 * dropped leaves the screen as it was. Rows are compared as a multiset, trimmed.
 */
export function answeredOnScreen(before: readonly string[], now: readonly string[], text: string): boolean {
  const prompt = squeeze(text);
  const seen = new Map<string, number>();
  for (const row of before) seen.set(row.trim(), (seen.get(row.trim()) ?? 0) + 1);
  for (const raw of now) {
    const row = raw.trim();
    const left = seen.get(row) ?? 0;
    if (left > 0) {
      seen.set(row, left - 1);
      continue;
    }
    if (!/\p{L}{2}/u.test(row)) continue;
    if (showsPartOf(squeeze(row), prompt)) continue;
    return true;
  }
  return false;
}

/** Past this many characters in common, a row shows a piece of the prompt (its echo, wrapped or framed). */
const ECHO_PIECE_CHARS = 12;

/** True when `row` (squeezed) holds a piece of `prompt` (squeezed) at least ECHO_PIECE_CHARS long, or all of a shorter prompt. */
function showsPartOf(row: string, prompt: string): boolean {
  if (prompt === '') return false;
  const piece = Math.min(ECHO_PIECE_CHARS, prompt.length);
  for (let at = 0; at + piece <= row.length; at++) if (prompt.includes(row.slice(at, at + piece))) return true;
  return false;
}
