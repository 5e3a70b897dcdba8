/**
 * One pane's engine: a PaneProcess feeding a PaneTerminal, with flow control between them
 * (pause the pty while xterm has too much unparsed output) and a throttled view of the
 * pane's foreground process for detection and selectors.
 */
import { Emitter, type Disposable } from '../terminal/emitter.js';
import { PaneTerminal, TERMINAL_DEFAULTS } from '../terminal/pane-terminal.js';
import { foregroundProcess, processCwd, type ForegroundProcess } from './foreground.js';
import { PaneProcess, type ExitInfo } from './pane-process.js';

/** Flow control between the pty and xterm, in UTF-16 code units of unparsed output. */
export const FLOW_CONTROL = {
  /**
   * Pause reading the pty above this much unparsed output: enough to keep xterm busy for
   * ~10 ms at full speed, small enough that a flood (`yes`, `cat bigfile`) cannot pile up
   * megabytes in memory or starve the event loop that serves keystrokes.
   */
  highWatermarkChars: 400_000,
  /**
   * Resume below this. Measured (bench/throughput): resuming only near empty left xterm idle
   * ~20% of a `cat` flood waiting for the next batch; resuming at a quarter keeps it fed.
   */
  lowWatermarkChars: 100_000,
} as const;

/** Caching of /proc reads. */
export const PROC_CACHE = {
  /** Selectors, status rows and detection ask often; /proc changes only when jobs start or stop. */
  maxAgeMs: 250,
} as const;

export interface PaneHostOptions {
  shell: string;
  shellArgs?: string[];
  cwd: string;
  env: Record<string, string | undefined>;
  cols: number;
  rows: number;
  scrollback?: number;
  /** Override the flow-control watermarks (tests use tiny ones to force pausing). */
  flowControl?: { highWatermarkChars: number; lowWatermarkChars: number };
}

interface ProcSnapshot {
  at: number;
  foreground: ForegroundProcess | null;
  shellCwd: string | null;
}

/** A running pane: process + terminal + flow control. */
export class PaneHost {
  readonly terminal: PaneTerminal;
  readonly process: PaneProcess;
  private readonly exitEmitter = new Emitter<ExitInfo>();
  private readonly subscriptions: Disposable[] = [];
  private readonly initialCwd: string;
  private readonly flow: { highWatermarkChars: number; lowWatermarkChars: number };
  private pendingChars = 0;
  private _paused = false;
  private lastParsed: Promise<void> = Promise.resolve();
  private _lastOutputAt: number | null = null;
  private _exit: ExitInfo | null = null;
  private readonly exitPromise: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;
  private procCache: ProcSnapshot | null = null;
  private disposed = false;

  /** Spawn the shell on a new pty and start feeding its output into a fresh terminal. */
  constructor(options: PaneHostOptions) {
    this.initialCwd = options.cwd;
    this.flow = options.flowControl ?? FLOW_CONTROL;
    this.exitPromise = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.terminal = new PaneTerminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? TERMINAL_DEFAULTS.scrollback,
    });
    this.process = PaneProcess.spawn({
      file: options.shell,
      args: options.shellArgs ?? [],
      cwd: options.cwd,
      env: options.env,
      cols: options.cols,
      rows: options.rows,
    });
    this.subscriptions.push(this.process.onData((data) => this.onProcessData(data)));
    // A promise rather than a listener, so waitForExit still settles after dispose().
    void this.process.waitForExit().then((info) => this.onProcessExit(info));
  }

  get pid(): number {
    return this.process.pid;
  }

  /** The pane's `output_generation`: the terminal revision. */
  get outputGeneration(): number {
    return this.terminal.revision;
  }

  /** When output last arrived from the process (ms since the epoch), or null if never. */
  get lastOutputAt(): number | null {
    return this._lastOutputAt;
  }

  /** Reading from the pty is paused because xterm is behind. */
  get paused(): boolean {
    return this._paused;
  }

  /** Exit info once the process ended and all its output was parsed; null before. */
  get exitInfo(): ExitInfo | null {
    return this._exit;
  }

  get exited(): boolean {
    return this._exit !== null;
  }

  /** Called with the new generation after each parsed batch of output. */
  onOutput(listener: (generation: number) => void): Disposable {
    return this.terminal.onRevision(listener);
  }

  /** Fires once, after the process exited and all its output was parsed into the terminal. */
  onExit(listener: (info: ExitInfo) => void): Disposable {
    return this.exitEmitter.on(listener);
  }

  /** Resolves like `onExit` (at once if already exited). */
  waitForExit(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  /** Send input to the process (keys, pasted text). */
  write(data: string): Promise<void> {
    // Tell xterm input happened: it then parses the next output (the echo) synchronously
    // instead of on a setTimeout(0) — measured 2.2 → 1.0 ms keystroke echo (bench/tui-latency).
    // Nothing listens to xterm's onData, and corral never uses xterm's own viewport.
    this.terminal.xterm.input('', true);
    return this.process.write(data);
  }

  /** Resize pty and terminal together. */
  resize(cols: number, rows: number): void {
    if (this.disposed) return;
    this.terminal.resize(cols, rows);
    this.process.resize(cols, rows);
  }

  /** End the pane's whole session (see PaneProcess.kill); resolves once it is gone. */
  async kill(): Promise<void> {
    await this.process.kill();
  }

  /** The process leading the pane's foreground job (the shell when at its prompt); cached. */
  foreground(maxAgeMs: number = PROC_CACHE.maxAgeMs): ForegroundProcess | null {
    return this.procSnapshot(maxAgeMs).foreground;
  }

  /** True when the shell sits at its prompt with no foreground job; false if unknown or exited. */
  isShellAtPrompt(maxAgeMs: number = PROC_CACHE.maxAgeMs): boolean {
    return this.procSnapshot(maxAgeMs).foreground?.isShell ?? false;
  }

  /** The foreground process's cwd, else the shell's, else the cwd the pane started in. */
  cwd(maxAgeMs: number = PROC_CACHE.maxAgeMs): string {
    const snap = this.procSnapshot(maxAgeMs);
    return snap.foreground?.cwd ?? snap.shellCwd ?? this.initialCwd;
  }

  /** The foreground command line, argv joined by spaces; null when it cannot be read. */
  commandLine(maxAgeMs: number = PROC_CACHE.maxAgeMs): string | null {
    return this.procSnapshot(maxAgeMs).foreground?.argv.join(' ') ?? null;
  }

  /** Stop everything: kill the process if running (without waiting), free the terminal. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const s of this.subscriptions) s.dispose();
    this.process.dispose();
    this.terminal.dispose();
    this.exitEmitter.clear();
  }

  private onProcessData(data: string): void {
    if (this.disposed) return;
    this._lastOutputAt = Date.now();
    this.pendingChars += data.length;
    const parsed = this.terminal.write(data).then(() => {
      this.pendingChars -= data.length;
      if (this._paused && this.pendingChars < this.flow.lowWatermarkChars) {
        this._paused = false;
        this.process.resume();
      }
    });
    this.lastParsed = parsed;
    if (!this._paused && this.pendingChars > this.flow.highWatermarkChars) {
      this._paused = true;
      this.process.pause();
    }
  }

  private onProcessExit(info: ExitInfo): void {
    this.procCache = null;
    // xterm parses writes in order, so the last write's promise covers all earlier ones.
    void this.lastParsed.then(() => {
      this._exit = info;
      if (!this.disposed) this.exitEmitter.fire(info);
      this.resolveExit(info);
    });
  }

  private procSnapshot(maxAgeMs: number): ProcSnapshot {
    const now = Date.now();
    if (this.procCache && now - this.procCache.at < maxAgeMs) return this.procCache;
    if (this.process.exited || this.disposed) {
      this.procCache = { at: now, foreground: null, shellCwd: null };
      return this.procCache;
    }
    const fg = foregroundProcess(this.pid);
    const shellCwd = fg?.isShell ? fg.cwd : processCwd(this.pid);
    const snapshot = { at: now, foreground: fg, shellCwd };
    // Before the shell has printed anything it may not have exec'd (or chdir'd) yet: /proc then
    // shows the server's own process and cwd, which must not be remembered.
    if (this._lastOutputAt !== null) this.procCache = snapshot;
    return snapshot;
  }
}
