/**
 * Scripted agent actions (SPEC §5 semantics): start an agent in a shell pane, and submit a
 * prompt the way a person would — text (as a paste when the app asked for that), a pause,
 * then Enter — optionally waiting for the turn to settle.
 */
import { CorralError, eventSurfaceId, type AgentInfo, type AgentStatus } from '../contract/protocol.js';
import { shellStarted, waitForQuiet } from './pane-settle.js';
import { createdView, makeWorktree, requireSetupOk, setupInPane, type WorktreeOptions } from './worktree-actions.js';
import { checkWorktreeName } from '../worktree/worktrees.js';
import type { WorktreeCreated } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { agentView } from '../core/views.js';
import { sendText } from './pane-io.js';
import { AGENT_KINDS, isAgentKind } from '../agents/kinds.js';
import { canonicalExecutable, isKnownKind, submitDelayMs } from '../agents/kind-facts.js';
import { GENERIC_KIND } from '../agents/rules.js';
import { BOUNDS } from '../contract/bounds.js';
import { DEFAULT_UNTIL, waitForAgent } from './agent-wait.js';
import { watchMissingCommand } from '../agents/missing-command.js';
import { waitUntil } from '../wait/wait-until.js';
import { setTimeout as delay } from 'node:timers/promises';
import { probeCount, promptProbe } from '../agents/prompt-probe.js';
import { waitForActivity, waitForSettled } from './prompt-wait.js';
import { notePrompt } from '../agents/prompt-log.js';
import { checkBudget, joinSharedBudget, limitNextTurn, openTurn } from './budget.js';
import { checkpointKeeper, type PromptCheckpoint } from './checkpoint-keeper.js';

export const AGENT_TIMING = {
  /** `agent.start` timeout bounds (SPEC §5): more than 3 s, at most 5 minutes (whole ms). */
  minStartTimeoutMs: BOUNDS.agentStartTimeoutMs.min - 1,
  maxStartTimeoutMs: BOUNDS.agentStartTimeoutMs.max,
  defaultStartTimeoutMs: 30_000,
  /** While starting, re-check the pane this often in case the agent prints nothing. */
  startPollMs: 250,
  /**
   * Ready also means the start-up redraws are over: an agent's first idle frame can come
   * before its input handler is live (a prompt typed then is lost), so the screen must also
   * have been quiet this long.
   */
  readyQuietMs: 400,
  /**
   * A prompt typed to an agent must show on its screen within this long before Enter is
   * pressed (src/agents/prompt-probe.ts); under heavy load an agent can take seconds to draw.
   */
  promptLandMs: 5000,
  /** Typing attempts when the text never showed (the agent dropped it): then `agent_not_ready`. */
  promptAttempts: 3,
  /** How long a prompt waits for an agent that is not ready for input yet (a resumed one loading its session). */
  promptReadyMs: 60_000,
} as const;

/**
 * Quotes an argument as one word for the shell at a pane's prompt: single quotes, with `'`
 * and `\` written outside them (`'\''`, `'\\'`) — the same word in sh, bash, zsh and fish
 * (fish reads `\'` and `\\` as escapes even inside single quotes). Controls never get here:
 * the gate refuses them in `args` (src/rpc/gate.ts).
 */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_./:=@%+-]+$/.test(arg)) return arg;
  return `'${arg.replace(/[\\']/g, (char) => (char === "'" ? `'\\''` : `'\\\\'`))}'`;
}

export interface StartOptions {
  /** A SPEC §2 kind, or `generic`: then `args` is the whole command, program first. */
  kind: string;
  name?: string;
  args?: string[];
  timeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Typed into the agent's input once it is ready, not submitted (`up` and `flow run`): through
   * `typePrompt`, so a prompt the agent dropped is typed again, as for `agent prompt`.
   */
  prompt?: string;
  /** Bounds the agent's next turn (SPEC §18: `max_tokens` of an `up` or flow agent step), whoever submits it. */
  maxTokens?: number;
  /** Joins the agent to a shared budget (a flow's or an `up` file's `budget_tokens`). */
  sharedBudget?: { name: string; tokens: number };
  /**
   * Give the agent a worktree of its own (SPEC §15): made in the repository of the pane's cwd,
   * set up with its output in the pane, then the agent starts there (`cd` and the command on one line).
   */
  worktree?: WorktreeOptions;
}

/** Validates everything about a start request before anything is typed. */
export function checkStart(core: CorralCore, pane: PaneRecord, opts: StartOptions): number {
  if (opts.kind === GENERIC_KIND) {
    if (!opts.args?.length || opts.args[0]!.trim() === '') {
      throw new CorralError('invalid_params', 'agent start --kind generic needs the command to run after --, program first (agent start NAME --kind generic -- mycli --flag)');
    }
  } else if (isAgentKind(opts.kind) && !isKnownKind(opts.kind)) {
    throw new CorralError(
      'unsupported_agent_kind',
      `this server was told to forget the ${opts.kind} kind (CORRAL_FORGET_KINDS): start it as an unknown CLI with --kind generic -- ${opts.kind}`,
      { kind: opts.kind },
    );
  } else if (!isAgentKind(opts.kind)) {
    throw new CorralError('unsupported_agent_kind', `unknown agent kind "${opts.kind}"; supported: ${AGENT_KINDS.join(', ')}, or generic with the command after --`, { kind: opts.kind });
  }
  const timeoutMs = opts.timeoutMs ?? AGENT_TIMING.defaultStartTimeoutMs;
  if (!(timeoutMs > AGENT_TIMING.minStartTimeoutMs && timeoutMs <= AGENT_TIMING.maxStartTimeoutMs)) {
    throw new CorralError('invalid_agent_timeout', `timeout must be more than ${AGENT_TIMING.minStartTimeoutMs} and at most ${AGENT_TIMING.maxStartTimeoutMs} ms, got ${timeoutMs}`);
  }
  if (opts.name !== undefined) core.agents.checkName(opts.name, null);
  if (opts.worktree) checkWorktreeName(opts.worktree.name);
  const host = core.host(pane);
  if (core.agents.agentIn(pane) || !host.isShellAtPrompt(0)) {
    const running = host.commandLine(0) ?? 'a program';
    throw new CorralError('agent_pane_busy', `pane ${pane.id} is not at a shell prompt (running: ${running}); return it to the prompt first`, { pane_id: pane.id });
  }
  return timeoutMs;
}

/**
 * Types the kind's executable with `args` at the pane's prompt and resolves once that agent
 * is detected there and ready for input; `agent_not_ready` at once if it shows a blocking
 * dialog while starting.
 */
export async function startAgent(core: CorralCore, pane: PaneRecord, opts: StartOptions): Promise<{ agent: AgentInfo; argv: string[]; worktree?: WorktreeCreated }> {
  await shellStarted(core, pane, opts.signal);
  const timeoutMs = checkStart(core, pane, opts);
  const worktree = opts.worktree ? await agentWorktreeReady(core, pane, opts.worktree, opts.signal) : null;
  const deadline = Date.now() + timeoutMs;
  const generic = opts.kind === GENERIC_KIND;
  const argv = generic ? [...opts.args!] : [canonicalExecutable(opts.kind), ...(opts.args ?? [])];
  // Watch from before the command is typed, so a shell's instant "not found" is not missed.
  const shell: ShellReport = { missing: null, onMissing: null };
  const notFound = watchMissingCommand(core.host(pane), argv[0]!, (line) => {
    shell.missing = line;
    shell.onMissing?.();
  });
  // One line: the shell goes to the worktree and starts the agent there, or does neither.
  const command = (worktree ? `cd -- ${shellQuote(worktree.path)} && ` : '') + argv.map(shellQuote).join(' ');
  // Its screen is what it draws below this command, not what the pane showed before.
  // A generic start names its program: whatever runs there is the agent, no idiom needed.
  core.agents.expectCommand(pane, command, { adoptAnyProgram: generic });
  core.typeLine(pane, command);

  // Until the agent shows up, nudge process detection (some agents print nothing for a while).
  const poll = setInterval(() => {
    const current = core.paneBySurface(pane.surfaceId);
    if (current && !core.agents.agentIn(current)) core.agents.checkNow(current);
  }, AGENT_TIMING.startPollMs);
  try {
    await waitForDetection(core, pane, generic ? null : opts.kind, { deadline, signal: opts.signal, shell, executable: argv[0]! });
    notFound.dispose();
    const current = core.paneBySurface(pane.surfaceId)!;
    if (opts.name) core.agents.rename(current, opts.name);
    core.agents.sessions.noteStarted(current, argv);
    const agent = await waitForAgent(core, current, {
      until: (a) => {
        if (a.agent_status === 'blocked') {
          throw new CorralError('agent_not_ready', `the ${opts.kind} agent in ${pane.id} is blocked while starting: ${a.message ?? 'a dialog needs an answer'}`, {
            agent: a,
          });
        }
        return a.interactive_ready && (a.agent_status === 'idle' || a.agent_status === 'done');
      },
      deadline,
      signal: opts.signal,
      onDeadline: () => new CorralError('timeout', `the ${opts.kind} agent in ${pane.id} was not ready within ${timeoutMs} ms`),
    });
    await waitForQuiet(core, current, AGENT_TIMING.readyQuietMs, deadline);
    const now = core.paneBySurface(pane.surfaceId) ?? current;
    if (opts.maxTokens !== undefined) limitNextTurn(core, now, opts.maxTokens);
    if (opts.sharedBudget) joinSharedBudget(core, now, opts.sharedBudget.name, opts.sharedBudget.tokens);
    if (opts.prompt !== undefined && opts.prompt.trim() !== '') {
      await typePrompt(core, now, opts.prompt, { submit: false, signal: opts.signal });
    }
    return { agent: agentView(core, core.paneBySurface(pane.surfaceId) ?? now), argv, ...(worktree ? { worktree } : {}) };
  } finally {
    clearInterval(poll);
    notFound.dispose();
    // No agent took it (not found, timed out): a later one is not read against this command.
    core.agents.expectCommand(pane, null);
  }
}

/** Makes the agent's worktree from the pane's directory and runs its setup in the pane; throws when the setup failed (unless keep-going). */
async function agentWorktreeReady(core: CorralCore, pane: PaneRecord, opts: WorktreeOptions, signal: AbortSignal | undefined): Promise<WorktreeCreated> {
  const made = await makeWorktree(core, core.paneCwd(pane, 0), opts);
  const created = createdView(made.record, made.include, await setupInPane(core, pane, made.record, signal));
  requireSetupOk(created, opts.keepGoing ?? false);
  return created;
}

/** What the shell said about the command typed to start an agent ("command not found"). */
interface ShellReport {
  /** The shell's complaint, once seen. */
  missing: string | null;
  /** Called when `missing` is set, while a wait listens. */
  onMissing: (() => void) | null;
}

/**
 * Resolves once an agent of `kind` (null: any agent, for a generic start) is detected in the
 * pane; ends at once with `agent_not_running` when the shell reported the command missing.
 */
function waitForDetection(
  core: CorralCore,
  pane: PaneRecord,
  kind: string | null,
  opts: { deadline: number; signal: AbortSignal | undefined; shell: ShellReport; executable: string },
): Promise<true> {
  const { shell } = opts;
  const what = kind ?? 'generic';
  return waitUntil(
    {
      deadline: opts.deadline,
      signal: opts.signal,
      onTimeout: () => new CorralError('timeout', `no ${what} agent appeared in ${pane.id} in time (is "${opts.executable}" on PATH?)`),
      subscribe: (recheck) => {
        shell.onMissing = recheck;
        const listener = core.listen((event) => {
          if (eventSurfaceId(event) === pane.surfaceId && (event.type === 'agent.detected' || event.type === 'pane.closed')) recheck();
        });
        return () => {
          shell.onMissing = null;
          listener.dispose();
        };
      },
    },
    () => {
      if (shell.missing !== null) {
        throw new CorralError('agent_not_running', `the ${what} agent did not start in ${pane.id}: the shell said "${shell.missing}"`, {
          pane_id: pane.id,
          line: shell.missing,
        });
      }
      const current = core.paneBySurface(pane.surfaceId);
      if (!current) throw new CorralError('pane_not_found', `pane ${pane.id} closed while the agent was starting`);
      const found = core.agents.agentIn(current);
      return found && (kind === null || found.kind === kind) ? true : undefined;
    },
  );
}

export interface PromptOptions {
  text: string;
  wait?: boolean;
  until?: readonly AgentStatus[];
  timeoutMs?: number;
  signal?: AbortSignal;
  /** This turn's token budget (SPEC §18); null or absent: none. */
  maxTokens?: number | null;
}

/**
 * The one way corral types a prompt into an agent (`agent prompt`, and `up` and `flow run`
 * through `StartOptions.prompt`): once its input is live, checked to have landed on its
 * screen (`deliverPrompt`), then with `submit` Enter after a pause — one ordered submission.
 * Never into a dialog (`agent_blocked`): the text would answer it.
 */
export async function typePrompt(
  core: CorralCore,
  pane: PaneRecord,
  text: string,
  opts: { submit: boolean; deadline?: number; signal?: AbortSignal; maxTokens?: number | null },
): Promise<{ baseline: number; wasWorking: boolean; screenBefore: string[] }> {
  const agent = core.agents.agentIn(pane);
  if (!agent) throw new CorralError('agent_not_found', `no agent runs in pane ${pane.id}`, { pane_id: pane.id });
  if (text.trim() === '') throw new CorralError('empty_agent_prompt', 'the prompt is empty');
  // A spent agent is typed nothing (SPEC §18).
  checkBudget(core, pane);
  let info = agentView(core, pane);
  if (info.agent_status === 'blocked') {
    throw new CorralError('agent_blocked', `the agent in ${pane.id} is waiting for an answer (${info.message ?? 'a prompt'}); nothing was sent — answer it with agent send-keys`, { agent: info });
  }
  if (!info.interactive_ready) {
    // Typed before its input is live (a resumed agent loading its session), a prompt is lost.
    const readyBy = Math.min(opts.deadline ?? Infinity, Date.now() + AGENT_TIMING.promptReadyMs);
    info = await waitForAgent(core, pane, {
      until: (a) => a.interactive_ready,
      deadline: readyBy,
      signal: opts.signal,
      onDeadline: () => new CorralError('agent_not_ready', `the agent in ${pane.id} did not become ready for input in time; nothing was sent`),
    });
  }
  const baseline = info.state_change_seq;
  const screenBefore = detectionRows(core, pane);
  if (opts.submit) openTurn(core, pane, opts.maxTokens ?? null);
  // The files as they are before this turn (SPEC §20), read while the text lands.
  const checkpoint = opts.submit ? checkpointKeeper(core)?.beforePrompt(pane, text) : undefined;
  try {
    await deliverPrompt(core, pane, text, opts.submit ? { delayMs: submitDelayMs(agent.kind), checkpoint } : null, opts.signal);
  } finally {
    checkpoint?.cancelled();
  }
  // What `agent read --answer` looks for on screen and in a session record; typed unsent too:
  // a flow types the prompt at start and submits it later with a bare Enter.
  notePrompt(agent, text);
  return { baseline, wasWorking: info.agent_status === 'working', screenBefore };
}

/** The rows detection reads from the pane's screen. */
function detectionRows(core: CorralCore, pane: PaneRecord): string[] {
  return core.host(pane).terminal.read({ source: 'detection' }).text.split('\n');
}

/**
 * Types the text, waits until the agent's screen shows it (src/agents/prompt-probe.ts), then
 * presses Enter no sooner than `enter.delayMs` after typing, once the turn's checkpoint is taken
 * or its bound passed (`enter` null: leaves it typed, unsent).
 * Text that never shows was dropped (the agent was not reading its input): it is typed again,
 * at most `promptAttempts` times in all, then `agent_not_ready` with nothing submitted. Text
 * that cannot be looked for verbatim (several lines, long) needs the screen to change at all,
 * and is not typed twice.
 */
async function deliverPrompt(
  core: CorralCore,
  pane: PaneRecord,
  text: string,
  enter: { delayMs: number; checkpoint: PromptCheckpoint | undefined } | null,
  signal: AbortSignal | undefined,
): Promise<void> {
  const host = core.host(pane);
  const probe = promptProbe(text);
  const rows = () => detectionRows(core, pane);
  const shownBefore = probe === null ? 0 : probeCount(rows(), probe);
  for (let attempt = 1; ; attempt++) {
    const typedAt = Date.now();
    const generation = host.outputGeneration;
    await sendText(core, pane, text);
    const landed = await screenShows(core, pane, () => (probe === null ? host.outputGeneration !== generation : probeCount(rows(), probe) > shownBefore), signal);
    if (landed) {
      if (enter === null) return;
      const rest = enter.delayMs - (Date.now() - typedAt);
      if (rest > 0) await delay(rest);
      await enter.checkpoint?.beforeEnter();
      core.writeToPane(pane, '\r');
      enter.checkpoint?.submitted();
      core.agents.notePromptSubmitted(core.paneBySurface(pane.surfaceId) ?? pane);
      return;
    }
    if (probe === null || attempt >= AGENT_TIMING.promptAttempts) {
      throw new CorralError(
        'agent_not_ready',
        `the agent in ${pane.id} did not show the typed prompt within ${AGENT_TIMING.promptLandMs} ms (${attempt} attempt${attempt > 1 ? 's' : ''}); ${enter === null ? 'read the pane before typing it again' : 'Enter was not pressed — read the pane before resubmitting'}`,
        { pane_id: pane.id },
      );
    }
  }
}

/** Resolves true once `shows()` holds (checked on each output), false after `promptLandMs`. */
function screenShows(core: CorralCore, pane: PaneRecord, shows: () => boolean, signal: AbortSignal | undefined): Promise<boolean> {
  const host = core.host(pane);
  return waitUntil(
    {
      deadline: Date.now() + AGENT_TIMING.promptLandMs,
      signal,
      onTimeout: () => new CorralError('timeout', 'the prompt did not show'),
      subscribe: (recheck) => {
        const output = host.onOutput(() => recheck());
        return () => output.dispose();
      },
    },
    () => (shows() ? true : undefined),
  ).catch((error: unknown) => {
    if (signal?.aborted) throw error;
    return false;
  });
}

/** `agent.prompt`: submit, then optionally wait for activity and a settled state (SPEC §5). */
export async function promptAgent(core: CorralCore, pane: PaneRecord, opts: PromptOptions): Promise<AgentInfo> {
  const started = Date.now();
  const deadline = opts.timeoutMs !== undefined ? started + opts.timeoutMs : undefined;
  const { baseline, wasWorking, screenBefore } = await typePrompt(core, pane, opts.text, { submit: true, deadline, signal: opts.signal, maxTokens: opts.maxTokens });
  if (!opts.wait) return agentView(core, pane);
  const current = core.paneBySurface(pane.surfaceId) ?? pane;
  const submitted = { baseline, screenBefore, text: opts.text };
  // A budget crossed at any time since the prompt fails the wait (SPEC §18).
  const waitOpts = { deadline, timeoutMs: opts.timeoutMs, signal: opts.signal, budgetSince: started };
  // An agent that was already working needs no proof of activity: its turn settling is enough.
  const activity = wasWorking ? 'status' : await waitForActivity(core, current, submitted, waitOpts);
  const until = opts.until && opts.until.length > 0 ? opts.until : DEFAULT_UNTIL;
  return waitForSettled(core, current, submitted, { ...waitOpts, until, screenOnly: activity === 'screen' });
}
