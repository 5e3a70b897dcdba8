/**
 * One agent's lifecycle state (SPEC §4), as a pure state machine: what detection observed
 * goes in (screen verdicts, hook events, activity, visibility), the canonical status, the
 * `seen` flag, `state_change_seq` and `completion_seq` come out. Time is passed in, so tests
 * run on a fake clock; the tracker owns the timers.
 */
import type { AgentStatus } from '../contract/protocol.js';

/** What a detector can say about an agent's screen or hooks. */
export type DetectedStatus = 'idle' | 'working' | 'blocked' | 'unknown';

/** How long after a hook event the screen may not contradict it (hooks are the stronger source). */
export const HOOK_PRECEDENCE_MS = 2500;

/** Global counter shared by every agent of a server (SPEC §4 `state_change_seq`). */
export class SequenceCounter {
  private value = 0;
  next(): number {
    return ++this.value;
  }
  get current(): number {
    return this.value;
  }
}

export interface AgentSnapshot {
  status: AgentStatus;
  detected: DetectedStatus;
  seen: boolean;
  hooked: boolean;
  stateChangeSeq: number;
  completionSeq: number | undefined;
  message: string | null;
  activeToolName: string | null;
  lastResult: string | null;
  /** When the current status began (ms). */
  statusSince: number;
  /** Last output or hook event (ms). */
  lastActivityAt: number;
  interactiveReady: boolean;
}

export interface StatusChange {
  from: AgentStatus;
  to: AgentStatus;
  seq: number;
  /** The transition completed real work (working|blocked → idle after a prompt). */
  completed: boolean;
}

export class AgentState {
  private detected: DetectedStatus = 'unknown';
  private effective: AgentStatus = 'unknown';
  private _seen = true;
  private _hooked = false;
  private seq = 0;
  private completion: number | undefined;
  private since: number;
  private lastActivity: number;
  private lastHookAt = -Infinity;
  private stalled = false;
  private errored = false;
  /** Working or blocked was seen since the agent last became idle: the next idle completes work. */
  private workedSinceIdle = false;
  private ready = false;
  message: string | null = null;
  activeToolName: string | null = null;
  lastResult: string | null = null;

  constructor(
    private readonly counter: SequenceCounter,
    now: number,
  ) {
    this.since = now;
    this.lastActivity = now;
  }

  get status(): AgentStatus {
    return this.effective;
  }

  get seen(): boolean {
    return this._seen;
  }

  get hooked(): boolean {
    return this._hooked;
  }

  /**
   * A settled screen verdict. Ignored while a recent hook event says otherwise, since hooks
   * report exactly what the agent did and the screen lags or misreads.
   */
  observeScreen(
    status: DetectedStatus,
    now: number,
    opts: { message?: string | null; visible: boolean; interrupted?: boolean; ready?: boolean },
  ): StatusChange | null {
    // Readiness needs positive evidence (an idle rule matched), where the kind can give it.
    if (status === 'idle' && opts.ready !== false) this.ready = true;
    if (this._hooked && now - this.lastHookAt < HOOK_PRECEDENCE_MS && status !== this.detected) return null;
    if (status === 'blocked') this.message = opts.message ?? this.message;
    // A turn cut short finishes nothing: idle, still seen, no completion.
    if (status === 'idle' && opts.interrupted) this.workedSinceIdle = false;
    return this.setDetected(status, now, opts.visible, opts.interrupted);
  }

  /** A hook event already mapped to a status (SPEC §4 "Hooks"). */
  observeHook(status: DetectedStatus, now: number, opts: { visible: boolean; message?: string | null; tool?: string | null; lastResult?: string | null }): StatusChange | null {
    this._hooked = true;
    if (status === 'idle') this.ready = true;
    this.lastHookAt = now;
    this.lastActivity = now;
    if (opts.tool !== undefined) this.activeToolName = opts.tool;
    if (opts.message !== undefined && status === 'blocked') this.message = opts.message;
    if (opts.lastResult !== undefined && opts.lastResult !== null) this.lastResult = opts.lastResult;
    return this.setDetected(status, now, opts.visible);
  }

  /**
   * The agent was found already at work (a program recognised by what it does, not by what it
   * is): its input was live before, so the turn it is in counts as real work.
   */
  foundWorking(): void {
    this.ready = true;
  }

  /** Output arrived: the agent is alive; a stalled agent is working again. */
  noteActivity(now: number, visible: boolean): StatusChange | null {
    this.lastActivity = now;
    if (!this.stalled) return null;
    this.stalled = false;
    return this.recompute(now, visible, false);
  }

  /** Working with no activity for `thresholdMs` → stalled. Called by the tracker's timer. */
  checkStall(now: number, thresholdMs: number, visible: boolean): StatusChange | null {
    if (this.stalled || this.detected !== 'working' || now - this.lastActivity < thresholdMs) return null;
    this.stalled = true;
    return this.recompute(now, visible, false);
  }

  /** The agent exited with a failure code → errored; success codes leave it idle. */
  exited(code: number, now: number, visible: boolean): StatusChange | null {
    this.ready = true;
    this.errored = !SUCCESS_EXIT_CODES.has(code);
    return this.setDetected('idle', now, visible);
  }

  /** The pane (or its tab) was focused: a finished agent counts as seen (SPEC §4). */
  markSeen(now: number): StatusChange | null {
    if (this._seen) return null;
    this._seen = true;
    return this.recompute(now, true, false);
  }

  snapshot(): AgentSnapshot {
    return {
      status: this.effective,
      detected: this.detected,
      seen: this._seen,
      hooked: this._hooked,
      stateChangeSeq: this.seq,
      completionSeq: this.completion,
      message: this.effective === 'blocked' ? this.message : null,
      activeToolName: this.effective === 'working' || this.effective === 'stalled' ? this.activeToolName : null,
      lastResult: this.lastResult,
      statusSince: this.since,
      lastActivityAt: this.lastActivity,
      interactiveReady: this.ready,
    };
  }

  private setDetected(status: DetectedStatus, now: number, visible: boolean, interrupted = false): StatusChange | null {
    const previous = this.detected;
    if (status === previous && !this.stalled && !(this.errored && status !== 'idle')) return null;
    this.detected = status;
    this.stalled = false;
    if (status !== 'idle') this.errored = false;
    let completed = false;
    if (status === 'working' || status === 'blocked') {
      // Entering work: the user will want to know when it finishes.
      this._seen = true;
      if (previous !== 'unknown' || this.ready) this.workedSinceIdle = true;
    }
    if (status === 'idle') {
      if ((previous === 'working' || previous === 'blocked') && !interrupted) {
        this._seen = visible;
        completed = this.workedSinceIdle;
      }
      this.workedSinceIdle = false;
      this.activeToolName = null;
    }
    return this.recompute(now, visible, completed);
  }

  private recompute(now: number, _visible: boolean, completed: boolean): StatusChange | null {
    const next = this.effectiveStatus();
    if (next === this.effective) return null;
    const from = this.effective;
    this.effective = next;
    this.seq = this.counter.next();
    this.since = now;
    if (next === 'idle' || next === 'done') {
      if (completed) this.completion = this.seq;
      else if (from !== 'idle' && from !== 'done') this.completion = undefined;
    } else {
      this.completion = undefined;
    }
    return { from, to: next, seq: this.seq, completed };
  }

  private effectiveStatus(): AgentStatus {
    if (this.errored) return 'errored';
    if (this.stalled) return 'stalled';
    if (this.detected === 'idle') return this._seen ? 'idle' : 'done';
    return this.detected;
  }
}

/** Exit codes that are not failures: success, hang-up, interrupt, kill, terminate (SPEC §4). */
export const SUCCESS_EXIT_CODES: ReadonlySet<number> = new Set([0, 129, 130, 137, 143]);

/** Rollup for a tab or workspace badge: blocked > working > done > idle > unknown (SPEC §4). */
export function rollup(statuses: Iterable<AgentStatus>): AgentStatus | null {
  const order: AgentStatus[] = ['blocked', 'working', 'stalled', 'errored', 'done', 'idle', 'unknown'];
  let best: AgentStatus | null = null;
  for (const status of statuses) {
    if (best === null || order.indexOf(status) < order.indexOf(best)) best = status;
  }
  return best;
}
