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

function squeeze(text: string): string {
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
