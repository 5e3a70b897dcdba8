/**
 * Keeps the saved session current (SPEC §13) while the server runs:
 * - the structure (`<session>.json`) within 1 s of any structural change, driven by the
 *   core's events and coalesced, and again whenever a pane's cwd or program changed;
 * - each pane's last `persist_scrollback_lines` lines within 30 s of changing, one pane
 *   per turn of the event loop, converting only rows new since its last save
 *   (scrollback-log.ts), compressed on the event loop 16 KB at a time (gzip-pieces.ts: not
 *   on zlib's thread pool, whose threads keep what they allocate); a pane in mid-flood waits for a
 *   pause (at most `floodDeferMaxMs`), since what it prints now replaces what a save would read;
 * - everything once more on shutdown (`flush`).
 * Writing never blocks pane output or a keystroke: all file I/O is async, and the only
 * synchronous work per turn is a slice of one pane's read of its own buffer or 16 KB compressed. A failing disk (full,
 * read-only) is reported once and the server goes on.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { CorralEvent } from '../contract/protocol.js';
import type { Disposable } from '../contract/disposable.js';
import type { PaneRecord } from '../session/model.js';
import { modelToState, type PaneFacts } from './session-state.js';
import { ensurePrivateStateDir, scrollbackFile, writeFileAtomic, type SessionFiles } from './state-files.js';
import { ScrollbackLog } from './scrollback-log.js';
import { released } from '../terminal/memory-release.js';
import { rm } from 'node:fs/promises';

export interface SaveTiming {
  structureDelayMs: number;
  scrollbackEveryMs: number;
  floodDeferMaxMs: number;
}

export const SAVE_TIMING: Readonly<SaveTiming> = {
  /** A burst of structural events (an `up` file) becomes one write this long after the first. */
  structureDelayMs: 150,
  /** How often panes with new output have their lines (and cwd, program) saved; well inside 30 s. */
  scrollbackEveryMs: 10_000,
  /**
   * A pane still printing fast waits for a pause before its lines are saved, but never longer
   * than this (10 s pass + 10 s wait + the save: inside the SPEC's 30 s). 0: never waits.
   */
  floodDeferMaxMs: 10_000,
};

/** Output this recent, with this many rows above the screen not yet converted: a flood. */
const FLOOD = { quietMs: 250, backlogRows: 500 } as const;

/**
 * Garbage a converted row leaves behind (its cells' SGR strings, the joined row, the line,
 * roughly): after a pass over many rows (panes that just printed thousands of lines) a
 * collection is asked for, as for a flood's raw rows, since an idle server allocates too
 * little for V8 to collect on its own (memory-release.ts).
 */
const GARBAGE_PER_ROW = 512;

/** How soon a pass runs again when a flooding pane was left for later. */
const FLOOD_RETRY_MS = 1000;

/** Events that change nothing saved: output (handled by the scrollback pass), agent chatter, a worktree's diff size. */
const NOT_STRUCTURAL = new Set<string>(['surface_changed', 'ai.tool_use', 'ai.notification', 'ai.prompt_submit', 'ai.stop', 'agent.status_changed', 'scripting.changed', 'worktree.changed']);

export interface SaverOptions {
  core: CorralCore;
  files: SessionFiles;
  session: string;
  scrollbackLines: number;
  /** Where problems go besides `problems` (the server's log). */
  log: (message: string) => void;
  timing?: Partial<SaveTiming>;
}

export class SessionSaver {
  readonly problems: string[] = [];
  savedAt: string | null = null;
  private readonly timing: SaveTiming;
  private structureTimer: NodeJS.Timeout | null = null;
  /** The next scrollback pass, armed by output (see schedulePass). */
  private passTimer: NodeJS.Timeout | null = null;
  private listener: Disposable | null = null;
  /**
   * Serialise writes, one at a time and in order, in two lines that never wait for each
   * other: the state file (SPEC §13: within 1 s of a change) must not queue behind a pass
   * converting and compressing many panes' lines, which takes seconds after a flood.
   */
  private readonly chains = { state: Promise.resolve() as Promise<unknown>, scrollback: Promise.resolve() as Promise<unknown> };
  /** The last state written, without its timestamp, so an unchanged one is not rewritten. */
  private lastWritten = '';
  /** Output generation of each pane's last saved scrollback. */
  private readonly savedGeneration = new Map<number, number>();
  private failing = false;
  /** Each pane's saved lines, kept compressed between saves (scrollback-log.ts). */
  private readonly logs = new Map<number, ScrollbackLog>();
  /** Since when each flooding pane's save has been put off. */
  private readonly deferredSince = new Map<number, number>();
  private retryTimer: NodeJS.Timeout | null = null;
  /** Rows converted by the pass under way (see GARBAGE_PER_ROW). */
  private rowsThisPass = 0;
  /** A scrollback pass is under way: the timer does not queue another behind it. */
  private passRunning = false;
  /** `session.forget`: nothing is written any more, not even what was queued before. */
  private discarded = false;

  constructor(private readonly options: SaverOptions) {
    this.timing = { ...SAVE_TIMING, ...options.timing };
    this.listener = options.core.listen((event) => this.onEvent(event));
  }

  /**
   * A pass runs `scrollbackEveryMs` after the first output since the last one, not on a
   * fixed beat: a server whose panes print nothing has nothing new to save, and a pass
   * would still read every pane's /proc entries and rebuild the state to compare it. After
   * a pass that saved lines, one more runs an interval later, for the state (a program
   * started just after the echo of its command line, which the pass may have read before
   * the shell ran it); a pass that found nothing new arms none, until the next output.
   */
  private schedulePass(): void {
    if (this.passTimer || !this.listener) return;
    this.passTimer = setTimeout(() => {
      this.passTimer = null;
      if (this.passRunning) this.schedulePass();
      else void this.saveChangedScrollback();
    }, this.timing.scrollbackEveryMs);
    this.passTimer.unref();
  }

  private onEvent(event: CorralEvent): void {
    if (event.type === 'surface_changed') this.schedulePass();
    if (event.type === 'pane.closed' && typeof event.surface_id === 'number') this.forgetScrollback(event.surface_id);
    // An agent's rename comes as a status change marked `renamed`; its name is saved.
    const structural = !NOT_STRUCTURAL.has(event.type) || (event.type === 'agent.status_changed' && 'renamed' in event && event.renamed === true);
    if (!structural || event.type.startsWith('session.')) return;
    this.structureTimer ??= setTimeout(() => {
      this.structureTimer = null;
      void this.saveState();
    }, this.timing.structureDelayMs);
  }

  /** What the core knows of a pane's process, for the state file. */
  private facts(pane: PaneRecord, fresh: boolean): PaneFacts {
    // Fresh /proc reads cost a scan per pane: only for the last save before a stop and
    // `session.save` (a `cd` just before kill-server must be what comes back); the saves
    // while running take the reads selectors and status rows already made (≤ 250 ms old).
    const maxAge = fresh ? 0 : undefined;
    const core = this.options.core;
    const launch = core.paneLaunch(pane);
    let command = '';
    let agent: PaneFacts['agent'] = null;
    try {
      const host = core.host(pane);
      const fg = host.foreground(maxAge);
      if (fg && !fg.isShell) command = core.paneCommand(pane, maxAge);
      const tracked = core.agents.agentIn(pane);
      // The command line `agent start` typed when corral started it (pi's process argv loses
      // its flags when it renames itself), else the process's own.
      if (tracked) agent = { kind: tracked.kind, name: tracked.name, argv: tracked.argv ?? (fg && !fg.isShell ? [...fg.argv] : []), session_id: tracked.sessionId };
    } catch {
      // An exited pane: nothing runs there.
    }
    return { cwd: core.paneCwd(pane, maxAge), command, env: launch.env, restore_command: launch.restoreCommand, agent };
  }

  private stateText(fresh: boolean): { text: string; compare: string } {
    const state = modelToState(this.options.core.model, (pane) => this.facts(pane, fresh), { session: this.options.session, savedAt: new Date() });
    const text = JSON.stringify(state, null, 1);
    return { text, compare: JSON.stringify({ ...state, saved_at: '' }) };
  }

  /** Queues `work` after every earlier write of its line. */
  private enqueue<T>(line: keyof SessionSaver['chains'], work: () => Promise<T>): Promise<T> {
    const run = this.chains[line].then(work, work);
    this.chains[line] = run.catch(() => {});
    return run;
  }

  private reportFailure(what: string, error: unknown): void {
    if (this.failing) return;
    this.failing = true;
    const message = `could not save the session (${what}: ${(error as Error).message}); the server goes on without saving until it can`;
    this.problems.push(message);
    this.options.log(message);
  }

  private recovered(): void {
    this.failing = false;
  }

  /** Writes the state file when it changed (or always, with `force`). */
  saveState(force = false, fresh = false): Promise<{ path: string; bytes: number } | null> {
    return this.enqueue('state', async () => {
      const started = performance.now();
      if (this.discarded) return null;
      const { text, compare } = this.stateText(fresh);
      const built = performance.now();
      if (!force && compare === this.lastWritten) return null;
      try {
        ensurePrivateStateDir(this.options.files.dir);
        const bytes = await writeFileAtomic(this.options.files.state, text);
        this.lastWritten = compare;
        this.savedAt = new Date().toISOString();
        this.recovered();
        // `ms`: what this save cost, from reading the model to the directory's fsync (bench/persist.mjs).
        // What this save cost (bench/persist.mjs): `build_ms` on the event loop (model and /proc
        // → JSON), `ms` in all, the async write and its fsyncs included.
        const round = (ms: number) => Math.round(ms * 100) / 100;
        this.options.core.bus.emit({ type: 'session.saved', path: this.options.files.state, bytes, ms: round(performance.now() - started), build_ms: round(built - started) });
        return { path: this.options.files.state, bytes };
      } catch (error) {
        this.reportFailure(this.options.files.state, error);
        return null;
      }
    });
  }

  /**
   * Saves the scrollback of one pane if it changed since its last save (`force`: anyway);
   * `mayWait`: a flooding pane may be left for a later pass (not on shutdown or `session.save`).
   */
  private async saveScrollback(pane: PaneRecord, force: boolean, mayWait: boolean): Promise<number> {
    const core = this.options.core;
    let host;
    try {
      host = core.host(pane);
    } catch {
      return 0;
    }
    const generation = host.outputGeneration;
    if (!force && this.savedGeneration.get(pane.surfaceId) === generation) return 0;
    let log = this.logs.get(pane.surfaceId);
    if (log?.terminal !== host.terminal) this.logs.set(pane.surfaceId, (log = new ScrollbackLog(host.terminal, this.options.scrollbackLines)));
    if (mayWait && this.floodGoesOn(pane.surfaceId, host.lastOutputAt, log)) return 0;
    const converted = log.stats.rowsConverted;
    const data = await log.save();
    this.rowsThisPass += log.stats.rowsConverted - converted;
    // Compressing took turns of the event loop: the session may have been forgotten meanwhile.
    if (data === null || this.discarded) return 0;
    const dir = this.options.files.scrollbackDir;
    ensurePrivateStateDir(dir);
    const bytes = await writeFileAtomic(scrollbackFile(this.options.files, pane.surfaceId), data);
    this.savedGeneration.set(pane.surfaceId, generation);
    return bytes;
  }

  /**
   * A pane printing fast right now (a `cat`, a build) waits: converting its rows now would
   * compete with the flood for the event loop, and the next pass would find them replaced.
   * It is saved once it pauses, or after `floodDeferMaxMs` of waiting.
   */
  private floodGoesOn(surfaceId: number, lastOutputAt: number | null, log: ScrollbackLog): boolean {
    const now = Date.now();
    const flooding = lastOutputAt !== null && now - lastOutputAt < FLOOD.quietMs && log.backlog() > FLOOD.backlogRows;
    const since = this.deferredSince.get(surfaceId) ?? now;
    if (!flooding || now - since >= this.timing.floodDeferMaxMs) {
      this.deferredSince.delete(surfaceId);
      return false;
    }
    this.deferredSince.set(surfaceId, since);
    this.retryTimer ??= setTimeout(() => {
      this.retryTimer = null;
      if (!this.passRunning && this.listener) void this.saveChangedScrollback();
    }, FLOOD_RETRY_MS);
    this.retryTimer.unref();
    return true;
  }

  /**
   * Saves the lines of every pane with new output (`force`: of every pane), one pane per turn
   * of the event loop, so a pass over 20 busy panes never holds output back.
   */
  private saveChangedScrollback(force = false, fresh = false): Promise<number> {
    this.passRunning = true;
    return this.enqueue('scrollback', async () => {
      let total = 0;
      this.rowsThisPass = 0;
      try {
        for (const pane of [...this.options.core.model.panes.values()]) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (!this.options.core.model.panes.has(pane.id)) continue;
          const bytes = await this.saveScrollback(pane, force, !force && !fresh);
          total += bytes;
          if (bytes > 0) this.recovered();
        }
      } catch (error) {
        this.reportFailure(this.options.files.scrollbackDir, error);
      }
      released(this.rowsThisPass * GARBAGE_PER_ROW);
      return total;
    }).then(async (total) => {
      this.passRunning = false;
      // One more pass after one that saved lines, for the state (see schedulePass).
      if (total > 0) this.schedulePass();
      // Output often means a `cd` or a new program: the state notices, and skips an unchanged write.
      await this.saveState(false, fresh);
      return total;
    });
  }

  private forgetScrollback(surfaceId: number): void {
    this.savedGeneration.delete(surfaceId);
    this.logs.delete(surfaceId);
    this.deferredSince.delete(surfaceId);
    void this.enqueue('scrollback', () => rm(scrollbackFile(this.options.files, surfaceId), { force: true }).catch(() => {}));
  }

  /** `session.save`: the state and every pane's scrollback now. */
  async saveNow(): Promise<{ path: string; bytes: number }> {
    await this.saveChangedScrollback(true, true);
    const saved = await this.saveState(true, true);
    if (!saved) throw new Error(this.problems.at(-1) ?? 'the session could not be saved');
    return saved;
  }

  /** Shutdown: stop listening, then write what changed since the last save. */
  async flush(): Promise<void> {
    this.dispose();
    await this.saveChangedScrollback(false, true);
  }

  /**
   * `session.forget`: stops saving for good. Writes already queued (a `session.save` under way,
   * the state save its pass queues when it ends) write nothing, or they would bring back what
   * is being deleted; resolves once the write under way, if any, has finished.
   */
  discard(): Promise<void> {
    this.discarded = true;
    this.dispose();
    return Promise.all([this.chains.state, this.chains.scrollback]).then(() => {});
  }

  dispose(): void {
    this.listener?.dispose();
    this.listener = null;
    if (this.structureTimer) clearTimeout(this.structureTimer);
    this.structureTimer = null;
    if (this.passTimer) clearTimeout(this.passTimer);
    this.passTimer = null;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }
}
