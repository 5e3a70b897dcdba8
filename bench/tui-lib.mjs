/**
 * Shared helpers for the TUI benchmarks (bench/tui-*.mjs) and scripts/screenshot.mjs: an
 * "outer terminal" — a program run in a node-pty, its output drained and optionally fed to
 * @xterm/headless — and the two programs compared in it:
 *
 *   corral: `node bin/corral.cjs` (the thin client, which starts the session's server in the
 *           background) in a temporary HOME and XDG_RUNTIME_DIR, like
 *           test/tui/tui-harness.ts; the CLI reaches the server through the same env.
 *   tmux:   `tmux -L <private> -f /dev/null new-session` attached in the same kind of pty.
 *
 * Both get the same minimal environment and the same shell: SHELL points to a wrapper that
 * execs `bash --norc --noprofile`, PS1='$ '.
 *
 * Not a benchmark itself (not listed in bench/run.mjs).
 */
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';
import xterm from '@xterm/headless';
import { BIN, cpuSeconds, removeDir, sleep, timeSpawn } from './lib.mjs';

const { Terminal } = xterm;

/** Removes CSI / OSC / two-byte escapes, leaving the printed text (for marker searches). */
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P_^][^\x1b]*\x1b\\|\x1b[()*+][0-~]|\x1b[@-Z\\-_=>78]|[\x00-\x08\x0b-\x1f\x7f]/g;
export function stripEscapes(s) {
  return s.replace(ESCAPES, '');
}

/** A temporary sandbox: HOME, runtime dir, config dir, and the shell wrapper. */
export function makeSandbox(prefix = 'corral-tui-bench-') {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const home = join(dir, 'home');
  mkdirSync(join(home, '.config', 'corral'), { recursive: true });
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  const shell = join(dir, 'bench-shell');
  writeFileSync(shell, '#!/bin/sh\nexec /bin/bash --norc --noprofile "$@"\n');
  chmodSync(shell, 0o755);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_CONFIG_HOME: join(home, '.config'),
    // The server's saved session (docs/persistence.md) stays in the sandbox.
    XDG_STATE_HOME: join(dir, 'state'),
    SHELL: shell,
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    PS1: '$ ',
    HISTFILE: '',
    CI: '',
  };
  return { dir, home, env, shell };
}

/**
 * A program in a node-pty: everything it writes is counted, kept in a rolling tail (escapes
 * stripped) for marker searches, and — when `screen` is on — parsed by a headless xterm.
 */
export class OuterTerminal {
  constructor(file, args, { cols, rows, env, cwd, screen = true }) {
    this.cols = cols;
    this.rows = rows;
    this.bytes = 0;
    this.tail = '';
    this.bracketedPaste = false;
    this.listeners = new Set();
    this.exitCode = null;
    this.screen = screen ? new Terminal({ cols, rows, allowProposedApi: true, scrollback: 0 }) : null;
    this.proc = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd, env });
    this.proc.onData((data) => this.onData(data));
    this.exited = new Promise((resolve) => {
      this.proc.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        resolve(exitCode);
      });
    });
  }

  get pid() {
    return this.proc.pid;
  }

  onData(data) {
    const now = performance.now();
    this.bytes += Buffer.byteLength(data);
    const joined = this.tail + data;
    if (data.includes('2004')) this.followPasteMode(joined.slice(-(data.length + 8)));
    this.tail = joined.length > 4096 ? joined.slice(-4096) : joined;
    if (this.screen) this.screen.write(data, () => this.fire(now, null));
    this.fire(now, data);
  }

  /**
   * Whether the program asked this terminal for bracketed paste (DECSET 2004): as a terminal
   * emulator does, `paste` sends the markers only then (tmux asks only when its pane's program
   * does; corral's client always does, to tell a paste from typing).
   */
  followPasteMode(text) {
    for (const m of text.matchAll(/\x1b\[\?2004([hl])/g)) this.bracketedPaste = m[1] === 'h';
  }

  /** Pastes `text` as a terminal does: between the bracketed-paste markers if the program asked for them. */
  paste(text) {
    return this.writeAll(Buffer.from(this.bracketedPaste ? `\x1b[200~${text}\x1b[201~` : text));
  }

  fire(now, data) {
    for (const l of [...this.listeners]) l(now, data);
  }

  /** Calls fn(timeMs, chunk|null) on each chunk (null: the headless screen finished a parse). */
  listen(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  write(data) {
    this.proc.write(data);
  }

  /**
   * One keystroke written with write(2) in this call, as a terminal emulator does. node-pty's
   * own `write` goes through `fs.write` on libuv's thread pool: a thread hand-off (~0.08 ms
   * here) added to every side's echo alike, which shrank every ratio. Falls back to node-pty
   * when it has writes queued (order) or the kernel does not take the whole key.
   */
  writeKey(data) {
    const fd = this.proc.fd ?? this.proc._fd;
    const queue = this.proc._writeStream?._writeQueue;
    if (typeof fd !== 'number' || !Array.isArray(queue) || queue.length > 0) return this.write(data);
    const bytes = Buffer.from(data, 'utf8');
    let written = 0;
    try {
      written = writeSync(fd, bytes);
    } catch {
      // EAGAIN: node-pty queues it.
    }
    if (written < bytes.length) this.proc.write(bytes.subarray(written).toString('utf8'));
  }

  /**
   * Writes all of `bytes` as a terminal pasting does: write(2) while the pty takes it, and a
   * 1 ms timer while it is full — not node-pty's queue, which retries on every loop turn and
   * would spin a core the program under test needs. Resolves once the pty took everything.
   */
  async writeAll(bytes) {
    const fd = this.proc.fd ?? this.proc._fd;
    let at = 0;
    while (at < bytes.length) {
      try {
        at += writeSync(fd, bytes, at, bytes.length - at);
      } catch (error) {
        if (error.code !== 'EAGAIN') throw error;
        await sleep(1);
      }
    }
  }

  resize(cols, rows) {
    this.cols = cols;
    this.rows = rows;
    this.screen?.resize(cols, rows);
    this.proc.resize(cols, rows);
  }

  /** A fresh headless screen from now on (feed it a full redraw). */
  resetScreen() {
    this.screen?.dispose();
    this.screen = new Terminal({ cols: this.cols, rows: this.rows, allowProposedApi: true, scrollback: 0 });
  }

  lines() {
    if (!this.screen) return [];
    const b = this.screen.buffer.active;
    const out = [];
    for (let y = 0; y < this.screen.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  text() {
    return this.lines().join('\n');
  }

  /** Resolves once predicate() holds, re-checked after each chunk/parse; rejects after timeoutMs. */
  waitFor(predicate, what, timeoutMs = 15_000) {
    return new Promise((resolve, reject) => {
      if (predicate()) return resolve(performance.now());
      let stop = () => {};
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`timed out waiting for ${what}; screen:\n${this.text()}`));
      }, timeoutMs);
      stop = this.listen((now) => {
        if (this.exitCode !== null) {
          stop();
          clearTimeout(timer);
          reject(new Error(`outer program exited (${this.exitCode}) while waiting for ${what}`));
        } else if (predicate()) {
          stop();
          clearTimeout(timer);
          resolve(now);
        }
      });
    });
  }

  waitForText(text, timeoutMs) {
    return this.waitFor(() => this.text().includes(text), JSON.stringify(text), timeoutMs);
  }

  /** Resolves once no output arrived for quietMs (bounded by timeoutMs). */
  async settle(quietMs = 300, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    let last = performance.now();
    const stop = this.listen((now) => (last = now));
    try {
      while (Date.now() < deadline) {
        await sleep(Math.max(10, quietMs / 4));
        if (performance.now() - last >= quietMs) return;
      }
    } finally {
      stop();
    }
  }

  /** SIGTERM (SIGKILL if it lingers), then free the screen. */
  async close() {
    if (this.exitCode === null) {
      try {
        this.proc.kill('SIGTERM');
      } catch {
        // already gone
      }
      const timer = setTimeout(() => {
        try {
          this.proc.kill('SIGKILL');
        } catch {
          // already gone
        }
      }, 5000);
      await Promise.race([this.exited, sleep(6000)]);
      clearTimeout(timer);
    }
    this.screen?.dispose();
  }
}

/** The corral TUI — an attached client and its background server — in an outer terminal, in its own sandbox. */
export class CorralTui {
  /**
   * `sandbox`: one from `makeSandbox()` whose server the caller already started (profiling).
   * `bin`: another build's `bin/corral.cjs` (A/B of two builds; its client starts its own server).
   */
  constructor({ cols = 120, rows = 40, screen = true, nodeArgs = [], extraEnv = {}, cwd, sandbox, bin = BIN } = {}) {
    this.sandbox = sandbox ?? makeSandbox('corral-tui-bench-');
    this.bin = bin;
    this.env = { ...this.sandbox.env, CORRAL_SCRIPTING: '1', ...extraEnv };
    const dir = typeof cwd === 'function' ? cwd(this.sandbox) : (cwd ?? this.sandbox.home);
    this.term = new OuterTerminal(process.execPath, [...nodeArgs, bin], { cols, rows, env: this.env, cwd: dir, screen });
    this.name = 'corral';
  }

  /** The client (in the pty) and the server it started, as tmux's client and server. */
  get pids() {
    return [this.term.pid, this.serverPid].filter(Boolean);
  }

  async ready(timeoutMs = 20_000) {
    if (this.term.screen) await this.term.waitForText('w1:p1', timeoutMs);
    else await this.term.waitFor(() => stripEscapes(this.term.tail).includes('w1:p1'), 'w1:p1', timeoutMs);
    // Prompt drawn inside the pane.
    await this.term.waitFor(() => /\$ /.test(stripEscapes(this.term.tail)), 'prompt', timeoutMs);
    this.serverPid = (await this.json(['sessions', '--json'])).sessions[0]?.pid ?? null;
  }

  async cli(args, { timeoutMs = 60_000, allowFail = false } = {}) {
    const r = await timeSpawn(process.execPath, [this.bin, ...args], { env: this.env, timeoutMs });
    if (r.code !== 0 && !allowFail) throw new Error(`corral ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
    return r;
  }

  async json(args, opts) {
    return JSON.parse((await this.cli(args, opts)).stdout);
  }

  async close() {
    await this.term.close();
    await this.cli(['kill-server'], { allowFail: true, timeoutMs: 15_000 });
    await removeDir(this.sandbox.dir);
  }
}

/**
 * The floor for any Node-based multiplexer: bash in node-pty, stdin and stdout wired straight
 * through with write(2) (bench/fixtures/pty-passthrough.mjs) — no terminal emulator, no
 * compositor. `traceDir`: it records each key's hops there (profile/echo-hops).
 */
export class PassthroughTui {
  constructor({ cols = 120, rows = 40, screen = true, traceDir = null } = {}) {
    this.sandbox = makeSandbox('corral-tui-bench-pass-');
    this.env = { ...this.sandbox.env, ...(traceDir ? { PASSTHROUGH_TRACE: traceDir } : {}) };
    this.traceDir = traceDir;
    const script = join(import.meta.dirname, 'fixtures', 'pty-passthrough.mjs');
    this.term = new OuterTerminal(process.execPath, [script], { cols, rows, env: this.env, cwd: this.sandbox.home, screen });
    this.name = 'node-pty passthrough';
  }

  get pids() {
    return [this.term.pid];
  }

  async ready(timeoutMs = 20_000) {
    await this.term.waitFor(() => /\$ /.test(stripEscapes(this.term.tail)), 'prompt', timeoutMs);
  }

  async close() {
    await this.term.close();
    await removeDir(this.sandbox.dir);
  }
}

/** tmux attached in an outer terminal, on a private server socket, `-f /dev/null`. */
export class TmuxTui {
  constructor({ cols = 120, rows = 40, screen = true } = {}) {
    this.sandbox = makeSandbox('corral-tui-bench-tmux-');
    this.env = { ...this.sandbox.env };
    this.socket = `corral-tui-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.term = new OuterTerminal('tmux', ['-L', this.socket, '-f', '/dev/null', 'new-session', '-s', 'bench'], {
      cols,
      rows,
      env: this.env,
      cwd: this.sandbox.home,
      screen,
    });
    this.name = 'tmux';
    this.serverPid = null;
  }

  tmux(args, { timeoutMs = 30_000 } = {}) {
    return timeSpawn('tmux', ['-L', this.socket, ...args], { env: this.env, timeoutMs, cwd: this.sandbox.home });
  }

  async must(args, opts) {
    const r = await this.tmux(args, opts);
    if (r.code !== 0) throw new Error(`tmux ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
    return r;
  }

  /** The tmux client (in the pty) and the server it forked. */
  get pids() {
    return [this.term.pid, this.serverPid].filter(Boolean);
  }

  async ready(timeoutMs = 20_000) {
    await this.term.waitFor(() => /\$ /.test(stripEscapes(this.term.tail)), 'prompt', timeoutMs);
    this.serverPid = Number((await this.must(['display-message', '-p', '#{pid}'])).stdout.trim());
  }

  async close() {
    await this.tmux(['kill-server'], { timeoutMs: 10_000 }).catch(() => {});
    await this.term.close();
    await removeDir(this.sandbox.dir);
  }
}

/** Sum of utime+stime (seconds) over pids; vanished processes count 0. */
export function cpuOf(pids) {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += cpuSeconds(pid);
    } catch {
      // gone
    }
  }
  return sum;
}

/**
 * Starts `command` in a second pane beside the first, visible and not focused, on a corral or
 * a tmux side; resolves once its output shows `marker` (new to this flood) on the outer
 * terminal, with a function that closes the pane. For echo-while-flooding measurements
 * (bench/tui-latency.mjs, bench/profile/flood-echo.mjs): keystrokes keep going to the first pane.
 */
export async function startFlood(side, command, marker, timeoutMs = 10_000) {
  let stop;
  if (side instanceof CorralTui) {
    const split = JSON.parse((await side.cli(['pane', 'split', 'w1:p1', '--direction', 'right', '--no-focus'])).stdout);
    const pane = split.result.pane.pane_id;
    await side.cli(['pane', 'run', pane, command]);
    stop = () => side.cli(['pane', 'close', pane]);
  } else {
    const pane = (await side.must(['split-window', '-d', '-h', '-P', '-F', '#{pane_id}', command])).stdout.trim();
    stop = () => side.must(['kill-pane', '-t', pane]);
  }
  try {
    // Several times on screen: once is the command line itself, echoed in the pane.
    const seen = () => (side.term.screen ? side.term.text() : stripEscapes(side.term.tail)).split(marker).length > 4;
    await side.term.waitFor(seen, `${side.name} flood`, timeoutMs);
  } catch (error) {
    await stop();
    throw error;
  }
  return stop;
}

/**
 * Types `ch` into a side's terminal; resolves with [written, seen] (performance.now(), ms): when
 * the key was written and when its echo first showed. Rejects after timeoutMs.
 */
export function typeAndStamp(side, ch, timeoutMs = 2000) {
  const term = side.term;
  return new Promise((resolve, reject) => {
    let t0 = 0;
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`${side.name}: no echo of ${JSON.stringify(ch)} within ${timeoutMs} ms`));
    }, timeoutMs);
    const stop = term.listen((now, data) => {
      if (data === null || !stripEscapes(data).includes(ch)) return;
      stop();
      clearTimeout(timer);
      resolve([t0, now]);
    });
    t0 = performance.now();
    term.writeKey(ch);
  });
}

/** The pause between two timed keystrokes: 20–40 ms, at random, so that no side keeps a rhythm. */
export const keyGap = () => sleep(20 + Math.random() * 20);

/** The letters the echo benches type, one per keystroke, in turn. */
export const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Empties the shell's input line (Ctrl-U) and waits for the redraw to settle. */
export async function clearLine(side) {
  side.term.write('\x15');
  await side.term.settle(60, 2000);
}

/** `count` keys typed into the focused pane, a key gap apart, then the line cleared; their echo times (ms). */
export async function echoes(side, count) {
  const times = [];
  for (let i = 0; i < count; i++) {
    const [t0, t1] = await typeAndStamp(side, LETTERS[i % LETTERS.length], 5000);
    times.push(t1 - t0);
    await keyGap();
  }
  await clearLine(side);
  return times;
}

/** A few keystrokes on each side (JIT, first-frame effects), then a clean line. */
export async function warmUp(sides, timeoutMs = 2000) {
  for (const side of sides) {
    for (const ch of 'warmup') {
      await typeAndStamp(side, ch, timeoutMs);
      await sleep(25);
    }
    await clearLine(side);
  }
}

/** Clicks the sidebar row that shows `label` (a workspace), as a mouse press and release. */
export async function clickRow(side, label) {
  const buffer = side.term.screen.buffer.active;
  for (let y = 0; y < side.term.rows; y++) {
    if ((buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '').includes(label)) {
      side.term.write(`\x1b[<0;4;${y + 1}M\x1b[<0;4;${y + 1}m`);
      return;
    }
  }
  throw new Error(`no sidebar row ${label}`);
}
