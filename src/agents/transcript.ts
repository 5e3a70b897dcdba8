/**
 * `agent.read`: like `pane.read`, except that a full-screen agent (one drawing on the
 * alternate screen, so our scrollback never sees its history) is scrolled through its own
 * mouse-wheel interface to gather a transcript longer than the screen, and then put back
 * at the bottom (SPEC §5 "Read sources").
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

/** Reads an agent's pane, gathering the alternate-screen transcript when needed. */
export async function readAgent(core: CorralCore, pane: PaneRecord, opts: ReadOptions): Promise<PaneRead> {
  const { total_lines: _t, end_line: _e, line_count: _l, ...plain } = readPane(core, pane, opts);
  const host = core.host(pane);
  const terminal = host.terminal;
  const source = opts.source ?? 'recent';
  const wantsHistory = (source === 'recent' || source === 'recent-unwrapped') && opts.lines !== undefined && opts.lines > terminal.rows;
  if (!wantsHistory || !terminal.isAlternateScreen) return plain;
  const agent = core.agents.agentIn(pane);
  const status = agent?.state.status;
  if (status !== 'idle' && status !== 'done') {
    throw new CorralError('agent_not_idle', `the agent in ${pane.id} is ${status}; a transcript read scrolls it, so wait for idle (or use --source visible)`, {
      pane_id: pane.id,
    });
  }
  // An app that does not take the mouse cannot be scrolled without typing into it: stay passive.
  if (terminal.mouseTrackingMode === 'none') return plain;
  const lines = await gatherTranscript(host, opts.lines!);
  const text = lines.slice(-opts.lines!).join('\n');
  return { ...plain, text, truncated: lines.length > opts.lines!, revision: host.outputGeneration };
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

/** Joins pages ordered top to bottom, dropping the overlap between neighbours. */
export function stitch(pages: string[][]): string[] {
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
