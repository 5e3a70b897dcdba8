/**
 * One pane's engine: a PaneProcess feeding a PaneTerminal, and a throttled view of the
 * pane's foreground process for detection and selectors.
 *
 * Flow control: the terminal parses each output batch before the next pty read (see
 * PaneTerminal.write), so a flood waits in the kernel's pty buffer — the writer blocks, as
 * under tmux — and never piles up in memory. Should xterm ever leave a batch queued, reading
 * pauses until it is parsed. Reads of all panes are scheduled together (`ReadTurn`): a
 * time budget per event-loop turn, and the echo of a keystroke read before other panes' output,
 * so a flood never holds a keystroke or another pane's echo behind it.
 */
import { Emitter } from '../terminal/emitter.js';
import type { Disposable } from '../contract/disposable.js';
import { SYSTEM_CLOCK, type Clock } from '../clock.js';
import { PaneTerminal, TERMINAL_DEFAULTS } from '../terminal/pane-terminal.js';
import { foregroundProcess, PROC, type ForegroundProcess, type ProcessTable } from './foreground.js';
import { PaneProcess, type ExitInfo, type PtyChild, type PtyOutput, type SpawnOptions } from './pane-process.js';
import { SHARED_READ_TURN, type ReadTurn } from './read-turn.js';
import { PaneInput } from './pane-input.js';
import { PasteStream } from './paste-stream.js';
import { TypedLine } from './typed-line.js';

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
  /** Starts the child (a real pty unless a test scripts one). */
  spawn?: (options: SpawnOptions) => PtyChild;
  /** Where the foreground process and cwd are read (the real /proc unless a test brings a table). */
  processes?: ProcessTable;
  /** When output arrives and how old a /proc look is (the system clock unless a test moves its own). */
  clock?: Clock;
  /** The per-turn budget for handling output (the server's shared one unless a test brings its own). */
  readTurn?: ReadTurn;
}

interface ProcSnapshot {
  at: number;
  foreground: ForegroundProcess | null;
  shellCwd: string | null;
}

/** Makes the live half of a pane from its spec; the core takes one so unit tests can script the child. */
export type PaneFactory = (spec: PaneHostOptions) => PaneHost;

/** The production factory: a real pty. */
export const spawnPaneHost: PaneFactory = (spec) => new PaneHost(spec);

/** A running pane: process + terminal. */
export class PaneHost {
  readonly terminal: PaneTerminal;
  readonly process: PtyChild;
  /** The one ordered way into the pty: every write below goes through it (src/pty/pane-input.ts). */
  readonly input: PaneInput;
  private readonly processes: ProcessTable;
  private readonly clock: Clock;
  private readonly exitEmitter = new Emitter<ExitInfo>();
  private readonly subscriptions: Disposable[] = [];
  private readonly initialCwd: string;
  /**
   * Why reading is stopped: xterm still holds output (`parse`), this turn's reading budget is
   * spent (`turn`), another pane's echo is awaited (`echo`). Reading resumes when none is left.
   */
  private readonly stops = new Set<'parse' | 'turn' | 'echo'>();
  private readonly readTurn: ReadTurn;
  private lastParsed: Promise<void> = Promise.resolve();
  private _lastOutputAt: number | null = null;
  /** Sees the next output before anything else does, once (`typeKeys`). */
  private echoHook: ((data: PtyOutput) => void) | null = null;
  private _exit: ExitInfo | null = null;
  private readonly exitPromise: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;
  private procCache: ProcSnapshot | null = null;
  private disposed = false;
  /** A command line corral typed that the shell may not have taken yet (src/pty/typed-line.ts). */
  readonly typedLine: TypedLine;

  /** Spawn the shell on a new pty and start feeding its output into a fresh terminal. */
  constructor(options: PaneHostOptions) {
    this.initialCwd = options.cwd;
    this.processes = options.processes ?? PROC;
    this.clock = options.clock ?? SYSTEM_CLOCK;
    this.readTurn = options.readTurn ?? SHARED_READ_TURN;
    this.typedLine = new TypedLine(this.clock);
    this.exitPromise = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
    this.terminal = new PaneTerminal({
      cols: options.cols,
      rows: options.rows,
      scrollback: options.scrollback ?? TERMINAL_DEFAULTS.scrollback,
      // CORRAL_COMPACT_SCROLLBACK=0 keeps all scrollback in xterm, as before the compact store:
      // only so bench/scale.mjs can show what the store buys (docs/bench.md).
      compactScrollback: process.env.CORRAL_COMPACT_SCROLLBACK !== '0',
    });
    this.process = (options.spawn ?? PaneProcess.spawn)({
      file: options.shell,
      args: options.shellArgs ?? [],
      cwd: options.cwd,
      env: options.env,
      cols: options.cols,
      rows: options.rows,
    });
    this.input = new PaneInput((bytes) => this.process.writeSome(bytes));
    this.subscriptions.push(
      this.process.onData((data) => this.onProcessData(data)),
      // Answers to the application's queries go back on its own input, as from a terminal, in
      // their turn (never inside a paste). A program whose input is full gets none: it is not
      // reading what it asked for either.
      this.terminal.onReply((data) => void this.input.send(Buffer.from(data, 'utf8'))),
    );
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

  /** Reading from the pty is paused because xterm has output still queued. */
  get paused(): boolean {
    return this.stops.has('parse');
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

  /**
   * Sends one unit of input (keys, a command line, a whole paste) behind everything sent
   * before it. Returns false, sending nothing, when the pane's input queue is at its bound
   * (its program is not reading): the caller says so.
   */
  write(data: string | Uint8Array): boolean {
    if (this.disposed) return true;
    const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (!this.input.send(bytes)) return false;
    this.readTurn.expectEcho(this);
    return true;
  }

  /**
   * The typing express (TuiController.typeExpress): a keystroke's bytes written to the pty in
   * this call, and `onEcho` handed the pane's next output before anything else sees it (its
   * echo, to be drawn before the terminal parses it). Returns false, having done nothing, when
   * any input is queued or a paste is open: `write` then, in its turn.
   */
  typeKeys(bytes: Uint8Array, onEcho: (data: PtyOutput) => void): boolean {
    if (this.disposed || !this.input.sendIfIdle(bytes)) return false;
    this.readTurn.expectEcho(this);
    this.echoHook = onEcho;
    return true;
  }

  /** A paste from a client's terminal, streamed in as it arrives (src/pty/paste-stream.ts). */
  openPaste(): PasteStream {
    return new PasteStream(this.input, this.terminal.bracketedPasteMode);
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
    this.readTurn.forget(this);
    for (const s of this.subscriptions) s.dispose();
    this.input.close();
    this.process.dispose();
    this.terminal.dispose();
    this.exitEmitter.clear();
    this.typedLine.taken();
  }

  private onProcessData(data: PtyOutput): void {
    if (this.disposed) return;
    const hook = this.echoHook;
    if (hook !== null) {
      this.echoHook = null;
      try {
        hook(data);
      } catch {
        // Only a head start: the output is parsed and drawn below all the same.
      }
    }
    this.readTurn.enter(this);
    this.typedLine.output(data);
    this._lastOutputAt = this.clock.now();
    const parsed = this.terminal.write(data);
    this.lastParsed = parsed;
    if (!this.terminal.parsedAll && !this.stops.has('parse')) {
      this.stopReading('parse');
      this.resumeWhenParsed();
    }
    if (!this.stops.has('echo') && this.readTurn.mustWait(this, () => this.resumeReading('echo'))) {
      this.stopReading('echo');
    } else if (!this.stops.has('turn') && this.readTurn.spent()) {
      this.stopReading('turn');
      this.readTurn.afterPoll(() => this.resumeReading('turn'));
    }
  }

  private stopReading(reason: 'parse' | 'turn' | 'echo'): void {
    if (this.stops.size === 0) this.process.pause();
    this.stops.add(reason);
  }

  private resumeReading(reason: 'parse' | 'turn' | 'echo'): void {
    if (!this.stops.delete(reason) || this.stops.size > 0 || this.disposed) return;
    this.process.resume();
  }

  private resumeWhenParsed(): void {
    void this.lastParsed.then(() => {
      // Batches already read when the pause began may have queued behind this one.
      if (!this.terminal.parsedAll) return this.resumeWhenParsed();
      this.resumeReading('parse');
    });
  }

  private onProcessExit(info: ExitInfo): void {
    this.procCache = null;
    // Nothing queued can reach a program that is gone.
    this.input.close();
    this.typedLine.taken();
    // xterm parses writes in order, so the last write's promise covers all earlier ones.
    void this.lastParsed.then(() => {
      this._exit = info;
      if (!this.disposed) this.exitEmitter.fire(info);
      this.resolveExit(info);
    });
  }

  private procSnapshot(maxAgeMs: number): ProcSnapshot {
    const now = this.clock.now();
    if (this.procCache && now - this.procCache.at < maxAgeMs) return this.procCache;
    if (this.process.exited || this.disposed) {
      this.procCache = { at: now, foreground: null, shellCwd: null };
      return this.procCache;
    }
    const fg = foregroundProcess(this.pid, this.processes);
    const shellCwd = fg?.isShell ? fg.cwd : this.processes.cwd(this.pid);
    const snapshot = { at: now, foreground: fg, shellCwd };
    // Before the shell has printed anything it may not have exec'd (or chdir'd) yet: /proc then
    // shows the server's own process and cwd, which must not be remembered. Nor may a job caught
    // inside execve, named but without its arguments yet.
    if (this._lastOutputAt !== null && fg?.execing !== true) this.procCache = snapshot;
    return snapshot;
  }
}
