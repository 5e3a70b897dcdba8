/**
 * A big paste into `cat` through the TUI (issue 27): the 4.3 MB paste of 40,000 lines that came
 * out scrambled (`paste line N ` and 90 letters each), pasted by the outer terminal as a
 * terminal does — between bracketed-paste markers when the program asked for them (corral's
 * client always does; tmux only when its pane's program does, so tmux gets it as typed keys) —
 * into a 160×45 corral (direct client, and the same build relayed: CORRAL_CLIENT_RELAY=1) and a
 * 160×45 tmux attached, each running
 *
 *   stty -icanon -echo; echo READY-<tag>; head -c <bytes> > out; stty sane; echo PASTED-<tag>
 *
 *   READY-<tag> on the screen → t0 → the outer terminal starts writing the paste (write(2), a
 *        1 ms timer when the pty is full: the writer never spins a core the two sides need)
 *      → `PASTED-<tag>` on the screen (a headless xterm parses the outer terminal) → t1
 *
 * Checked every run: the file is byte-identical to the paste (both translate the paste's
 * newlines to what `cat` reads as LF). Reported: seconds (median), the server's RSS growth
 * during the paste (peak VmRSS, sampled every 10 ms, minus the RSS before), and tmux's alike.
 * One small paste per side first (warm-up), then the sides alternate run by run. Target (issue 27): time ≤ tmux's in the same run, RSS growth ≤
 * 2× the paste.
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { median, round, rssMiB } from './lib.mjs';
import { CorralTui, TmuxTui } from './tui-lib.mjs';

export const description = '4.3 MB paste into cat through the TUI: corral vs tmux attached (s, MB)';

const COLS = 160;
const ROWS = 45;

/** The issue's paste: 40,000 lines, `paste line N ` and 90 letters each (4.3 MB). */
function issuePaste(lines) {
  const letters = 'abcdefghijklmnopqrstuvwxyz'.repeat(4).slice(0, 90);
  let text = '';
  for (let i = 0; i < lines; i++) text += `paste line ${i} ${letters}\n`;
  return text;
}

async function paste(side, text, out, run) {
  const tag = `${side.name.replace(/\W+/g, '')}${run}`;
  const bytes = Buffer.byteLength(text);
  const term = side.term;
  // The paste goes once the shell has run stty (before, readline's raw mode would keep its CRs).
  term.write(`clear; stty -icanon -echo; echo READY-$((${run}+1000))-${tag}; head -c ${bytes} > ${out}; stty sane; echo PASTED-$((${run}+1000))-${tag}\r`);
  await term.waitForText(`READY-${run + 1000}-${tag}`, 30_000);
  const server = side.serverPid;
  const rss0 = rssMiB(server);
  let peak = rss0;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server))), 10);
  const t0 = performance.now();
  // On the screen (the headless xterm): a frame writes only the cells that changed, so a marker
  // much like the last run's never comes as one run of text.
  const seen = term.waitForText(`PASTED-${run + 1000}-${tag}`, 120_000);
  await term.paste(text);
  const t1 = await seen;
  clearInterval(sampler);
  const got = readFileSync(out);
  const identical = got.equals(Buffer.from(text));
  return { seconds: (t1 - t0) / 1000, rssGrowthMb: ((peak - rss0) * 1024 * 1024) / 1e6, identical, size: statSync(out).size };
}

export async function run({ quick = false } = {}) {
  const runs = quick ? 1 : 3;
  const text = issuePaste(quick ? 4000 : 40_000);
  const mb = Buffer.byteLength(text) / 1e6;
  const sides = [
    Object.assign(new CorralTui({ cols: COLS, rows: ROWS }), { name: 'corral' }),
    Object.assign(new CorralTui({ cols: COLS, rows: ROWS, extraEnv: { CORRAL_CLIENT_RELAY: '1' } }), { name: 'corral relayed' }),
    new TmuxTui({ cols: COLS, rows: ROWS }),
  ];
  try {
    await Promise.all(sides.map((s) => s.ready()));
    // One small paste each first: the code paths a paste takes are compiled before any is measured.
    for (const side of sides) await paste(side, issuePaste(1000), join(side.sandbox.dir, 'warm-up.txt'), 99);
    const results = new Map(sides.map((s) => [s.name, []]));
    for (let i = 0; i < runs; i++) {
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const r = await paste(side, text, join(side.sandbox.dir, `paste-${i}.txt`), i);
        results.get(side.name).push(r);
        process.stderr.write(`  tui-paste ${side.name} run ${i + 1}: ${r.seconds.toFixed(2)} s, ${r.identical ? 'byte-identical' : `NOT identical (${r.size} bytes)`}, server RSS +${r.rssGrowthMb.toFixed(1)} MB\n`);
      }
    }
    const med = (name, key) => median(results.get(name).map((r) => r[key]));
    const identical = (name) => results.get(name).every((r) => r.identical);
    const t = med('tmux', 'seconds');
    const rows = [];
    for (const name of ['corral', 'corral relayed']) {
      const c = med(name, 'seconds');
      rows.push({
        name: `tui paste: ${round(mb, 1)} MB paste into cat, ${name} (median of ${runs}; byte-identical: ${identical(name) ? 'every run' : 'NO'})`,
        value: round(c, 2),
        unit: 's',
        baseline: `tmux attached (byte-identical: ${identical('tmux') ? 'every run' : 'NO'})`,
        baselineValue: round(t, 2),
        ratio: round(c / t),
        target: '≤ 1.0×, identical',
        pass: c <= t && identical(name),
      });
    }
    const growth = med('corral', 'rssGrowthMb');
    rows.push({
      name: 'tui paste: server RSS growth during the paste (peak − before)',
      value: round(growth, 1),
      unit: 'MB',
      baseline: 'tmux server',
      baselineValue: round(med('tmux', 'rssGrowthMb'), 1),
      target: `≤ 2× the paste (${round(2 * mb, 1)} MB)`,
      pass: growth <= 2 * mb,
    });
    return rows;
  } finally {
    await Promise.allSettled(sides.map((s) => s.close()));
  }
}
