/**
 * Drives a real `corral server` the way a user does: the built binary, a temporary HOME and
 * runtime dir, the real CLI as child processes, and raw NDJSON over the real socket.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin', 'corral.cjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ServerOptions {
  scripting?: boolean;
  config?: string;
  extraArgs?: string[];
  /** The `corral` entry to run (default: this checkout's bin/corral.cjs; an installed package's in test/package). */
  bin?: string;
  /** The server's working directory (default: the test's), where a pane with no cwd starts. */
  cwd?: string;
}

/** A running server in its own sandbox directory. */
export class TestServer {
  readonly dir: string;
  readonly home: string;
  readonly socketPath: string;
  readonly env: NodeJS.ProcessEnv;
  private child: ChildProcess | null = null;
  stderr = '';

  constructor(private readonly options: ServerOptions = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'corral-test-'));
    this.home = join(this.dir, 'home');
    mkdirSync(join(this.home, '.config', 'corral'), { recursive: true });
    mkdirSync(join(this.dir, 'run'), { mode: 0o700 });
    this.socketPath = join(this.dir, 'run', 'corral', 'default.sock');
    if (options.config !== undefined) writeFileSync(join(this.home, '.config', 'corral', 'config.toml'), options.config);
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: this.home,
      XDG_RUNTIME_DIR: join(this.dir, 'run'),
      XDG_CONFIG_HOME: join(this.home, '.config'),
      // Each server saves (and restores) its session here, never in the real ~/.local/state.
      XDG_STATE_HOME: join(this.dir, 'state'),
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      // A quiet, predictable prompt in every pane.
      PS1: '$ ',
    };
    this.env = env;
  }

  /** Starts `corral server` and resolves once it reports it is listening. */
  async start(moreArgs: string[] = []): Promise<this> {
    const args = [this.options.bin ?? BIN, 'server', ...(this.options.scripting ? ['--scripting'] : []), ...(this.options.extraArgs ?? []), ...moreArgs];
    const child = spawn(process.execPath, args, { env: this.env, cwd: this.options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    // This start's own line: what an earlier server of this sandbox printed (kept in `stderr`) is not it.
    const from = this.stderr.length;
    await new Promise<void>((resolveReady, reject) => {
      const onData = (chunk: Buffer) => {
        this.stderr += chunk.toString();
        if (this.stderr.includes('listening on', from)) resolveReady();
      };
      child.stderr!.on('data', onData);
      child.once('exit', (code) => reject(new Error(`server exited with ${code}: ${this.stderr}`)));
    });
    return this;
  }

  /** Runs the CLI with this server's environment. */
  cli(args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
    return runCli(args, { ...this.env, ...opts.env }, { ...opts, bin: this.options.bin });
  }

  /** Runs the CLI and parses its stdout as JSON; fails the test on a non-zero exit. */
  async json(args: string[]): Promise<any> {
    const result = await this.cli(args);
    if (result.code !== 0) throw new Error(`corral ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  /** Opens a raw socket client. */
  connect(): Promise<RawClient> {
    return RawClient.open(this.socketPath);
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Closes the read end of the server's stderr, as a terminal or a log reader that went away. */
  closeStderr(): void {
    this.child?.stderr?.destroy();
  }

  get alive(): boolean {
    return this.child !== null && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Where this server saves its session (SPEC §13). */
  get stateDir(): string {
    return join(this.dir, 'state', 'corral');
  }

  /**
   * Ends the server with `signal` and waits for it to exit, keeping its sandbox (state dir,
   * home), so `start()` can bring up the next server on the same saved session.
   */
  async halt(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return child?.exitCode ?? null;
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
    child.kill(signal);
    const code = await exited;
    this.stderr = '';
    return code;
  }

  /** Stops the server with SIGTERM and waits for it to exit. */
  async stop(): Promise<number | null> {
    const child = this.child;
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      const code = await exited;
      this.cleanup();
      return code;
    }
    this.cleanup();
    return child?.exitCode ?? null;
  }

  private cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs `corral` with the given env and collects its output and exit code. */
export function runCli(args: string[], env: NodeJS.ProcessEnv, opts: { input?: string; timeoutMs?: number; bin?: string } = {}): Promise<CliResult> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [opts.bin ?? BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : null;
    child.on('error', reject);
    child.on('close', (code) => {
      if (timer) clearTimeout(timer);
      resolveRun({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** A raw NDJSON client: send any bytes, read replies and notifications line by line. */
export class RawClient {
  private buffer = '';
  private readonly lines: any[] = [];
  private waiters: Array<() => void> = [];
  private nextId = 1;
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk) => {
      this.buffer += chunk.toString('utf8');
      let newline: number;
      while ((newline = this.buffer.indexOf('\n')) !== -1) {
        const line = this.buffer.slice(0, newline);
        this.buffer = this.buffer.slice(newline + 1);
        if (line.trim()) this.lines.push(JSON.parse(line));
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(path: string): Promise<RawClient> {
    return new Promise((resolveOpen, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolveOpen(new RawClient(socket)));
      socket.once('error', reject);
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
  }

  /** Writes raw text (no newline added). */
  write(text: string): void {
    this.socket.write(text);
  }

  /** Waits for the next message matching `predicate`, removing it from the inbox. */
  async next(predicate: (message: any) => boolean = () => true, timeoutMs = 10_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.lines.findIndex(predicate);
      if (index !== -1) return this.lines.splice(index, 1)[0];
      if (this.closed) throw new Error('connection closed');
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error('timed out waiting for a message');
      await new Promise<void>((r) => {
        const timer = setTimeout(r, remaining);
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
    }
  }

  /**
   * Sends a request and returns its full response object. A request that may wait itself
   * (`timeout_ms`) gets that long, and 10 s more, before the test stops listening for it,
   * unless the test says how long (`timeoutMs`).
   */
  async request(method: string, params?: unknown, timeoutMs?: number): Promise<any> {
    const id = this.nextId++;
    this.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    const own = (params as { timeout_ms?: unknown } | undefined)?.timeout_ms;
    return this.next((m) => m.id === id, timeoutMs ?? (typeof own === 'number' ? own + 10_000 : 10_000));
  }

  /** Sends a request and returns its result, throwing on an error response. */
  async call(method: string, params?: unknown, timeoutMs?: number): Promise<any> {
    const response = await this.request(method, params, timeoutMs);
    if (response.error) throw Object.assign(new Error(response.error.message), { rpc: response.error });
    return response.result;
  }

  /** Waits for the socket to be closed by the server. */
  async waitClosed(timeoutMs = 5000): Promise<void> {
    if (this.closed) return;
    await new Promise<void>((resolveClosed, reject) => {
      const timer = setTimeout(() => reject(new Error('connection still open')), timeoutMs);
      this.socket.once('close', () => {
        clearTimeout(timer);
        resolveClosed();
      });
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

/** Connects to a unix socket (e.g. the fake claude's control socket, bench/fixtures/fake-claude). */
export function connectUnix(path: string): Promise<Socket> {
  return new Promise((resolveSocket, reject) => {
    const socket = connect(path);
    socket.once('connect', () => resolveSocket(socket));
    socket.once('error', reject);
  });
}

/**
 * A process's /proc/<pid>/stat: its name, and the fields after it (`fields[0]` is the state,
 * `[1]` the parent's pid, `[11]` and `[12]` user and system ticks); null once it is gone. The
 * name may hold spaces and parentheses, so it ends at the last `)`.
 */
export function procStat(pid: number | string): { comm: string; fields: string[] } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    return { comm: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
  } catch {
    return null;
  }
}

/** Running, not a zombie waiting to be reaped (PID 1 in a container may never reap it). */
export function isAlive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.fields[0] !== 'Z';
}

/** Polls (bounded) until `condition` holds; returns whether it did. For /proc state, which has no event. */
export async function eventually(condition: () => boolean, timeoutMs: number, everyMs = 20): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return true;
}

/**
 * JavaScript for a stand-in agent (a `#!/usr/bin/env node` script run in a pane) that sends
 * one hook notification the way an agent's hook does: from inside its own pane, to
 * `$CORRAL_SOCKET`, naming `$CORRAL_PANE_ID` — the only place the server takes a hook from
 * (SPEC §8). `params` are the notification's params besides `pane_id`.
 */
export function hookFromPaneScript(method: string, params: Record<string, unknown>): string {
  return [
    `const hook = require('net').connect(process.env.CORRAL_SOCKET, () => hook.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: ${JSON.stringify(method)}, params: { ...${JSON.stringify(params)}, pane_id: process.env.CORRAL_PANE_ID } }) + '\\n'));`,
    `hook.on('data', () => hook.end());`,
    `hook.on('error', () => {});`,
  ].join('\n');
}
