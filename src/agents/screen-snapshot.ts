/**
 * The plain view of a pane that screen rules read (SPEC §4 "Screen"): visible lines, the
 * OSC 0/2 title and the OSC 9;4 progress report. Kept free of xterm so rules and their
 * tests work on captured text alone.
 */

/** What screen rules see of a pane. */
export interface ScreenSnapshot {
  /** The visible screen rows, plain text; trailing blank rows may or may not be present. */
  lines: string[];
  /** The last OSC 0/2 title ('' when none was set). */
  title: string;
  /** `4;<state>;<value>` from the last OSC 9;4 report, '' when none was ever sent. */
  progress: string;
}

/** The OSC 9;4 report as rules match it: `4;3;0`, or '' when the agent never sent one. */
export function progressString(progress: { state: number; value: number } | null | undefined): string {
  return progress ? `4;${progress.state};${progress.value}` : '';
}

/** A snapshot from screen text (e.g. a capture-pane dump or a `detection` read). */
export function snapshotFromText(text: string, title = '', progress = ''): ScreenSnapshot {
  return { lines: text.split(/\r?\n/), title, progress };
}

/** Index one past the last line that shows anything: `bottom:N` counts back from here. */
export function contentEnd(lines: readonly string[]): number {
  let end = lines.length;
  while (end > 0 && !/\S/.test(lines[end - 1])) end--;
  return end;
}
