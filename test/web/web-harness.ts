/**
 * Drives `corral web` the way a person does: the real binary against a real `corral server`,
 * started in a real terminal (node-pty, outside every pane — a person's terminal) or, for the
 * view-only cases, without one or from inside a pane; and a real headless Chromium through
 * playwright-core, using the system's /usr/bin/chromium (never a downloaded browser).
 */
import * as pty from 'node-pty';
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { BIN, TestServer } from '../integration/harness.js';

export const CHROMIUM = process.env.CORRAL_CHROMIUM ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

export async function launchBrowser(): Promise<Browser> {
  // --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
}

/** A running `corral web`: its URL (with the one-time token), its origin and its output. */
export class WebProcess {
  output = '';
  url = '';
  private exitCode: number | null = null;
  private readonly exited: Promise<number>;

  private constructor(private readonly proc: pty.IPty) {
    this.exited = new Promise((resolve) =>
      proc.onExit(({ exitCode }) => {
        this.exitCode = exitCode;
        resolve(exitCode);
      }),
    );
    proc.onData((data) => {
      this.output += data;
    });
  }

  /** `corral web` in a terminal of its own (a person's), on a free loopback port. */
  static async start(server: TestServer, args: string[] = []): Promise<WebProcess> {
    const listen = args.includes('--listen') ? [] : ['--listen', '127.0.0.1:0'];
    const proc = pty.spawn(process.execPath, [BIN, 'web', ...listen, ...args], {
      cols: 200,
      rows: 40,
      cwd: server.home,
      env: { ...server.env, TERM: 'xterm-256color' } as Record<string, string>,
    });
    const web = new WebProcess(proc);
    await web.waitFor(/open (https?:\/\/\S+#token=[A-Za-z0-9_-]+)/, 20_000);
    web.url = /open (https?:\/\/\S+#token=[A-Za-z0-9_-]+)/.exec(web.output)![1]!;
    return web;
  }

  get origin(): string {
    return new URL(this.url).origin;
  }

  get token(): string {
    return /#token=(.*)$/.exec(this.url)![1]!;
  }

  /** Resolves once the output matches (or rejects with what it printed, at exit or timeout). */
  waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const done = (error?: Error) => {
        clearTimeout(limit);
        listener.dispose();
        if (error) reject(error);
        else resolve();
      };
      const check = () => {
        if (pattern.test(this.output)) done();
        else if (this.exitCode !== null) done(new Error(`corral web exited ${this.exitCode} waiting for ${pattern}; output: ${this.output}`));
      };
      const listener = this.proc.onData(() => check());
      void this.exited.then(() => check());
      const limit = setTimeout(() => done(new Error(`timed out waiting for ${pattern}; output: ${this.output}`)), timeoutMs);
      check();
    });
  }

  /** Ends `corral web` with `signal` (SIGKILL: no clean-up of its own) and waits for it to go. */
  async kill(signal: NodeJS.Signals): Promise<void> {
    if (this.exitCode !== null) return;
    this.proc.kill(signal);
    await this.exited;
  }

  async stop(): Promise<void> {
    if (this.exitCode === null) {
      this.proc.kill('SIGTERM');
      await this.exited;
    }
  }
}
