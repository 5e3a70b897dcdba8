/**
 * `agent.read` and `pane.read`: a full-screen agent (one drawing on the alternate screen, so
 * our scrollback never sees its history) is scrolled through its own mouse-wheel interface
 * to gather a transcript longer than the screen, and then put back at the bottom (SPEC §5
 * "Read sources"; herdr: "the same behaviour applies to `pane read` when the pane holds such
 * an agent").
 */
import { isDeepStrictEqual } from 'node:util';
import { CorralError, type PaneRead } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import type { PaneHost } from '../pty/pane-host.js';
import { readPane, type ReadOptions } from './pane-io.js';
import type { TranscriptScroll } from '../agents/rules-schema.js';
import { transcriptRows } from '../agents/turn-screens.js';

export const SCROLL_GATHER = {
  /** Wheel notches per step; each moves a few lines in most TUIs. */
  notchesPerStep: 5,
  /** A page is settled once the screen has been quiet this long after a scroll. */
  settleMs: 80,
  /** …or after this long even if the app keeps redrawing (a cursor blink, a clock). */
  maxStepWaitMs: 600,
  /** Bound on pages read, so a huge transcript cannot hold the read forever. */
  maxPages: 60,
} as const;

/**
 * What a read that needs the transcript does while the agent is not idle: `agent read` asked
 * for the agent explicitly and is refused (`agent_not_idle`); `pane read` stays passive and
 * returns what the screen and scrollback hold, as herdr's other recent reads do.
 */
export type BusyAgentPolicy = 'refuse' | 'passive';

/** Reads an agent's pane (`agent.read`), gathering the alternate-screen transcript when needed. */
export function readAgent(core: CorralCore, pane: PaneRecord, opts: ReadOptions): Promise<PaneRead> {
  return readGathering(core, pane, opts, 'refuse');
}

/**
 * Reads a pane, gathering the transcript when a recognised full-screen agent in it is idle
 * and `recent`/`recent-unwrapped` asks for more lines than its screen holds.
 */
export async function readGathering(core: CorralCore, pane: PaneRecord, opts: ReadOptions, busy: BusyAgentPolicy): Promise<PaneRead> {
  const { read: plain } = readPane(core, pane, opts);
  const host = core.host(pane);
  const terminal = host.terminal;
  const source = opts.source ?? 'recent';
  const wantsHistory = (source === 'recent' || source === 'recent-unwrapped') && opts.lines !== undefined && opts.lines > terminal.rows;
  if (!wantsHistory || !terminal.isAlternateScreen) return plain;
  const agent = core.agents.agentIn(pane);
  // A full-screen program corral does not recognise is never scrolled: only agents are.
  if (!agent && busy === 'passive') return plain;
  // An agent corral has no rules for is not scrolled either: its transcript is the rows kept
  // while it worked (src/agents/turn-screens.ts), busy or not.
  if (agent?.rules?.generic && (opts.format ?? 'text') === 'text') return keptRead(host, agent, plain, opts.lines!);
  const status = agent?.state.status;
  if (status !== 'idle' && status !== 'done') {
    if (busy === 'passive') return plain;
    throw new CorralError('agent_not_idle', `the agent in ${pane.id} is ${status}; a transcript read scrolls it, so wait for idle (or use --source visible)`, {
      pane_id: pane.id,
    });
  }
  // An app that does not take the mouse cannot be scrolled without typing into it: stay passive.
  if (terminal.mouseTrackingMode === 'none') return plain;
  const scroll = agent?.rules?.transcriptScroll ?? 'wheel';
  const lines = await oneGatherAtATime(host, () => gatherTranscript(host, opts.lines!, scroll));
  const text = lines.slice(-opts.lines!).join('\n');
  return { ...plain, text, truncated: lines.length > opts.lines!, revision: host.outputGeneration };
}

/** The rows kept from a full-screen agent's turns, then its screen: the last `lines` of them. */
function keptRead(host: PaneHost, agent: object, plain: PaneRead, lines: number): PaneRead {
  const { rows } = transcriptRows(agent, host.terminal.read({ source: 'visible' }).text.split('\n'));
  return { ...plain, text: rows.slice(-lines).join('\n'), truncated: rows.length > lines, revision: host.outputGeneration };
}

/** The gather running (or queued last) on each pane. */
const gathers = new WeakMap<PaneHost, Promise<unknown>>();

/**
 * Runs gathers on one pane one after another: two at once (an `agent read` and a `pane read`
 * from different scripts) would scroll the same agent in opposite directions.
 */
function oneGatherAtATime<T>(host: PaneHost, gather: () => Promise<T>): Promise<T> {
  const previous = gathers.get(host) ?? Promise.resolve();
  const next = previous.then(gather, gather);
  gathers.set(host, next.catch(() => undefined));
  return next;
}

/** Scrolls up page by page until the top (or enough lines), stitches the pages, scrolls back. */
async function gatherTranscript(host: PaneHost, wanted: number, scroll: TranscriptScroll): Promise<string[]> {
  const screen = () => host.terminal.read({ source: 'visible' }).text.split('\n');
  const bottom = screen();
  const pages: string[][] = [bottom];
  let steps = 0;
  try {
    while (pages.length < SCROLL_GATHER.maxPages) {
      await scrollStep(host, scroll, 'up');
      steps++;
      const page = screen();
      if (isDeepStrictEqual(page, pages[pages.length - 1])) break;
      pages.push(page);
      if (stitch([...pages].reverse()).length >= wanted + host.terminal.rows) break;
    }
  } finally {
    // Put the viewport back where the user left it: at the bottom.
    for (let i = 0; i < steps + 2; i++) {
      await scrollStep(host, scroll, 'down');
      if (isDeepStrictEqual(screen(), bottom)) break;
    }
  }
  return stitch(pages.reverse());
}

/**
 * Joins pages ordered top to bottom — the last one the screen as the user left it, at the
 * bottom — into one run of lines. Full-screen agents keep rows fixed while their transcript
 * scrolls (a header, a prompt box and footer on every page): those rows are found as the rows
 * every scrolled page has alike at its top and bottom, and only the scrolling region between
 * them is stitched. The bottom page is not used to find them: scrolled up, Codex adds a
 * "↓ Back to bottom" row and swaps its footer hint, so its fixed rows differ from the bottom
 * page's. The bottom page is stitched whole below the rest: its footer is the one the user
 * sees, and comes once, at the end.
 */
export function stitch(pages: string[][]): string[] {
  if (pages.length < 2) return [...(pages[0] ?? [])];
  const scrolled = pages.slice(0, -1);
  const { top, bottom } = fixedRows(scrolled.length >= 2 ? scrolled : pages);
  const first = pages[0]!;
  const last = pages[pages.length - 1]!;
  const bodies = scrolled.map((page) => page.slice(top, page.length - bottom));
  let sharedTop = 0;
  while (sharedTop < top && last[sharedTop] === first[sharedTop]) sharedTop++;
  return [...first.slice(0, top), ...stitchScrolling([...bodies, last.slice(sharedTop)])];
}

/** How many rows at the top and at the bottom are the same on every page. */
export function fixedRows(pages: readonly (readonly string[])[]): { top: number; bottom: number } {
  const first = pages[0]!;
  const height = Math.min(...pages.map((page) => page.length));
  let top = 0;
  while (top < height && pages.every((page) => page[top] === first[top])) top++;
  let bottom = 0;
  const sameFromEnd = (k: number) => pages.every((page) => page[page.length - 1 - k] === first[first.length - 1 - k]);
  while (top + bottom < height && sameFromEnd(bottom)) bottom++;
  return { top, bottom };
}

/**
 * Rows at the top of a page that may be a pinned copy of an earlier line rather than new
 * text: scrolled into an answer, Codex pins the prompt it answers ("› Say hello beta") on the
 * page's first row, right above a line that in the transcript comes several rows below it.
 */
const MAX_PINNED_ROWS = 2;

/**
 * Joins scrolling regions ordered top to bottom, dropping the overlap between neighbours.
 * The overlap is the longest run at the start of a page (after up to MAX_PINNED_ROWS pinned
 * rows, each already in the transcript) that repeats the end of what is joined so far.
 */
function stitchScrolling(pages: string[][]): string[] {
  const out: string[] = [...(pages[0] ?? [])];
  for (const page of pages.slice(1)) {
    let best = { skip: 0, overlap: 0 };
    for (let skip = 0; skip <= Math.min(MAX_PINNED_ROWS, page.length); skip++) {
      if (skip > 0 && !out.includes(page[skip - 1]!)) break;
      const rest = page.slice(skip);
      for (let n = Math.min(out.length, rest.length); n > best.overlap; n--) {
        if (rest.slice(0, n).every((line, i) => line === out[out.length - n + i])) {
          best = { skip, overlap: n };
          break;
        }
      }
    }
    out.push(...page.slice(best.skip + best.overlap));
  }
  return out;
}

/** The input that scrolls the agent's view one step: wheel notches mid-pane, or one page key. */
export function scrollInput(scroll: TranscriptScroll, direction: 'up' | 'down', cols: number, rows: number): string {
  if (scroll === 'page-keys') return direction === 'up' ? '\x1b[5~' : '\x1b[6~';
  const code = direction === 'up' ? 64 : 65;
  const x = Math.max(1, Math.floor(cols / 2));
  const y = Math.max(1, Math.floor(rows / 2));
  return `\x1b[<${code};${x};${y}M`.repeat(SCROLL_GATHER.notchesPerStep);
}

/** Scrolls the agent's view one step and waits for the redraw to settle. */
function scrollStep(host: PaneHost, scroll: TranscriptScroll, direction: 'up' | 'down'): Promise<void> {
  const report = scrollInput(scroll, direction, host.terminal.cols, host.terminal.rows);
  return new Promise((resolve) => {
    let quiet: NodeJS.Timeout | null = null;
    const done = () => {
      if (quiet) clearTimeout(quiet);
      clearTimeout(cap);
      output.dispose();
      resolve();
    };
    const cap = setTimeout(done, SCROLL_GATHER.maxStepWaitMs);
    const output = host.onOutput(() => {
      if (quiet) clearTimeout(quiet);
      quiet = setTimeout(done, SCROLL_GATHER.settleMs);
    });
    quiet = setTimeout(done, SCROLL_GATHER.settleMs * 2);
    void host.write(report);
  });
}
