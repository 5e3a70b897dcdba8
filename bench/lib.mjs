/**
 * Shared helpers for the benchmarks: a sandboxed `corral server` (temporary HOME and runtime
 * dir, like test/integration/harness.ts), a private tmux server, process timing, /proc CPU
 * accounting and small statistics. Only built code is used, through bin/corral.cjs.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..');
export const BIN = join(ROOT, 'bin', 'corral.cjs');

/** Clock ticks per second for /proc/<pid>/stat utime/stime. */
export const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

/**
 * The largest / smallest value (-Infinity / Infinity when empty). Not Math.max(...values): a
 * spread of a long sample (copy-search's event-loop gaps on a loaded machine) overflows the stack.
 */
export function maxOf(values) {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return max;
}

export function minOf(values) {
  let min = Infinity;
  for (const v of values) if (v < min) min = v;
  return min;
}

export function round(value, digits = 2) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

export function sleep(ms) {
  return new Promise((r) => setTimeout(r, ms));
}

/** Process CPU time (user + system, this process only) in seconds, from /proc/<pid>/stat. */
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised comm; utime and stime are fields 14 and 15 (1-based).
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(rest[11]) + Number(rest[12])) / CLK_TCK;
}

/** Spawns a command, resolves with its wall time (ms), exit code and output. Bounded by timeoutMs. */
export function timeSpawn(file, args, { env = process.env, timeoutMs = 60_000, cwd } = {}) {
  return new Promise((resolveRun, reject) => {
    const start = process.hrtime.bigint();
    const child = spawn(file, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      clearTimeout(timer);
      resolveRun({ ms, code: code ?? -1, stdout, stderr });
    });
  });
}

/** Runs the corral CLI; throws on a non-zero exit unless allowFail. */
export async function corral(server, args, { timeoutMs = 60_000, allowFail = false } = {}) {
  const r = await timeSpawn(process.execPath, [server.bin ?? BIN, ...args], { env: server.env, timeoutMs });
  if (r.code !== 0 && !allowFail) throw new Error(`corral ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
  return r;
}

/** The environment every sandboxed shell (corral's or tmux's) starts with. */
function sandboxEnv(dir) {
  const home = join(dir, 'home');
  mkdirSync(join(home, '.config', 'corral'), { recursive: true });
  mkdirSync(join(dir, 'run'), { mode: 0o700 });
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_RUNTIME_DIR: join(dir, 'run'),
    XDG_CONFIG_HOME: join(home, '.config'),
    // The server's saved session (docs/persistence.md) stays in the sandbox.
    XDG_STATE_HOME: join(dir, 'state'),
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'xterm-256color',
    PS1: '$ ',
    // No .bash_history written into the sandbox while it is being removed.
    HISTFILE: '',
  };
}

/**
 * A `corral server --scripting` in a temporary HOME and runtime dir. `bin`: another build's
 * `bin/corral.cjs`, for A/B runs of two builds (bench/profile/ab-throughput.mjs).
 */
export class CorralServer {
  constructor({ nodeArgs = [], bin = BIN, stdout = 'ignore' } = {}) {
    this.bin = bin;
    /** 'pipe' to read what the server prints (node's --trace-gc goes to stdout). */
    this.stdout = stdout;
    this.dir = mkdtempSync(join(tmpdir(), 'corral-bench-'));
    this.env = sandboxEnv(this.dir);
    this.nodeArgs = nodeArgs;
    /** The session's socket, for a client the bench holds (agent-lib.mjs RpcClient). */
    this.socketPath = join(this.dir, 'run', 'corral', 'default.sock');
    this.child = null;
    this.stderr = '';
  }

  async start(timeoutMs = 15_000) {
    const child = spawn(process.execPath, [...this.nodeArgs, this.bin, 'server', '--scripting'], {
      env: this.env,
      cwd: this.dir,
      stdio: ['ignore', this.stdout, 'pipe'],
    });
    this.child = child;
    await new Promise((ready, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not start: ${this.stderr}`)), timeoutMs);
      child.stderr.on('data', (chunk) => {
        this.stderr += chunk;
        if (this.stderr.includes('listening on')) {
          clearTimeout(timer);
          ready();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`server exited with ${code}: ${this.stderr}`));
      });
    });
    child.removeAllListeners('exit');
    return this;
  }

  get pid() {
    return this.child.pid;
  }

  cli(args, opts) {
    return corral(this, args, opts);
  }

  async json(args, opts) {
    return JSON.parse((await this.cli(args, opts)).stdout);
  }

  /** Creates a workspace and returns its root pane id. */
  async newWorkspacePane() {
    const created = await this.json(['workspace', 'create', '--cwd', this.dir, '--no-focus']);
    return created.result.root_pane.pane_id;
  }

  /** SIGTERM, wait (bounded), SIGKILL if it lingers, then remove the sandbox. */
  async stop(timeoutMs = 10_000) {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      await exited;
      clearTimeout(timer);
    }
    await removeDir(this.dir);
  }
}

/** A tmux server on a private socket (`-L`), with a config matching corral's defaults. */
export class TmuxServer {
  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'corral-bench-tmux-'));
    this.env = sandboxEnv(this.dir);
    delete this.env.TMUX;
    this.socket = `corral-bench-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    this.conf = join(this.dir, 'tmux.conf');
    // corral keeps 10 000 scrollback lines per pane; tmux's default is 2000.
    writeFileSync(this.conf, 'set -g history-limit 10000\nset -g status off\n');
    this.started = false;
  }

  tmux(args, { timeoutMs = 60_000 } = {}) {
    return timeSpawn('tmux', ['-L', this.socket, '-f', this.conf, ...args], { env: this.env, timeoutMs, cwd: this.dir });
  }

  async must(args, opts) {
    const r = await this.tmux(args, opts);
    if (r.code !== 0) throw new Error(`tmux ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
    return r;
  }

  /** Starts the server with one detached session of the given size; returns its first pane id. */
  async start(cols, rows) {
    const r = await this.must(['new-session', '-d', '-s', 'bench', '-x', String(cols), '-y', String(rows), '-c', this.dir, '-P', '-F', '#{pane_id}']);
    this.started = true;
    return r.stdout.trim();
  }

  /** A new window (one full-size pane) in the bench session; returns its pane id. */
  async newWindowPane() {
    const r = await this.must(['new-window', '-d', '-t', 'bench', '-c', this.dir, '-P', '-F', '#{pane_id}']);
    return r.stdout.trim();
  }

  async pid() {
    const r = await this.must(['display-message', '-p', '#{pid}']);
    return Number(r.stdout.trim());
  }

  async stop() {
    if (this.started) await this.tmux(['kill-server'], { timeoutMs: 10_000 });
    this.started = false;
    await removeDir(this.dir);
  }
}

/** Removes a sandbox dir; retried briefly, since exiting shells may still write into it. */
export async function removeDir(dir) {
  for (let i = 0; i < 20; i++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch {
      await sleep(50);
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/** A process's resident memory (VmRSS) in MiB; throws once the process is gone. */
export function rssMiB(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
}

/** Waits until `fn()` is truthy, polling, for at most timeoutMs. */
export async function waitUntil(fn, { timeoutMs = 10_000, intervalMs = 50 } = {}) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(intervalMs);
  }
}

/** Waits until the shell in a pane prints its prompt, via a marker the shell itself computes. */
export async function corralPaneReady(server, pane) {
  const tag = Math.random().toString(36).slice(2, 8);
  await server.cli(['pane', 'run', pane, `printf '%s-%s\\n' READY ${tag}`]);
  await server.cli(['pane', 'wait-output', pane, '--match', `READY-${tag}`, '--timeout', '15000']);
}

/**
 * Bundles a TypeScript bench module from src/ with esbuild (there is no TS loader in the
 * deps) into a temporary .mjs inside bench/ — inside the repository, so a native addon the
 * code loads at run time (re2) resolves from node_modules — and imports it. Call `dispose`
 * when done.
 */
export async function importBundled(entry, { packagesExternal = false } = {}) {
  const { build } = await import('esbuild');
  const { pathToFileURL } = await import('node:url');
  const dir = mkdtempSync(join(ROOT, 'bench', '.bundle-'));
  const dispose = () => rmSync(dir, { recursive: true, force: true });
  try {
    const outfile = join(dir, 'bench.mjs');
    await build({
      absWorkingDir: ROOT,
      entryPoints: [entry],
      outfile,
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      logLevel: 'warning',
      // Packages left to Node's resolver (Ink imports its devtools only when asked to).
      ...(packagesExternal ? { packages: 'external' } : {}),
      // Bundled CommonJS (@xterm/headless) may call require().
      banner: { js: "import { createRequire as __benchCreateRequire } from 'node:module';\nconst require = __benchCreateRequire(import.meta.url);" },
    });
    return { mod: await import(pathToFileURL(outfile).href), dispose };
  } catch (error) {
    dispose();
    throw error;
  }
}

/**
 * Runs `a` and `b` `reps` times each, alternating which goes first, so drift in the machine's
 * load falls on both alike; resolves with each one's results (`a(i)` / `b(i)`, i from 0).
 */
export async function interleaved(reps, a, b) {
  const times = { a: [], b: [] };
  for (let i = 0; i < reps; i++) {
    if (i % 2 === 0) {
      times.a.push(await a(i));
      times.b.push(await b(i));
    } else {
      times.b.push(await b(i));
      times.a.push(await a(i));
    }
  }
  return times;
}
