/**
 * Runs the real `corral` binary in a real pty (node-pty) and feeds everything it writes into
 * a headless terminal, so tests assert on the screen a person would see — and wait for
 * screen content instead of sleeping. `corral` is the thin client: it starts the session's
 * server in the background (in this test's own runtime directory), and `close()` kills it.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import * as pty from 'node-pty';
import { afterEach, expect, vi } from 'vitest';
import xterm from '@xterm/headless';
import { BIN, runCli, type CliResult } from '../integration/harness.js';
import { useModernUnicode } from '../../src/terminal/unicode-provider.js';

const { Terminal } = xterm;

// Every TUI test starts a client and its background server and ends both: twice the time of
// a test against a running server, so twice the suite's 30 s limit (and the hooks', which kill
// the server).
vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

export class TuiSession {
  readonly dir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly screen: InstanceType<typeof Terminal>;
  private readonly proc: pty.IPty;
  /** Another client of this session's server: shares its directory and environment; its close() leaves the server running. */
  private readonly peerOf: TuiSession | null;
  private exitCode: number | null = null;
  private readonly exited: Promise<number>;
  private listeners: Array<() => void> = [];
  /** Everything the TUI wrote, for byte counting. */
  bytesWritten = 0;
  /** Payloads of the OSC 9 / OSC 777 desktop notifications the TUI sent its terminal. */
  readonly osc9: string[] = [];
  readonly osc777: string[] = [];
  bells = 0;

  /**
   * `config`: the text of config.toml, written before corral starts. `opts.peer`: attach to
   * that session's server instead of starting a session of its own; `opts.args`: the
   * command line (default: none, plain `corral`); `opts.bin`: the `corral` entry (default:
   * this checkout's).
   */
  constructor(cols = 120, rows = 36, extraEnv: NodeJS.ProcessEnv = {}, config?: string, opts: { peer?: TuiSession; args?: string[]; bin?: string } = {}) {
    this.peerOf = opts.peer ?? null;
    this.dir = opts.peer?.dir ?? mkdtempSync(join(tmpdir(), 'corral-tui-'));
    const home = join(this.dir, 'home');
    if (!opts.peer) {
      mkdirSync(home, { recursive: true });
      mkdirSync(join(this.dir, 'run'), { mode: 0o700 });
    }
    this.env = opts.peer ? { ...opts.peer.env, ...extraEnv } : {
      PATH: process.env.PATH,
      HOME: home,
      XDG_RUNTIME_DIR: join(this.dir, 'run'),
      XDG_CONFIG_HOME: join(home, '.config'),
      // The TUI's server saves its session here, never in the real ~/.local/state.
      XDG_STATE_HOME: join(this.dir, 'state'),
      SHELL: '/bin/bash',
      LANG: 'C.UTF-8',
      PS1: '$ ',
      TERM: 'xterm-256color',
      // CI sets this; the TUI must not depend on it either way.
      CI: process.env.CI ?? '',
      ...extraEnv,
    };
    if (config !== undefined) {
      mkdirSync(join(home, '.config', 'corral'), { recursive: true });
      writeFileSync(join(home, '.config', 'corral', 'config.toml'), config);
    }
    this.screen = new Terminal({ cols, rows, allowProposedApi: true });
    this.screen.parser.registerOscHandler(9, (data) => (this.osc9.push(data), true));
    this.screen.parser.registerOscHandler(777, (data) => (this.osc777.push(data), true));
    this.screen.onBell(() => this.bells++);
    // The user's terminal measures emoji 2 wide, as every current terminal does.
    useModernUnicode(this.screen);
    this.proc = pty.spawn(process.execPath, [opts.bin ?? BIN, ...(opts.args ?? [])], { name: this.env.TERM ?? 'xterm-256color', cols, rows, cwd: home, env: this.env as Record<string, string> });
    this.proc.onData((data) => {
      this.bytesWritten += Buffer.byteLength(data);
      this.screen.write(data, () => this.wake());
    });
    this.exited = new Promise((resolve) => {
      this.proc.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        // xterm parses writes asynchronously: the exit is reported once every byte the client
        // wrote before exiting (its terminal restore) has been parsed, so checks of the
        // screen's modes after `waitExit` see them.
        this.screen.write('', () => {
          this.wake();
          resolve(exitCode);
        });
      });
    });
  }

  private wake(): void {
    const listeners = this.listeners;
    this.listeners = [];
    listeners.forEach((l) => l());
  }

  /** The visible screen as lines of text. */
  lines(): string[] {
    const buffer = this.screen.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < this.screen.rows; y++) out.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
    return out;
  }

  text(): string {
    return this.lines().join('\n');
  }

  /** Waits for something other than the screen (e.g. a notification), re-checked after each write and every 50 ms. */
  async until(predicate: () => boolean, what: string, timeoutMs?: number): Promise<void> {
    // Looked at every 50 ms too: what it reads (a file, counts of escapes) may change while the
    // screen does not, and a quiet screen would leave it unread until the timeout.
    await this.waitFor(() => predicate(), what, timeoutMs, 50);
  }

  /** Reports an SGR mouse event at 0-based cell (x, y): `code` 0 press, 32 drag (button 1), release with `final` m. */
  mouse(code: number, x: number, y: number, final: 'M' | 'm' = 'M'): void {
    this.type(`\x1b[<${code};${x + 1};${y + 1}${final}`);
  }

  /**
   * Waits until the screen satisfies `predicate` (re-checked after each write from the TUI, and
   * every `pollMs` when given).
   */
  // 30 s: a first frame needs two node processes started (client, then its server) and the
  // chrome's views loaded; on a 2-core machine shared with other test suites that took > 15 s.
  async waitFor(predicate: (screen: string) => boolean, what: string, timeoutMs = 30_000, pollMs?: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.text())) {
      if (this.exitCode !== null) throw new Error(`corral exited (${this.exitCode}) while waiting for ${what}\n${this.text()}`);
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new Error(`timed out waiting for ${what}; screen:\n${this.text()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(remaining, pollMs ?? remaining));
        this.listeners.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  waitForText(text: string | RegExp, timeoutMs?: number): Promise<void> {
    const test = typeof text === 'string' ? (s: string) => s.includes(text) : (s: string) => text.test(s);
    return this.waitFor(test, String(text), timeoutMs);
  }

  /** Types into the TUI as a user would. */
  type(data: string): void {
    this.proc.write(data);
  }

  resize(cols: number, rows: number): void {
    this.screen.resize(cols, rows);
    this.proc.resize(cols, rows);
  }

  /** Runs a CLI verb against the TUI's embedded server. */
  cli(args: string[]): Promise<CliResult> {
    return runCli(args, this.env);
  }

  async json(args: string[]): Promise<any> {
    const result = await this.cli(args);
    if (result.code !== 0) throw new Error(`corral ${args.join(' ')} → ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  }

  /** Terminal modes as the TUI left them (checked after quitting). */
  get modes() {
    return this.screen.modes;
  }

  get isAlternateScreen(): boolean {
    return this.screen.buffer.active.type === 'alternate';
  }

  waitExit(timeoutMs = 10_000): Promise<number> {
    return Promise.race([
      this.exited,
      new Promise<number>((_, reject) => setTimeout(() => reject(new Error('corral did not exit')), timeoutMs)),
    ]);
  }

  /** A second client of this session (`corral attach` in a pty of its own); `extraEnv` on top of this session's. */
  attach(cols = 120, rows = 36, extraEnv: NodeJS.ProcessEnv = {}): TuiSession {
    return new TuiSession(cols, rows, extraEnv, undefined, { peer: this, args: ['attach'] });
  }

  /** The client process's pid. */
  get pid(): number {
    return this.proc.pid;
  }

  /** Sends the client process a signal. */
  kill(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }

  /** Closes the client's terminal, as closing its window does: the pty's master goes, the client is hung up. */
  closeTerminal(): void {
    // node-pty's UnixTerminal closes its master in destroy(); IPty does not declare it.
    (this.proc as unknown as { destroy(): void }).destroy();
  }

  /** The client gave the terminal back as it found it: main screen, no mouse tracking, no bracketed paste. */
  expectTerminalRestored(): void {
    expect(this.isAlternateScreen).toBe(false);
    expect(this.modes.mouseTrackingMode).toBe('none');
    expect(this.modes.bracketedPasteMode).toBe(false);
  }

  /** The socket of the session's server (each test has its own runtime dir). */
  get socketPath(): string {
    return join(this.env.XDG_RUNTIME_DIR!, 'corral', 'default.sock');
  }

  /** Ends the client, then the background server it started (each test has its own runtime dir, so its own socket). */
  async close(): Promise<void> {
    if (this.exitCode === null) {
      this.proc.kill('SIGTERM');
      await this.waitExit().catch(() => this.proc.kill('SIGKILL'));
    }
    if (this.peerOf) {
      this.screen.dispose();
      return;
    }
    await this.cli(['kill-server']);
    this.screen.dispose();
    // A git the server started (a worktree's status after a merge) may still write its index as the server goes.
    rmSync(this.dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}

/** One JSON-RPC call on a fresh connection, as a script would make it (e.g. `client.list`); its result. */
export function rpc(socketPath: string, method: string, params?: Record<string, unknown>): Promise<any> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\n'));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) {
        socket.destroy();
        resolve(JSON.parse(text.slice(0, text.indexOf('\n'))).result);
      }
    });
    socket.on('error', reject);
  });
}

/**
 * Sessions a describe block opens, closed after each test in reverse order: peers first, as
 * the session's owner kills the server. Returns the function that registers one.
 */
export function closedAfterEach(): (tui: TuiSession) => TuiSession {
  const open: TuiSession[] = [];
  afterEach(async () => {
    for (const tui of open.reverse()) await tui.close();
    open.length = 0;
  });
  return (tui) => (open.push(tui), tui);
}

/**
 * Reads `read()` every 50 ms until `check` holds — for state with no screen of its own to wait
 * on (a client attaching, leaving, handing over its terminal); returns the value that held.
 */
export async function pollUntil<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`expected ${what}; read ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Adds machine `build` (labelled buildbox) at `target` in `owner`'s server, makes a workspace
 * `remote-api` there and clicks it in the sidebar; resolves with the remote pane's id once its
 * qualified name shows.
 */
export async function openRemoteWorkspace(owner: TuiSession, target: string, remoteCorral: string): Promise<string> {
  await owner.waitForText('w1:p1');
  const added = await owner.cli(['machine', 'add', 'build', target, '--label', 'buildbox', '--corral', remoteCorral]);
  expect(added.code, added.stderr).toBe(0);
  await owner.waitForText(/buildbox · connected/);
  const created = await owner.json(['--machine', 'build', 'workspace', 'create', '--cwd', '/tmp', '--label', 'remote-api']);
  const remotePane = created.result.root_pane.pane_id;
  await owner.waitForText('remote-api');
  // Click the remote workspace in the sidebar: its pane fills the main area, named by machine.
  const row = owner.lines().findIndex((line) => line.includes('remote-api'));
  owner.mouse(0, 3, row);
  owner.mouse(0, 3, row, 'm');
  await owner.waitForText(`build/${remotePane}`);
  return remotePane;
}
