/**
 * Every turn a checkpoint (SPEC §20): the files of an agent's checkout just before each of
 * its turns, kept as git refs (src/checkpoint/checkpoint-git.ts does the git work).
 *
 * Two ways a turn starts:
 * - corral types the prompt (`agent prompt`; flows and `up` through it): the checkpoint starts
 *   before the text is typed, so it runs while the text lands on the agent's screen; Enter
 *   waits for it at most `promptWaitMs` longer, and a checkpoint that finishes only after Enter
 *   says so (`late`).
 * - Enter reaches an idle agent from anywhere else (a person's keys from a client or the web
 *   view, `send --submit`, a flow's send): the files are read at once — before the agent can
 *   act on the prompt — and the checkpoint is kept when the agent's rules see the turn start
 *   (it is seen working within `personConfirmMs`); an Enter that started nothing leaves none.
 *
 * Checkpoints of one checkout never run at once (they share corral's index there); nothing
 * here ever fails a prompt: a checkpoint that cannot be taken is said once in the server log.
 */
import type { Disposable } from '../contract/disposable.js';
import { eventSurfaceId, type CorralEvent } from '../contract/protocol.js';
import type { CheckpointInfo } from '../contract/checkpoints.js';
import type { CorralCore, PaneCheckpoints } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import {
  CHECKPOINT_LIMITS,
  CHECKPOINT_REFS,
  checkpointMessage,
  checkpointRef,
  commitTree,
  findCheckout,
  readCheckpoints,
  snapshotTree,
  storeRef,
  type CheckpointFacts,
  type CheckpointRecord,
  type Checkout,
} from '../checkpoint/checkpoint-git.js';
import { PromptLine } from '../checkpoint/prompt-line.js';
import { KeyedQueue } from '../worktree/keyed-queue.js';
import type { GitContext } from '../worktree/git.js';
import { OnceLog } from '../core/once-log.js';

export const CHECKPOINT_TIMING = {
  /** The longest Enter waits for its checkpoint once the prompt's text has landed (SPEC §20's bound). */
  promptWaitMs: 100,
  /** A person's Enter starts a turn when the agent is seen working within this long. */
  personConfirmMs: 15_000,
  /** Which checkout a directory is in, as last found, is trusted this long. */
  checkoutTtlMs: 5000,
} as const;

/** Directories whose checkout is remembered; past it the memory starts again (panes wander). */
const MAX_KNOWN_CHECKOUTS = 256;

/** How much of the prompt a checkpoint keeps (SPEC §20: its first 80 characters). */
const PROMPT_CHARS = 80;

/** The working tree read at one moment, not yet kept. */
export interface Capture {
  checkout: Checkout;
  tree: string;
  /** Untracked files too large to keep (src/checkpoint/checkpoint-git.ts). */
  leftOut: string[];
  ms: number;
}

/** Why a checkpoint is kept, and the prompt it starts. */
interface StoreHow {
  reason: CheckpointFacts['reason'];
  prompt: string;
  late?: boolean;
}

/** What a caller holding a checkout alone may do there. */
export interface ExclusiveSteps {
  readFiles(): Promise<Capture>;
  keep(agent: AgentKey, taken: Capture, how: StoreHow): Promise<CheckpointRecord>;
}

/** The agent a checkpoint is of: its ref key and kind. */
export interface AgentKey {
  key: string;
  kind: string;
}

/** A corral prompt being typed: its checkpoint runs meanwhile. */
export interface PromptCheckpoint {
  /** Resolves when the checkpoint is taken, or after the bound: Enter may be pressed then. */
  beforeEnter(): Promise<void>;
  /** Enter was pressed: the checkpoint is kept (marked late if it was not finished). */
  submitted(): void;
  /** The prompt was not submitted: no turn, nothing kept. */
  cancelled(): void;
}

/** The ref key of an agent's checkpoints: its name, else its kind and its pane's surface id. */
export function checkpointKey(agent: { name: string | null; kind: string }, surfaceId: number): string {
  if (agent.name) return agent.name;
  const kind = agent.kind.toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 32) || 'agent';
  return `${kind}-${surfaceId}`;
}

/** The public view of a stored checkpoint. */
export function checkpointInfo(record: CheckpointRecord): CheckpointInfo {
  const { id, turn, at, prompt, commit, reason, ms, late, left_out } = record;
  return { id, turn, at, prompt, commit, reason, ms, ...(late ? { late } : {}), ...(left_out ? { left_out } : {}) };
}

/** A person's Enter at an idle agent: the files read then, kept once the agent is seen working. */
interface PendingTurn {
  agent: AgentKey;
  prompt: string;
  capture: Promise<Capture | null>;
  expires: number;
}

export class CheckpointKeeper implements PaneCheckpoints {
  private readonly queue = new KeyedQueue();
  private readonly lines = new Map<number, PromptLine>();
  /** Panes where corral itself is typing a prompt: its Enter is not a person's. */
  private readonly corralTyping = new Set<number>();
  private readonly pending = new Map<number, PendingTurn>();
  /** The checkout each directory was last found in, and when. */
  private readonly checkouts = new Map<string, { checkout: Checkout | null; at: number }>();
  /** Checkpoints that could not be taken: said once each in the server log (a repository may fail every time). */
  private readonly problems: OnceLog;
  private listener: Disposable | null = null;
  readonly ctx: GitContext;

  constructor(
    private readonly core: CorralCore,
    env: NodeJS.ProcessEnv,
    private readonly keep: () => number,
    write?: (line: string) => void,
  ) {
    this.ctx = { env };
    this.problems = new OnceLog(write);
  }

  start(): void {
    this.listener = this.core.listen((event) => this.onEvent(event));
  }

  dispose(): void {
    this.listener?.dispose();
    this.listener = null;
  }

  /** Bytes written to a pane (core.writeToPane): an Enter at an idle agent may start a turn. */
  input(pane: PaneRecord, data: string): void {
    if (this.corralTyping.has(pane.surfaceId)) return;
    const agent = this.core.agents.agentIn(pane);
    if (!agent) {
      this.lines.delete(pane.surfaceId);
      return;
    }
    let line = this.lines.get(pane.surfaceId);
    if (!line) this.lines.set(pane.surfaceId, (line = new PromptLine()));
    const submitted = line.feed(data);
    if (submitted.length === 0) return;
    const snap = agent.state.snapshot();
    // Only a prompt at a waiting input starts a turn: not a message queued mid-turn, not a dialog's answer.
    if ((snap.status !== 'idle' && snap.status !== 'done') || !snap.interactiveReady) return;
    const key = this.agentKey(pane);
    if (!key) return;
    this.pending.set(pane.surfaceId, {
      agent: key,
      prompt: submitted.at(-1)!,
      capture: this.capture(pane),
      expires: Date.now() + CHECKPOINT_TIMING.personConfirmMs,
    });
  }

  /** corral is about to type `text` and submit it: the checkpoint starts now. */
  beforePrompt(pane: PaneRecord, text: string): PromptCheckpoint {
    const surfaceId = pane.surfaceId;
    const agent = this.agentKey(pane);
    this.corralTyping.add(surfaceId);
    this.pending.delete(surfaceId);
    this.lines.delete(surfaceId);
    let done = false;
    const capture = agent ? this.capture(pane) : Promise.resolve(null);
    void capture.finally(() => (done = true));
    let ended = false;
    const end = () => {
      ended = true;
      this.corralTyping.delete(surfaceId);
    };
    return {
      beforeEnter: async () => {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([capture, new Promise((resolve) => (timer = setTimeout(resolve, CHECKPOINT_TIMING.promptWaitMs)))]);
        clearTimeout(timer);
      },
      submitted: () => {
        if (ended) return;
        const late = !done;
        end();
        if (agent) void this.keepCapture(agent, capture, { reason: 'turn', prompt: text, late });
      },
      cancelled: () => {
        if (!ended) end();
      },
    };
  }

  /** Reads the files now, as a tree in the checkout's object store; null when the pane is in no checkout. */
  capture(pane: PaneRecord): Promise<Capture | null> {
    return this.captureIn(this.core.paneCwd(pane, 0)).catch((error: unknown) => {
      this.problems.note(`capture ${pane.surfaceId} ${String(error)}`, `a checkpoint of pane ${pane.id} could not be taken: ${(error as Error).message}`);
      return null;
    });
  }

  /** Reads the files of the checkout holding `dir`. */
  async captureIn(dir: string): Promise<Capture | null> {
    const checkout = await this.checkoutOf(dir);
    return checkout ? this.queue.run(checkout.top, () => this.readFiles(checkout)) : null;
  }

  /** The checkout holding `dir`, as found at most `checkoutTtlMs` ago: one git run less per turn. */
  private async checkoutOf(dir: string): Promise<Checkout | null> {
    const known = this.checkouts.get(dir);
    if (known && Date.now() - known.at < CHECKPOINT_TIMING.checkoutTtlMs) return known.checkout;
    const checkout = await findCheckout(this.ctx, dir);
    if (this.checkouts.size >= MAX_KNOWN_CHECKOUTS) this.checkouts.clear();
    this.checkouts.set(dir, { checkout, at: Date.now() });
    return checkout;
  }

  /** The working tree as a tree now (the caller holds the checkout's turn in the queue). */
  private async readFiles(checkout: Checkout): Promise<Capture> {
    const started = performance.now();
    const { tree, leftOut } = await snapshotTree(this.ctx, checkout);
    return { checkout, tree, leftOut, ms: Math.round(performance.now() - started) };
  }

  /** Keeps a capture as the agent's next checkpoint. */
  async keepCapture(agent: AgentKey, capture: Promise<Capture | null>, how: StoreHow): Promise<CheckpointRecord | null> {
    try {
      const taken = await capture;
      if (!taken) return null;
      return await this.store(agent, taken, how);
    } catch (error) {
      this.problems.note(`keep ${agent.key} ${String(error)}`, `a checkpoint of agent ${agent.key} could not be kept: ${(error as Error).message}`);
      return null;
    }
  }

  /** Writes the checkpoint's commit and ref (and drops the oldest past `keep`), in the checkout's queue. */
  store(agent: AgentKey, taken: Capture, how: StoreHow): Promise<CheckpointRecord> {
    return this.queue.run(taken.checkout.top, () => this.writeCheckpoint(agent, taken, how));
  }

  /** Writes the commit and ref (the caller holds the checkout's turn in the queue). */
  private async writeCheckpoint(agent: AgentKey, taken: Capture, how: StoreHow): Promise<CheckpointRecord> {
    const { checkout } = taken;
    const started = performance.now();
    const existing = await readCheckpoints(this.ctx, checkout.top, `${CHECKPOINT_REFS}/${agent.key}/`);
    const id = (existing.at(-1)?.id ?? 0) + 1;
    const lastTurn = existing.filter((c) => c.checkout === checkout.top).reduce((max, c) => Math.max(max, c.turn), 0);
    const facts: CheckpointFacts = {
      id,
      turn: how.reason === 'turn' ? lastTurn + 1 : lastTurn,
      at: new Date().toISOString(),
      prompt: [...how.prompt.replace(/\s+/g, ' ').trim()].slice(0, PROMPT_CHARS).join(''),
      reason: how.reason,
      // What it cost: reading the files into a tree, and reading the agent's refs. Writing the
      // commit and its ref (two small git runs, the same for any tree) comes after the message.
      ms: Math.round(taken.ms + (performance.now() - started)),
      checkout: checkout.top,
      kind: agent.kind,
      ...(how.late ? { late: true } : {}),
      ...(taken.leftOut.length > 0 ? { left_out: taken.leftOut.slice(0, CHECKPOINT_LIMITS.maxLeftOutNamed) } : {}),
    };
    const commit = await commitTree(this.ctx, checkout, taken.tree, checkpointMessage(agent.key, facts));
    const ref = checkpointRef(agent.key, id);
    // `keep` counts per agent: its oldest go, whichever checkout they were of.
    const overflow = Math.max(0, existing.length + 1 - this.keep());
    await storeRef(this.ctx, checkout, ref, commit, existing.slice(0, overflow).map((c) => c.ref));
    return { ...facts, ref, commit };
  }

  /** The ref key and kind of the agent in a pane, or null when none runs there. */
  agentKey(pane: PaneRecord): AgentKey | null {
    const agent = this.core.agents.agentIn(pane);
    return agent ? { key: checkpointKey(agent, pane.surfaceId), kind: agent.kind } : null;
  }

  /** Runs `body` alone in the checkout (a rewind): no checkpoint of it is read or written meanwhile but through `body`'s own steps. */
  exclusive<T>(checkout: Checkout, body: (steps: ExclusiveSteps) => Promise<T>): Promise<T> {
    return this.queue.run(checkout.top, () =>
      body({ readFiles: () => this.readFiles(checkout), keep: (agent, taken, how) => this.writeCheckpoint(agent, taken, how) }),
    );
  }

  /** A pane's agent was seen working: a person's pending Enter was a turn. */
  private onEvent(event: CorralEvent): void {
    if (event.type === 'pane.closed') {
      const surfaceId = eventSurfaceId(event);
      if (surfaceId !== undefined) {
        this.lines.delete(surfaceId);
        this.pending.delete(surfaceId);
        this.corralTyping.delete(surfaceId);
      }
      return;
    }
    if (event.type !== 'agent.status_changed' || event.agent_status !== 'working') return;
    const surfaceId = eventSurfaceId(event);
    if (surfaceId === undefined) return;
    const pending = this.pending.get(surfaceId);
    if (!pending) return;
    this.pending.delete(surfaceId);
    if (Date.now() > pending.expires) return;
    void this.keepCapture(pending.agent, pending.capture, { reason: 'turn', prompt: pending.prompt });
  }
}

/** The server's keeper (set on the core at start), or null (a core without a server, in tests). */
export function checkpointKeeper(core: CorralCore): CheckpointKeeper | null {
  return core.checkpoints instanceof CheckpointKeeper ? core.checkpoints : null;
}
