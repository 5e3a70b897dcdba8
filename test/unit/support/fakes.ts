/**
 * Stand-ins for what sits under the core and the agent registry — time, the pty child and
 * /proc — plugged in through their seams (Clock, PaneHostOptions.spawn, ProcessTable). The
 * core, the registry, PaneHost and its xterm terminal above them are the real ones.
 */
import type { Clock, ClockTimer } from '../../../src/clock.js';
import type { ProcessTable, ProcStat } from '../../../src/pty/foreground.js';
import type { ExitInfo, PtyChild, PtyOutput, SpawnOptions } from '../../../src/pty/pane-process.js';
import type { LineMode } from '../../../src/pty/line-mode.js';
import { PaneHost, type PaneFactory, type PaneHostOptions } from '../../../src/pty/pane-host.js';
import { Emitter } from '../../../src/terminal/emitter.js';
import type { Disposable } from '../../../src/contract/disposable.js';

interface FakeTimer extends ClockTimer {
  id: number;
}

/** A clock that moves only when told; timers fire in due order as it passes them. */
export class FakeClock implements Clock {
  private time: number;
  private nextId = 1;
  private readonly timers = new Map<number, { at: number; every: number | null; callback: () => void }>();

  constructor(start = 1_700_000_000_000) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): ClockTimer {
    return this.add(callback, ms, null);
  }

  setInterval(callback: () => void, ms: number): ClockTimer {
    return this.add(callback, ms, Math.max(1, ms));
  }

  clear(timer: ClockTimer): void {
    this.timers.delete((timer as FakeTimer).id);
  }

  /** Timers waiting to fire. */
  get pending(): number {
    return this.timers.size;
  }

  /** Moves time on by `ms`, firing every timer that falls due on the way (in order, at its time). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      let next: [number, { at: number; every: number | null; callback: () => void }] | null = null;
      for (const entry of this.timers) if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
      if (!next) break;
      const [id, timer] = next;
      this.time = Math.max(this.time, timer.at);
      if (timer.every === null) this.timers.delete(id);
      else timer.at += timer.every;
      timer.callback();
    }
    this.time = end;
  }

  private add(callback: () => void, ms: number, every: number | null): FakeTimer {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + Math.max(0, ms), every, callback });
    const timer: FakeTimer = { id, unref: () => timer };
    return timer;
  }
}

/** A scripted pane child: records what the core sends it, and outputs or exits when told. */
export class FakeChild implements PtyChild {
  readonly writes: string[] = [];
  size: { cols: number; rows: number };
  killed = false;
  disposed = false;
  /** What `lineMode()` reports: null (unreadable) unless a test sets the program's modes. */
  mode: LineMode | null = null;
  private readonly data = new Emitter<PtyOutput>();
  private exit: ExitInfo | null = null;
  private readonly exitPromise: Promise<ExitInfo>;
  private resolveExit!: (info: ExitInfo) => void;

  constructor(
    readonly pid: number,
    readonly spawned: SpawnOptions,
  ) {
    this.size = { cols: spawned.cols, rows: spawned.rows };
    this.exitPromise = new Promise((resolve) => {
      this.resolveExit = resolve;
    });
  }

  get exited(): boolean {
    return this.exit !== null;
  }

  onData(listener: (data: PtyOutput) => void): Disposable {
    return this.data.on(listener);
  }

  lineMode(): LineMode | null {
    return this.mode;
  }

  waitForExit(): Promise<ExitInfo> {
    return this.exitPromise;
  }

  /** Whether the program takes input now: false is a full pty (EAGAIN), so input queues in the pane. */
  takesInput = true;

  writeSome(bytes: Uint8Array): number {
    if (this.exited) throw new Error('the pty is closed');
    if (!this.takesInput) return 0;
    this.writes.push(Buffer.from(bytes).toString('utf8'));
    return bytes.length;
  }

  resize(cols: number, rows: number): void {
    if (!this.exited) this.size = { cols, rows };
  }

  pause(): void {}
  resume(): void {}

  async kill(): Promise<void> {
    this.killed = true;
    this.end({ exitCode: null, signal: 'SIGHUP' });
  }

  dispose(): void {
    this.disposed = true;
  }

  /** The program prints `text`. */
  output(text: string): void {
    if (!this.exited) this.data.fire(text);
  }

  /** The program ends by itself. */
  end(info: ExitInfo = { exitCode: 0, signal: null }): void {
    if (this.exit) return;
    this.exit = info;
    this.resolveExit(info);
  }
}

/**
 * A pane factory for the core: real PaneHosts (real headless terminal) over FakeChild, with
 * pids from 4242 up. `specs` and `children` grow in creation order.
 */
export function fakePanes(): { factory: PaneFactory; specs: PaneHostOptions[]; children: FakeChild[] } {
  const specs: PaneHostOptions[] = [];
  const children: FakeChild[] = [];
  const factory: PaneFactory = (spec) => {
    specs.push(spec);
    return new PaneHost({
      ...spec,
      spawn: (options) => {
        const child = new FakeChild(4242 + children.length, options);
        children.push(child);
        return child;
      },
    });
  };
  return { factory, specs, children };
}

/** A real PaneHost (80×24, /bin/sh in /home/user) whose child is a FakeChild with `pid`. */
export function fakePaneHost(pid: number, options: { processes: ProcessTable; clock: Clock }): { host: PaneHost; child: FakeChild } {
  let child!: FakeChild;
  const host = new PaneHost({
    shell: '/bin/sh',
    cwd: '/home/user',
    env: {},
    cols: 80,
    rows: 24,
    scrollback: 100,
    spawn: (spawned) => (child = new FakeChild(pid, spawned)),
    ...options,
  });
  return { host, child };
}

/** One made-up process. */
export interface FakeProcess {
  pid: number;
  ppid: number;
  pgrp: number;
  session: number;
  /** The terminal's foreground group, as seen from this process (the same for a whole session). */
  tpgid: number;
  /** Its controlling terminal's device number; 0 (none) unless given. */
  ttyNr?: number;
  argv: string[];
  cwd?: string;
  exe?: string;
  state?: string;
  /** The kernel's name for it; argv[0]'s basename unless given. */
  comm?: string;
}

/** A /proc of made-up processes; `children` is derived from ppid. */
export class FakeProcessTable implements ProcessTable {
  readonly processes = new Map<number, FakeProcess>();
  /** How many reads were made, for checking that callers throttle. */
  reads = 0;

  set(process: FakeProcess): void {
    this.processes.set(process.pid, process);
  }

  remove(pid: number): void {
    this.processes.delete(pid);
  }

  /**
   * A shell `shellPid` leading its own session with `job` (if any) in the foreground as its
   * child; the session's processes are replaced.
   */
  session(shellPid: number, job: { pid: number; argv: string[] } | null, shellArgv = ['-bash']): void {
    for (const [pid, p] of this.processes) if (p.session === shellPid) this.processes.delete(pid);
    const tpgid = job ? job.pid : shellPid;
    this.set({ pid: shellPid, ppid: 1, pgrp: shellPid, session: shellPid, tpgid, argv: shellArgv, cwd: '/home/user' });
    if (job) this.set({ pid: job.pid, ppid: shellPid, pgrp: job.pid, session: shellPid, tpgid, argv: job.argv, cwd: '/home/user/project' });
  }

  stat(pid: number): ProcStat | null {
    this.reads++;
    const p = this.processes.get(pid);
    if (!p) return null;
    return { pid: p.pid, comm: p.comm ?? (p.argv[0] ?? '').split('/').pop()!.slice(0, 15), state: p.state ?? 'S', ppid: p.ppid, pgrp: p.pgrp, session: p.session, ttyNr: p.ttyNr ?? 0, tpgid: p.tpgid };
  }

  cmdline(pid: number): string[] | null {
    this.reads++;
    return this.processes.get(pid)?.argv.slice() ?? null;
  }

  cwd(pid: number): string | null {
    this.reads++;
    return this.processes.get(pid)?.cwd ?? null;
  }

  exe(pid: number): string | null {
    this.reads++;
    return this.processes.get(pid)?.exe ?? null;
  }

  children(pid: number): number[] | null {
    this.reads++;
    if (!this.processes.has(pid)) return [];
    return [...this.processes.values()].filter((p) => p.ppid === pid).map((p) => p.pid);
  }

  pids(): number[] {
    this.reads++;
    return [...this.processes.keys()];
  }

  realpath(_pid: number, file: string): string | null {
    return file;
  }
}
