/**
 * Cost of a width change with a full scrollback, compact store on against off (xterm alone):
 * two pane terminals fed the same 10,000+ rows, then resized 160 ↔ 120 columns alternately,
 * on and off interleaved; after each change the store's deferred encoding (what it does once the
 * pane is quiet) is run and timed apart. Two outputs: plain lines (~60 characters, none wraps) and
 * soft-wrapped lines (0–300 characters each, so many rows wrap at both widths). Run by
 * bench/scrollback-resize.mjs (bundled, in-process).
 */
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

export interface ResizeCase {
  name: string;
  /** Median CPU ms per width change, store on / off. */
  onMs: number;
  offMs: number;
  /** Median CPU ms the store then spends encoding the rows the change left raw (when the pane is quiet). */
  encodeMs: number;
}

function lines(kind: 'plain' | 'wrapped', count: number): string {
  let seed = 0x1234567;
  const rand = (n: number): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return (seed >>> 0) % n;
  };
  const words = ['alpha', 'beta', 'gamma', 'delta', 'src/terminal/scrollback.ts:42', 'error:', '\x1b[32mok\x1b[0m', '→', '界面'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const target = kind === 'plain' ? 50 + rand(20) : rand(300);
    let line = `${i}`;
    while (line.length < target) line += ` ${words[rand(words.length)]}`;
    out.push(line);
  }
  return out.join('\r\n') + '\r\n';
}

async function filled(kind: 'plain' | 'wrapped', compact: boolean, rows: number): Promise<PaneTerminal> {
  const t = new PaneTerminal({ cols: 160, rows: 48, scrollback: rows, compactScrollback: compact });
  const text = lines(kind, kind === 'plain' ? rows + 2000 : rows);
  for (let i = 0; i < text.length; i += 8192) await t.write(text.slice(i, i + 8192));
  t.compactScrollbackNow();
  return t;
}

/** CPU milliseconds of this process (user + system): unlike wall time, not inflated by other processes on a loaded machine. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

/** Median CPU ms per width change for each output, store on and off, `rounds` changes each. */
export async function benchmarkResize(rounds = 10, rows = 10_000): Promise<ResizeCase[]> {
  const cases: ResizeCase[] = [];
  for (const kind of ['plain', 'wrapped'] as const) {
    const on = await filled(kind, true, rows);
    const off = await filled(kind, false, rows);
    const times = { on: [] as number[], off: [] as number[], encode: [] as number[] };
    for (let i = 0; i < rounds; i++) {
      const cols = i % 2 === 0 ? 120 : 160;
      for (const [name, t] of i % 2 === 0 ? ([['on', on], ['off', off]] as const) : ([['off', off], ['on', on]] as const)) {
        const t0 = cpuMs();
        t.resize(cols, 48);
        times[name].push(cpuMs() - t0);
        if (name === 'on') {
          // What the quiet-time encoder does next, timed apart: each change starts from a quiet store.
          const e0 = cpuMs();
          t.compactScrollbackNow();
          times.encode.push(cpuMs() - e0);
        }
      }
    }
    on.dispose();
    off.dispose();
    cases.push({ name: kind, onMs: median(times.on), offMs: median(times.off), encodeMs: median(times.encode) });
  }
  return cases;
}
