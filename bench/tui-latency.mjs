/**
 * Keystroke-to-echo latency through the whole TUI, and bytes written to the outer terminal
 * per echoed keystroke: corral's TUI vs tmux attached, each in its own node-pty of the same
 * size (120×40), with the same shell (`bash --norc --noprofile`, PS1='$ ').
 *
 * For each keystroke: write one printable letter to the outer pty and time until a chunk
 * of the outer program's output contains that letter (escape sequences stripped: corral's
 * frames carry `ESC[?2026h`/`l`). The two sides alternate keystroke by keystroke (the side
 * going first alternates too), with a 20–40 ms pause after each echo — typing speed, and
 * longer than corral's 16 ms frame interval, so frame pacing does not add to an echo. Every
 * 40 letters the line is cleared with ctrl+u (not timed). Bytes per keystroke: everything
 * the outer program wrote from the keystroke until the next one (median).
 *
 * Targets (issue): p50 ≤ 1.3× tmux (issue 12; issue 2 had 1.5×), p95 < 16 ms; bytes per keystroke in the tens.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, percentile, round, maxOf } from './lib.mjs';
import { CorralTui, LETTERS, PassthroughTui, TmuxTui, clearLine, keyGap, startFlood, typeAndStamp, warmUp } from './tui-lib.mjs';
import { FAKE_DIR } from './agent-lib.mjs';

export const description = 'keystroke echo through the TUI: corral vs tmux attached (ms, bytes)';

const COLS = 120;
const ROWS = 40;
const LINE = 40;

/** Types `ch` and resolves with the echo latency (ms); rejects after timeoutMs. */
export async function typeAndTime(side, ch, timeoutMs = 2000) {
  const [written, seen] = await typeAndStamp(side, ch, timeoutMs);
  return seen - written;
}

/** `count` letters typed into `side`, a key gap apart; their echo latencies (ms). */
export async function timeKeys(side, count, timeoutMs = 5000) {
  const times = [];
  for (let i = 0; i < count; i++) {
    times.push(await typeAndTime(side, LETTERS[i % LETTERS.length], timeoutMs));
    await keyGap();
  }
  return times;
}

/**
 * Echo in a bold pen (issue 32 §4): the shell left `ESC[1m` on, as an agent drawing its own
 * input line in a style does, so each echo is a styled cell. Corral and tmux alternate key by
 * key (the side going first alternating too); `n` keys each. Returns rows: p50 and p95 with
 * their ratios to tmux.
 */
async function echoInBoldPen(sides, n) {
  for (const side of sides) {
    side.term.write("printf '\\033[1m'; clear\r");
    await side.term.settle(300, 5000);
  }
  const ms = new Map(sides.map((s) => [s.name, []]));
  for (let i = 0; i < n; i++) {
    const ch = LETTERS[i % LETTERS.length];
    for (const side of i % 2 === 0 ? sides : [...sides].reverse()) {
      ms.get(side.name).push(await typeAndTime(side, ch));
      await keyGap();
    }
    if ((i + 1) % LINE === 0) for (const side of sides) await clearLine(side);
  }
  for (const side of sides) {
    await clearLine(side);
    side.term.write("printf '\\033[m'\r");
    await side.term.settle(200, 5000);
  }
  const c = ms.get('corral');
  const t = ms.get('tmux');
  return [
    { name: `tui: keystroke echo p50 in a bold pen (an agent's styled input line), ${n} keys`, value: round(median(c), 2), unit: 'ms', baseline: 'tmux', baselineValue: round(median(t), 2), ratio: round(median(c) / median(t)), target: '≤ 1.3×', pass: median(c) <= 1.3 * median(t) },
    { name: 'tui: keystroke echo p95 in a bold pen', value: round(percentile(c, 95), 2), unit: 'ms', baseline: 'tmux', baselineValue: round(percentile(t, 95), 2), ratio: round(percentile(c, 95) / percentile(t, 95)), target: '< 16 ms', pass: percentile(c, 95) < 16 },
  ];
}

/** Digits only: the typed letters can never be mistaken for flood output. */
const FLOOD_DIGITS = '1234567890';

/**
 * The "a flooding pane never delays another pane's echo": a second visible pane runs
 * `yes` while keystrokes go to the first, on corral and tmux alike. One side floods at a time
 * (two floods at once would saturate both cores and measure that), and the sides take
 * `turns` turns, the side going first alternating, so that load that changes during the run
 * (other processes, the machine's own noise) lands on both alike: `n` keys per side in all.
 * Returns report rows: p50 and p95 with their ratios to tmux.
 */
async function echoWhileFlooding(sides, n, turns = 3) {
  const ms = new Map(sides.map((s) => [s.name, []]));
  const perTurn = Math.ceil(n / turns);
  for (let turn = 0; turn < turns; turn++) {
    const order = turn % 2 === 0 ? sides : [...sides].reverse();
    for (const side of order) {
      // A flood line new to this turn, so the wait below cannot see the last turn's.
      const line = `${FLOOD_DIGITS}${turn}`;
      const stop = await startFlood(side, `yes ${line}`, line);
      let times;
      try {
        times = await timeKeys(side, perTurn);
      } finally {
        await stop();
      }
      ms.get(side.name).push(...times);
      process.stderr.write(`  flood turn ${turn + 1} ${side.name}: p50 ${median(times).toFixed(2)} p95 ${percentile(times, 95).toFixed(2)} ms\n`);
      await clearLine(side);
    }
  }
  const c = ms.get('corral');
  const t = ms.get('tmux');
  process.stderr.write(
    `  latency while flooding: corral p50 ${median(c).toFixed(2)} p95 ${percentile(c, 95).toFixed(2)} ms; ` +
      `tmux p50 ${median(t).toFixed(2)} p95 ${percentile(t, 95).toFixed(2)} ms\n`,
  );
  const rows = p50p95Rows(c, 'tmux', t, {
    p50: `tui: echo p50 while another visible pane floods (\`yes\`), ${c.length} keys in ${turns} turns`,
    p95: 'tui: echo p95 while another visible pane floods',
  });
  rows[1].target = '< 16 ms';
  rows[1].pass = percentile(c, 95) < 16;
  return rows;
}

/** The p50 and p95 rows of one set of echo times against a baseline's, with their ratios. */
function p50p95Rows(values, baseline, baselineValues, names) {
  return [
    { name: names.p50, value: round(median(values), 2), unit: 'ms', baseline, baselineValue: round(median(baselineValues), 2), ratio: round(median(values) / median(baselineValues)) },
    {
      name: names.p95,
      value: round(percentile(values, 95), 2),
      unit: 'ms',
      baseline,
      baselineValue: round(percentile(baselineValues, 95), 2),
      ratio: round(percentile(values, 95) / percentile(baselineValues, 95)),
    },
  ];
}

/**
 * Echo with notifications on against off (issue 14): two more corral TUIs, one with the
 * default `[notify] on = ["blocked", "done"]`, one with `on = []`, each with the fake claude
 * (bench/fixtures/fake-claude) in a background tab cycling working → blocked → idle every
 * 200 ms through its control socket — so the notifier sees a state change every few
 * keystrokes and sends desktop notifications (OSC 9; each state at most once per 10 s, by
 * design). Keystrokes alternate between the two, as in the main run.
 */
async function echoWithNotifications(n) {
  const configDir = mkdtempSync(join(tmpdir(), 'corral-bench-notify-'));
  const off = join(configDir, 'off.toml');
  writeFileSync(off, '[notify]\non = []\n');
  const env = { PATH: `${FAKE_DIR}:${process.env.PATH}` };
  const sides = [
    Object.assign(new CorralTui({ cols: COLS, rows: ROWS, extraEnv: env }), { name: 'notify on' }),
    Object.assign(new CorralTui({ cols: COLS, rows: ROWS, extraEnv: { ...env, CORRAL_CONFIG: off } }), { name: 'notify off' }),
  ];
  const stops = [];
  try {
    await Promise.all(sides.map((s) => s.ready()));
    const notifications = new Map();
    for (const side of sides) {
      const tab = JSON.parse((await side.cli(['tab', 'create', '--workspace', 'w1', '--no-focus'])).stdout).result;
      const control = join(side.sandbox.dir, 'claude.ctl');
      await side.cli(['agent', 'start', '--kind', 'claude', '--pane', tab.root_pane.pane_id, '--timeout', '30000', '--', '--control', control, '--spinner-ms', '0', '--work-ms', '600000']);
      const socket = await new Promise((resolve, reject) => {
        const sock = connect(control);
        sock.once('connect', () => resolve(sock));
        sock.once('error', reject);
      });
      socket.on('error', () => {});
      notifications.set(side.name, 0);
      const stopCount = side.term.listen((_now, data) => {
        if (data) notifications.set(side.name, notifications.get(side.name) + data.split('\x1b]9;').length - 1);
      });
      const states = ['working', 'blocked', 'idle'];
      let turn = 0;
      const cycle = setInterval(() => socket.write(`${states[turn++ % states.length]}\n`), 400);
      stops.push(() => (clearInterval(cycle), stopCount(), socket.destroy()));
      await side.term.settle(300);
    }
    const ms = new Map(sides.map((s) => [s.name, []]));
    for (let i = 0; i < n; i++) {
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        ms.get(side.name).push(await typeAndTime(side, LETTERS[i % LETTERS.length], 5000));
        await keyGap();
      }
      if ((i + 1) % LINE === 0) for (const side of sides) await clearLine(side);
    }
    const on = ms.get('notify on');
    const offMs = ms.get('notify off');
    const sent = notifications.get('notify on');
    process.stderr.write(
      `  latency with a background agent changing state every 400 ms: notify on p50 ${median(on).toFixed(2)} p95 ${percentile(on, 95).toFixed(2)} ms ` +
        `(${sent} notifications); notify off p50 ${median(offMs).toFixed(2)} p95 ${percentile(offMs, 95).toFixed(2)} ms (${notifications.get('notify off')})\n`,
    );
    if (sent === 0) throw new Error('no notification reached the outer terminal: the phase measured nothing');
    const rows = p50p95Rows(on, 'notifications off', offMs, {
      p50: `tui: echo p50, background agent changing state every 400 ms, notifications on (${sent} sent), ${n} keys`,
      p95: 'tui: echo p95, the same, notifications on',
    });
    rows[1].target = '≈ 1×';
    return rows;
  } finally {
    stops.forEach((stop) => stop());
    await Promise.allSettled(sides.map((s) => s.close()));
    rmSync(configDir, { recursive: true, force: true });
  }
}

export async function run({ quick = false } = {}) {
  const n = quick ? 30 : 200;
  // `corral` is the default client: the server reads and writes its tty itself (direct tty,
  // docs/clients.md); `corral relay` is the same build forced onto the relay through the client
  // process (CORRAL_CLIENT_RELAY=1, what ssh over pipes gets), in the same interleaved run.
  const relay = Object.assign(new CorralTui({ cols: COLS, rows: ROWS, extraEnv: { CORRAL_CLIENT_RELAY: '1' } }), { name: 'corral relay' });
  const sides = [new CorralTui({ cols: COLS, rows: ROWS }), relay, new TmuxTui({ cols: COLS, rows: ROWS }), new PassthroughTui({ cols: COLS, rows: ROWS })];
  try {
    await Promise.all(sides.map((s) => s.ready()));
    await Promise.all(sides.map((s) => s.term.settle(500)));
    const results = new Map(sides.map((s) => [s.name, { ms: [], bytes: [], typed: '' }]));

    await warmUp(sides);

    for (let i = 0; i < n; i++) {
      const ch = LETTERS[i % LETTERS.length];
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const r = results.get(side.name);
        const bytes0 = side.term.bytes;
        r.ms.push(await typeAndTime(side, ch));
        r.typed += ch;
        await keyGap();
        r.bytes.push(side.term.bytes - bytes0);
      }
      if ((i + 1) % LINE === 0) {
        // The typed line must be on each outer screen, as a person would see it.
        for (const side of sides) {
          const r = results.get(side.name);
          const want = r.typed.slice(-LINE);
          await side.term.waitFor(() => side.term.text().includes(`$ ${want}`), `${side.name} line ${want}`, 5000);
          await clearLine(side);
        }
      }
    }

    const stat = (name) => {
      const r = results.get(name);
      return { p50: median(r.ms), p95: percentile(r.ms, 95), max: maxOf(r.ms), bytes: median(r.bytes) };
    };
    const c = stat('corral');

    const r = stat('corral relay');
    const bold = await echoInBoldPen(sides.filter((s) => s.name === 'corral' || s.name === 'tmux'), quick ? 24 : 120);
    const flooding = await echoWhileFlooding(sides.filter((s) => s.name === 'corral' || s.name === 'tmux'), quick ? 24 : 120);
    const notifying = await echoWithNotifications(quick ? 30 : 120);
    const t = stat('tmux');
    const f = stat('node-pty passthrough');
    process.stderr.write(
      `  latency corral p50 ${c.p50.toFixed(2)} p95 ${c.p95.toFixed(2)} max ${c.max.toFixed(2)} ms, ${c.bytes} B/key; ` +
        `tmux p50 ${t.p50.toFixed(2)} p95 ${t.p95.toFixed(2)} max ${t.max.toFixed(2)} ms, ${t.bytes} B/key; ` +
        `node-pty passthrough p50 ${f.p50.toFixed(2)} p95 ${f.p95.toFixed(2)} ms; ` +
        `corral relay (CORRAL_CLIENT_RELAY=1) p50 ${r.p50.toFixed(2)} p95 ${r.p95.toFixed(2)} ms\n`,
    );
    return [
      {
        name: `tui: keystroke echo p50, ${COLS}×${ROWS}, ${n} keys`,
        value: round(c.p50, 2),
        unit: 'ms',
        baseline: 'tmux',
        baselineValue: round(t.p50, 2),
        ratio: round(c.p50 / t.p50),
        target: '≤ 1.3×',
        pass: c.p50 / t.p50 <= 1.3,
      },
      {
        name: 'tui: keystroke echo p50 against the Node floor (bash in node-pty, piped straight through)',
        value: round(c.p50, 2),
        unit: 'ms',
        baseline: 'node-pty passthrough',
        baselineValue: round(f.p50, 2),
        ratio: round(c.p50 / f.p50),
      },
      {
        name: 'tui: keystroke echo p95',
        value: round(c.p95, 2),
        unit: 'ms',
        baseline: 'tmux',
        baselineValue: round(t.p95, 2),
        ratio: round(c.p95 / t.p95),
        target: '< 16 ms',
        pass: c.p95 < 16,
      },
      {
        name: 'tui: keystroke echo p50 through the relay (CORRAL_CLIENT_RELAY=1: ssh over pipes, another machine)',
        value: round(r.p50, 2),
        p95: round(r.p95, 2),
        unit: 'ms',
        baseline: 'tmux',
        baselineValue: round(t.p50, 2),
        ratio: round(r.p50 / t.p50),
      },
      {
        name: 'tui: keystroke echo max',
        value: round(c.max, 2),
        unit: 'ms',
        baseline: 'tmux',
        baselineValue: round(t.max, 2),
        ratio: round(c.max / t.max),
      },
      ...bold,
      ...flooding,
      ...notifying,
      {
        name: 'tui: bytes to the outer terminal per keystroke (median)',
        value: c.bytes,
        unit: 'B',
        baseline: 'tmux',
        baselineValue: t.bytes,
        ratio: round(c.bytes / t.bytes),
        target: 'tens',
        pass: c.bytes < 100,
      },
    ];
  } finally {
    await Promise.allSettled(sides.map((s) => s.close()));
  }
}
