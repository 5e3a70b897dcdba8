/**
 * An agent's answer from its screen text (issue 29), for kinds that keep no session record
 * corral can read: the rows between a prompt corral submitted and the agent's input area, with
 * its UI taken out — the kind's `[answer_screen]` chrome rows, rows drawn only of box and block
 * characters (rules, box edges, bars), blank rows around the answer, the answer's bullet, and
 * the indentation the agent sets every answer row in. Pure: the caller reads the pane.
 */
import type { ScreenAnswerSpec } from './answer-spec.js';

/** Where an unknown agent's input area starts: a prompt glyph at the row's start. */
const GENERIC_INPUT_RE = /^\s*[│┃]?\s*[›❯>](\s|$)/u;
/** A row drawn only of box-drawing and block characters (and spaces): frame, never text. */
const FRAME_ROW_RE = /^[\s\u2500-\u259f]*$/u;
/** Glyphs an agent puts before a prompt it echoes (and the frame around it). */
const PROMPT_LEAD_RE = /^[\s\u2500-\u259f›❯>]*/u;
/** The bullet an agent puts before the first row of an answer (Claude ●/⏺, Codex •, Gemini ✦, Qwen ◆). */
const ANSWER_BULLET_RE = /^(\s*)([●⏺•✦◆][\uFE0E\uFE0F]?[ \t]+)/u;
/** How much of a prompt's start identifies its row: enough to be specific, short enough to fit a narrow pane. */
const PROMPT_PROBE_CHARS = 40;

function normalize(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A row as echoed prompt text: without the prompt glyph and frame before it. */
function promptText(row: string): string {
  return normalize(row.replace(PROMPT_LEAD_RE, ''));
}

/** The rows [start, end) of prompt `prompt` echoed above row `limit`, the bottom-most; null when not shown. */
function findPrompt(lines: readonly string[], prompt: string, limit: number): { start: number; end: number } | null {
  const whole = normalize(prompt);
  if (whole === '') return null;
  const probe = whole.slice(0, PROMPT_PROBE_CHARS);
  for (let row = limit - 1; row >= 0; row--) {
    const shown = promptText(lines[row]!);
    if (!shown.startsWith(probe) && !(shown.length > 0 && shown === whole)) continue;
    // A long prompt wraps: the rows after it that continue its text are the prompt too.
    let rest = whole.slice(shown.length).trimStart();
    let end = row + 1;
    while (rest !== '' && end < limit) {
      const next = promptText(lines[end]!);
      if (next === '' || !rest.startsWith(next)) break;
      rest = rest.slice(next.length).trimStart();
      end++;
    }
    return { start: row, end };
  }
  return null;
}

/** Display columns of leading spaces plus a bullet (variation selectors take none). */
function bulletColumns(lead: string, bullet: string): number {
  return lead.length + bullet.replace(/[\uFE0E\uFE0F]/gu, '').length;
}

/** One answer's rows as text: UI rows out, blank edges trimmed, bullet and common indent gone. */
export function cleanAnswerRows(rows: readonly string[], chrome: readonly RegExp[]): string {
  const kept = rows.filter((row) => row.trim() === '' || (!FRAME_ROW_RE.test(row) && !chrome.some((re) => re.test(row))));
  while (kept.length > 0 && kept[0]!.trim() === '') kept.shift();
  while (kept.length > 0 && kept[kept.length - 1]!.trim() === '') kept.pop();
  if (kept.length === 0) return '';
  const bullet = ANSWER_BULLET_RE.exec(kept[0]!);
  const first = bullet ? kept[0]!.slice(bullet[0].length) : kept[0]!.trimStart();
  const indent = bullet ? bulletColumns(bullet[1]!, bullet[2]!) : kept[0]!.length - kept[0]!.trimStart().length;
  const dedent = (row: string) => row.slice(Math.min(indent, row.length - row.trimStart().length));
  return [first, ...kept.slice(1).map(dedent)].map((row) => row.trimEnd()).join('\n');
}

/** The rows cut where the sidebar starts (the first row it shows on says where), trailing spaces gone. */
function withoutSidebar(lines: readonly string[], sidebar: RegExp | null): readonly string[] {
  if (sidebar === null) return lines;
  for (const line of lines) {
    const at = sidebar.exec(line)?.index ?? 0;
    if (at > 0) return lines.map((row) => row.slice(0, at).trimEnd());
  }
  return lines;
}

/** Whether the prompt's start shows in the input area (from `limit` down): typed, not sent. */
function inInputArea(lines: readonly string[], prompt: string, limit: number): boolean {
  const probe = normalize(prompt).slice(0, PROMPT_PROBE_CHARS);
  return probe !== '' && lines.slice(limit).some((row) => promptText(row).startsWith(probe));
}

/** The row where the agent's input area starts: the bottom-most match (the screen's end when none). */
export function inputRow(lines: readonly string[], spec: ScreenAnswerSpec | null): number {
  const re = spec?.input ?? GENERIC_INPUT_RE;
  for (let row = lines.length - 1; row >= 0; row--) if (re.test(lines[row]!)) return row;
  let end = lines.length;
  while (end > 0 && lines[end - 1]!.trim() === '') end--;
  return end;
}

/**
 * The answers to the last `turns` of `prompts` (oldest first, as typed) that the screen still
 * shows, oldest first; null when none of them is on screen (scrolled away, or corral typed
 * none). An answer ends at the next prompt, the last at the input area.
 */
export function answersFromScreen(screen: readonly string[], prompts: readonly string[], spec: ScreenAnswerSpec | null, turns: number): string[] | null {
  const lines = withoutSidebar(screen, spec?.sidebar ?? null);
  const chrome = spec?.chrome ?? [];
  const answers: string[] = [];
  let limit = inputRow(lines, spec);
  for (let i = prompts.length - 1; i >= 0 && answers.length < turns; i--) {
    const found = findPrompt(lines, prompts[i]!, limit);
    // The newest prompt may be typed and not sent: it is in the input area, not above it.
    if (!found && answers.length === 0 && i === prompts.length - 1 && inInputArea(lines, prompts[i]!, limit)) continue;
    if (!found) break;
    answers.unshift(cleanAnswerRows(lines.slice(found.end, limit), chrome));
    limit = found.start;
  }
  if (answers.length > 0) return answers;
  return answersAfterEchoes(lines, spec, chrome, inputRow(lines, spec), turns);
}

/**
 * Without a prompt corral typed on screen (a person typed it, or a program did): the rows the
 * input pattern matches above the input area are taken as echoed prompts (Claude's "❯ …",
 * Codex's "› …"), one line each. Frame and chrome rows are never a prompt.
 */
export function answersAfterEchoes(lines: readonly string[], spec: ScreenAnswerSpec | null, chrome: readonly RegExp[], input: number, turns: number): string[] | null {
  const re = spec?.input ?? GENERIC_INPUT_RE;
  const answers: string[] = [];
  let limit = input;
  for (let row = input - 1; row >= 0 && answers.length < turns; row--) {
    const line = lines[row]!;
    if (!re.test(line) || FRAME_ROW_RE.test(line) || chrome.some((c) => c.test(line))) continue;
    answers.unshift(cleanAnswerRows(lines.slice(row + 1, limit), chrome));
    limit = row;
  }
  return answers.length === 0 ? null : answers;
}
