/**
 * `agent.read` and `pane.read`: a full-screen agent (one drawing on the alternate screen, so
 * our scrollback never sees its history) is scrolled through its own mouse-wheel interface
 * to gather a transcript longer than the screen, and then put back at the bottom (SPEC §5
 * "Read sources"; herdr: "the same behaviour applies to `pane read` when the pane holds such
 * an agent").
 */
import { CorralError, type PaneRead } from '../rpc/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import type { PaneHost } from '../pty/pane-host.js';
import { readPane, type ReadOptions } from '../core/pane-io.js';

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
  const status = agent?.state.status;
  if (status !== 'idle' && status !== 'done') {
    if (busy === 'passive') return plain;
    throw new CorralError('agent_not_idle', `the agent in ${pane.id} is ${status}; a transcript read scrolls it, so wait for idle (or use --source visible)`, {
      pane_id: pane.id,
    });
  }
  // An app that does not take the mouse cannot be scrolled without typing into it: stay passive.
  if (terminal.mouseTrackingMode === 'none') return plain;
  const lines = await oneGatherAtATime(host, () => gatherTranscript(host, opts.lines!));
  const text = lines.slice(-opts.lines!).join('\n');
  return { ...plain, text, truncated: lines.length > opts.lines!, revision: host.outputGeneration };
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
async function gatherTranscript(host: PaneHost, wanted: number): Promise<string[]> {
  const screen = () => host.terminal.read({ source: 'visible' }).text.split('\n');
  const bottom = screen();
  const pages: string[][] = [bottom];
  let steps = 0;
  try {
    while (pages.length < SCROLL_GATHER.maxPages) {
      await wheel(host, 'up');
      steps++;
      const page = screen();
      if (samePage(page, pages[pages.length - 1]!)) break;
      pages.push(page);
      if (stitch([...pages].reverse()).length >= wanted + host.terminal.rows) break;
    }
  } finally {
    // Put the viewport back where the user left it: at the bottom.
    for (let i = 0; i < steps + 2; i++) {
      await wheel(host, 'down');
      if (samePage(screen(), bottom)) break;
    }
  }
  return stitch(pages.reverse());
}

function samePage(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * Joins pages ordered top to bottom into one run of lines. Full-screen agents keep rows fixed
 * while their transcript scrolls (a header, a prompt box and footer on every page): those
 * rows are found as the rows every page has alike at its top and bottom, taken once, and
 * only the scrolling region between them is stitched, so the footer is not repeated.
 */
export function stitch(pages: string[][]): string[] {
  if (pages.length < 2) return [...(pages[0] ?? [])];
  const { top, bottom } = fixedRows(pages);
  const bodies = pages.map((page) => page.slice(top, page.length - bottom));
  const last = pages[pages.length - 1]!;
  return [...pages[0]!.slice(0, top), ...stitchScrolling(bodies), ...last.slice(last.length - bottom)];
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

/** Joins scrolling regions ordered top to bottom, dropping the overlap between neighbours. */
function stitchScrolling(pages: string[][]): string[] {
  const out: string[] = [...(pages[0] ?? [])];
  for (const page of pages.slice(1)) {
    let overlap = 0;
    for (let n = Math.min(out.length, page.length); n > 0; n--) {
      if (page.slice(0, n).every((line, i) => line === out[out.length - n + i])) {
        overlap = n;
        break;
      }
    }
    out.push(...page.slice(overlap));
  }
  return out;
}

/** Sends wheel notches in the middle of the pane and waits for the redraw to settle. */
function wheel(host: PaneHost, direction: 'up' | 'down'): Promise<void> {
  const code = direction === 'up' ? 64 : 65;
  const x = Math.max(1, Math.floor(host.terminal.cols / 2));
  const y = Math.max(1, Math.floor(host.terminal.rows / 2));
  const report = `\x1b[<${code};${x};${y}M`.repeat(SCROLL_GATHER.notchesPerStep);
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
