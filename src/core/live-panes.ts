/**
 * Each pane's live half (the core's): its pty and headless terminal, started with the pane's
 * environment, its output coalesced into `surface_changed`, its exit reported, and what /proc
 * says of it now — cwd, foreground command, keyboard modes, where a caller's process stands.
 * The session model (src/session/) is the other half; CorralCore joins the two.
 */
import { CorralError, LIMITS, type EventInput } from '../contract/protocol.js';
import type { PaneRecord } from '../session/model.js';
import type { PaneFactory, PaneHost } from '../pty/pane-host.js';
import type { ProcessTable } from '../pty/foreground.js';
import { PEER_PROC, placeProcess, type PaneProcess, type PeerPlace, type PeerProcfs } from '../pty/peer-place.js';
import type { Clock, ClockTimer } from '../clock.js';
import type { KeyboardModesView } from '../terminal/keyboard-modes.js';
import { keyboardInForce, NO_ENHANCEMENT } from './pane-keyboard.js';
import type { ExitInfo, PtyOutput } from '../pty/pane-process.js';
import { paneEnvironment } from './pane-env.js';

/** A pane's live half: the pty/terminal pair plus bookkeeping for events. */
interface LivePane {
  host: PaneHost;
  /** The program the pane was spawned with (its shell). */
  shell: string;
  surfaceChangedTimer: ClockTimer | null;
  lastSurfaceChangedAt: number;
  /** Variables given at creation (an `up` file's `env`): saved with the session (SPEC §13). */
  createdEnv: Record<string, string>;
  /** A command re-run when the session is restored (`up` file `restore = true`). */
  restoreCommand: string | null;
  /** The pane's pty as a device number, once read from its shell (it never changes). */
  ttyRdev: number | null;
}

/**
 * A pane's pty, read from its shell: once the shell leads its own session (forkpty's setsid)
 * with a controlling terminal (its TIOCSCTTY), that terminal is the pane's for good. Read
 * earlier, the forked child still has the server's session and terminal: null, try again.
 */
function paneTty(procfs: PeerProcfs, pid: number): number | null {
  const stat = procfs.stat(pid);
  return stat && stat.session === pid && stat.ttyNr !== 0 ? stat.ttyNr : null;
}

/** What starting and watching panes needs of the core. */
export interface LivePanesHost {
  factory: PaneFactory;
  clock: Clock;
  baseEnv: NodeJS.ProcessEnv;
  socketPath: string;
  launcherDir: string | null;
  processes?: ProcessTable;
  peers?: PeerProcfs;
  paneBySurface(surfaceId: number): PaneRecord | undefined;
  emit(event: EventInput): void;
  /** Output arrived (after the coalesced `surface_changed` was planned). */
  onOutput(surfaceId: number): void;
  onExit(surfaceId: number, info: ExitInfo): void;
}

/** How a pane starts: its shell, its size, scrollback, extra variables, lines written before the shell's first. */
export interface PaneStart {
  shell: string;
  cols: number;
  rows: number;
  scrollback: number;
  env?: Record<string, string>;
  preamble?: string;
}

export class LivePanes {
  private readonly live = new Map<number, LivePane>();

  constructor(private readonly host: LivePanesHost) {}

  /** Spawns the pane's shell in a pty of its own. */
  start(pane: PaneRecord, start: PaneStart): void {
    const host = this.host.factory({
      shell: start.shell,
      cwd: pane.startCwd,
      env: paneEnvironment({ base: this.host.baseEnv, socketPath: this.host.socketPath, launcherDir: this.host.launcherDir, pane, extra: start.env }),
      cols: Math.max(1, start.cols),
      rows: Math.max(1, start.rows),
      scrollback: start.scrollback,
      processes: this.host.processes,
      clock: this.host.clock,
    });
    host.terminal.log.label = `surface ${pane.surfaceId}`;
    const live: LivePane = { host, shell: start.shell, surfaceChangedTimer: null, lastSurfaceChangedAt: 0, createdEnv: { ...start.env }, restoreCommand: null, ttyRdev: null };
    // Before the shell can print: the pty's first output arrives on a later turn of the loop.
    if (start.preamble) void host.terminal.write(start.preamble);
    this.live.set(pane.surfaceId, live);
    host.onOutput(() => {
      this.coalesceOutput(pane.surfaceId);
      this.host.onOutput(pane.surfaceId);
    });
    host.onExit((info) => this.host.onExit(pane.surfaceId, info));
  }

  /** The live pty/terminal of a pane, or null (not started, or gone). */
  find(pane: PaneRecord): PaneHost | null {
    return this.live.get(pane.surfaceId)?.host ?? null;
  }

  /** The live pty/terminal of a pane; `pane_not_found` when it has none. */
  get(pane: PaneRecord): PaneHost {
    const live = this.live.get(pane.surfaceId);
    if (!live) throw new CorralError('pane_not_found', `pane ${pane.id} has no process`, { pane_id: pane.id });
    return live.host;
  }

  /** The pty of a pane whose process still runs; `pane_not_found` once it has exited. */
  running(pane: PaneRecord): PaneHost {
    const live = this.live.get(pane.surfaceId);
    if (!live || live.host.exited) throw new CorralError('pane_not_found', `pane ${pane.id} has exited`, { pane_id: pane.id });
    return live.host;
  }

  *pids(): Iterable<number> {
    for (const live of this.live.values()) yield live.host.pid;
  }

  /** Where process `pid` stands relative to the panes (src/pty/peer-place.ts). */
  place(pid: number, followTerminal: boolean): PeerPlace {
    const procfs = this.host.peers ?? PEER_PROC;
    const panes: PaneProcess[] = [];
    for (const [surfaceId, live] of this.live) {
      live.ttyRdev ??= paneTty(procfs, live.host.pid);
      panes.push({ surfaceId, pid: live.host.pid, ttyRdev: live.ttyRdev });
    }
    return placeProcess(pid, panes, procfs, { followTerminal, serverPid: process.pid, uid: process.getuid?.() ?? -1 });
  }

  exit(pane: PaneRecord): { exited: boolean; exitCode: number | null; exitSignal: string | null } {
    const live = this.live.get(pane.surfaceId);
    // The host holds the exit (once its output is parsed); a pane without one has gone.
    const exit = live ? live.host.exitInfo : null;
    return { exited: live ? exit !== null : true, exitCode: exit?.exitCode ?? null, exitSignal: exit?.signal ?? null };
  }

  typeKeys(pane: PaneRecord, bytes: Uint8Array, onEcho: (data: PtyOutput) => void): boolean {
    const live = this.live.get(pane.surfaceId);
    return live !== undefined && !live.host.exited && live.host.typeKeys(bytes, onEcho);
  }

  cwd(pane: PaneRecord, maxAgeMs?: number): string {
    const live = this.live.get(pane.surfaceId);
    // Until the shell has printed anything it may not even have exec'd yet, and /proc would
    // show the server's own cwd: the directory it was started in is the truth then.
    if (!live || live.host.exited || live.host.lastOutputAt === null) return pane.startCwd;
    return live.host.cwd(maxAgeMs) || pane.startCwd;
  }

  command(pane: PaneRecord, maxAgeMs?: number): string {
    const live = this.live.get(pane.surfaceId);
    if (!live || live.host.exited) return '';
    if (live.host.lastOutputAt === null) return live.shell;
    return live.host.commandLine(maxAgeMs) || live.shell;
  }

  foregroundProgram(pane: PaneRecord): string | null {
    const live = this.live.get(pane.surfaceId);
    if (!live || live.host.exited || live.host.isShellAtPrompt(0)) return null;
    return live.host.foreground(0)?.argv[0] ?? '';
  }

  keyboard(pane: PaneRecord): KeyboardModesView {
    const live = this.live.get(pane.surfaceId);
    return live ? keyboardInForce(live.host) : NO_ENHANCEMENT;
  }

  launch(pane: PaneRecord): { env: Record<string, string>; restoreCommand: string | null } {
    const live = this.live.get(pane.surfaceId);
    return { env: { ...live?.createdEnv }, restoreCommand: live?.restoreCommand ?? null };
  }

  setRestoreCommand(pane: PaneRecord, command: string | null): void {
    const live = this.live.get(pane.surfaceId);
    if (live) live.restoreCommand = command;
  }

  /** Resizes a pane's pty (an exited one is left as it is). */
  resize(pane: PaneRecord, cols: number, rows: number): void {
    const live = this.live.get(pane.surfaceId);
    if (live && !live.host.exited) live.host.resize(Math.max(1, cols), Math.max(1, rows));
  }

  /** Ends a closed pane's process group and forgets it. */
  stop(surfaceId: number): void {
    const live = this.live.get(surfaceId);
    if (!live) return;
    this.live.delete(surfaceId);
    void this.stopLive(live);
  }

  /** Ends every pane's process group (server shutdown). */
  async stopAll(): Promise<void> {
    await Promise.all([...this.live.values()].map((live) => this.stopLive(live)));
    this.live.clear();
  }

  /** Coalesces output into at most one `surface_changed` per pane per interval. */
  private coalesceOutput(surfaceId: number): void {
    const live = this.live.get(surfaceId);
    if (!live || live.surfaceChangedTimer) return;
    const clock = this.host.clock;
    const wait = live.lastSurfaceChangedAt + LIMITS.surfaceChangedMs - clock.now();
    const fire = () => {
      live.surfaceChangedTimer = null;
      live.lastSurfaceChangedAt = clock.now();
      const pane = this.host.paneBySurface(surfaceId);
      if (pane) this.host.emit({ type: 'surface_changed', surface_id: pane.surfaceId, pane_id: pane.id, workspace: pane.workspaceId, output_generation: live.host.outputGeneration });
    };
    if (wait <= 0) fire();
    else live.surfaceChangedTimer = clock.setTimeout(fire, wait);
  }

  private async stopLive(live: LivePane): Promise<void> {
    if (live.surfaceChangedTimer) this.host.clock.clear(live.surfaceChangedTimer);
    try {
      if (!live.host.exited) await live.host.kill();
    } finally {
      live.host.dispose();
    }
  }
}
