/**
 * The saved session of one server, end to end (SPEC §13): at start, restore (or, with
 * `--fresh`, move the saved session aside); while running, the saver; `session.save` and
 * `session.info` for the RPC; a last save on shutdown. start-server.ts owns one of these.
 */
import { existsSync, lstatSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { CorralError } from '../contract/protocol.js';
import type { CorralCore, SessionPersistence } from '../core/corral-core.js';
import { restoreSavedSession, type RestoreOutcome } from './restore.js';
import { SessionSaver } from './session-saver.js';
import { ensurePrivateStateDir, forgetSession, resolveStateDir, sessionFiles, type SessionFiles } from './state-files.js';

export interface PersistenceOptions {
  core: CorralCore;
  session: string;
  env: Record<string, string | undefined>;
  /** `--fresh`: start empty; the saved session is moved aside, not lost. */
  fresh: boolean;
  log: (message: string) => void;
}

export interface SessionInfo {
  path: string;
  enabled: boolean;
  saved_at: string | null;
  restored_from: string | null;
  restored_at: string | null;
  problems: string[];
}

export class Persistence implements SessionPersistence {
  private saver: SessionSaver | null = null;
  private outcome: RestoreOutcome | null = null;
  private readonly startProblems: string[] = [];
  private forgotten = false;
  /** The last `session.forget` under way: the next one removes files only after it. */
  private forgetting: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly options: PersistenceOptions,
    readonly files: SessionFiles,
    readonly enabled: boolean,
  ) {}

  /** Restores the saved session into `core` (unless off or fresh) and starts saving. Never throws. */
  static async start(options: PersistenceOptions): Promise<Persistence> {
    const { core } = options;
    const files = sessionFiles(resolveStateDir(options.env), options.session);
    const persistence = new Persistence(options, files, core.config.persist);
    if (!persistence.enabled) return persistence;
    await persistence.begin();
    return persistence;
  }

  private async begin(): Promise<void> {
    const { core } = this.options;
    try {
      ensurePrivateStateDir(this.files.dir);
    } catch (error) {
      // A directory corral must not trust (a link, another owner's) is neither read nor written.
      this.problem(`the session is not restored or saved: ${(error as Error).message}`);
      return;
    }
    if (this.options.fresh) await this.moveAsideForFresh();
    else {
      this.outcome = await restoreSavedSession(core, this.files, { resumeAgents: core.config.resume_agents, home: this.options.env.HOME });
      for (const problem of this.outcome.problems) this.options.log(problem);
      if (this.outcome.restoredFrom) {
        // A start after a crash says what it came back to (issue 42's kill test reads this).
        this.options.log(`restored the session from ${this.outcome.restoredFrom} (saved ${this.outcome.savedAt ?? 'at an unknown time'}): ${this.outcome.panes} pane${this.outcome.panes === 1 ? '' : 's'}`);
        core.bus.emit({ type: 'session.restored', path: this.outcome.restoredFrom, panes: this.outcome.panes, problems: [...this.outcome.problems] });
      }
      if (!this.outcome.mayWrite) return;
    }
    this.saver = new SessionSaver({
      core,
      files: this.files,
      session: this.options.session,
      scrollbackLines: core.config.persist_scrollback_lines,
      log: this.options.log,
      timing: timingFromEnv(this.options.env),
    });
  }

  private problem(message: string): void {
    this.startProblems.push(message);
    this.options.log(message);
  }

  /** `--fresh`: the saved state and scrollback go to `….before-fresh-<time>`, kept for the user. */
  private async moveAsideForFresh(): Promise<void> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    for (const path of [this.files.state, this.files.scrollbackDir]) {
      if (!existsSync(path) && !isLink(path)) continue;
      const target = `${path}.before-fresh-${stamp}`;
      try {
        await rename(path, target);
        this.options.log(`--fresh: the saved session ${path} was moved to ${target}`);
      } catch (error) {
        this.problem(`--fresh: could not move ${path} aside (${(error as Error).message}); it is not saved over`);
        return;
      }
    }
  }

  get problems(): string[] {
    return [...this.startProblems, ...(this.outcome?.problems ?? []), ...(this.saver?.problems ?? [])];
  }

  info(): SessionInfo {
    return {
      path: this.files.state,
      enabled: this.enabled,
      saved_at: this.saver?.savedAt ?? this.outcome?.savedAt ?? null,
      restored_from: this.outcome?.restoredFrom ?? null,
      restored_at: this.outcome?.restoredAt ?? null,
      problems: this.problems,
    };
  }

  async save(): Promise<{ path: string; bytes: number }> {
    if (!this.saver) {
      const why = !this.enabled
        ? 'persist = false in config.toml'
        : this.forgotten
          ? 'it was forgotten (kill-server --forget)'
          : this.problems.at(-1) ?? 'saving is off for this server';
      throw new CorralError('invalid_params', `the session is not saved: ${why}`, { path: this.files.state });
    }
    try {
      return await this.saver.saveNow();
    } catch (error) {
      // Forgotten while it ran (session.forget on another connection): refused as any save after it.
      if (this.forgotten) throw new CorralError('invalid_params', 'the session is not saved: it was forgotten (kill-server --forget)', { path: this.files.state });
      throw new CorralError('internal_error', (error as Error).message, { path: this.files.state });
    }
  }

  /**
   * `kill-server --forget`: stops saving and deletes the saved state and scrollback, so the
   * shutdown that follows leaves nothing to restore.
   */
  forget(): Promise<{ path: string; forgotten: boolean }> {
    // A scrollback file still being written would land in the folder being removed (rmdir's
    // ENOTEMPTY, found by a fuzzer as internal_error): the write under way finishes first, and
    // none queued behind it writes. A second forget meanwhile waits for the first.
    const stopped = this.saver?.discard();
    this.saver = null;
    this.forgotten = true;
    const run = this.forgetting.then(async () => {
      await stopped;
      return { path: this.files.state, forgotten: await forgetSession(this.files) };
    });
    this.forgetting = run.catch(() => {});
    return run;
  }

  /** Shutdown: the last save, before the panes are ended. */
  async flush(): Promise<void> {
    await this.saver?.flush();
  }

  dispose(): void {
    this.saver?.dispose();
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * For bench/persist.mjs only, not user settings: CORRAL_PERSIST_SCROLLBACK_MS, how often
 * changed scrollback is saved (it saves every 500 ms to measure the worst case), and
 * CORRAL_PERSIST_FLOOD_DEFER_MS, how long a flooding pane's save may wait (0: it never
 * waits, to measure saves in mid-flood).
 */
function timingFromEnv(env: Record<string, string | undefined>): { scrollbackEveryMs?: number; floodDeferMaxMs?: number } {
  const every = Number(env.CORRAL_PERSIST_SCROLLBACK_MS);
  const defer = env.CORRAL_PERSIST_FLOOD_DEFER_MS === undefined ? NaN : Number(env.CORRAL_PERSIST_FLOOD_DEFER_MS);
  return {
    ...(Number.isInteger(every) && every >= 100 && every <= 30_000 ? { scrollbackEveryMs: every } : {}),
    ...(Number.isInteger(defer) && defer >= 0 && defer <= 20_000 ? { floodDeferMaxMs: defer } : {}),
  };
}
