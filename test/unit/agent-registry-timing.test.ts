/**
 * AgentRegistry's timing, with time moved by hand (FakeClock) and /proc made up
 * (FakeProcessTable): the throttled process check that finds an agent and notices it leave,
 * the settle and idle-confirmation windows of screen detection, stall detection, and the
 * window in which a hook event outranks the screen. The pane is a real PaneHost and
 * headless terminal over a scripted child; the screen is read with a small rule file.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AgentRegistry } from '../../src/agents/agent-registry.js';
import { TRACKING } from '../../src/agents/tracked-agent.js';
import { HOOK_PRECEDENCE_MS } from '../../src/agents/agent-state.js';
import { parseRules } from '../../src/agents/rules.js';
import type { PaneRecord } from '../../src/session/model.js';
import type { CorralEvent } from '../../src/contract/protocol.js';
import { type FakeChild, FakeClock, FakeProcessTable, fakePaneHost } from './support/fakes.js';

const IDLE_CONFIRM_MS = 300;
const STALL_MS = 10_000;
const SHELL_PID = 4242;
const AGENT_PID = 5000;

const RULES = parseRules(
  `kind = "claude"
idle_confirm_ms = ${IDLE_CONFIRM_MS}

[[rule]]
id = "ask"
state = "blocked"
priority = 100
region = "screen"
contains = "Allow this?"
message = "block"

[[rule]]
id = "busy"
state = "working"
priority = 60
region = "screen"
contains = "esc to interrupt"

[[rule]]
id = "ready"
state = "idle"
priority = 10
region = "screen"
contains = "> ready"
`,
  'claude.toml',
);

const registries: AgentRegistry[] = [];
afterEach(() => {
  for (const registry of registries.splice(0)) registry.dispose();
});

/** Generic rules (a set marked `generic`): one working idiom, no idle or ready rule. */
const GENERIC = parseRules(
  `kind = "generic"
generic = true

[[rule]]
id = "busy"
state = "working"
priority = 60
region = "screen"
contains = "esc to interrupt"
`,
  'generic.toml',
);

function setup(rules: ReadonlyMap<string, ReturnType<typeof parseRules>> = new Map([['claude', RULES]])) {
  const clock = new FakeClock();
  const table = new FakeProcessTable();
  table.session(SHELL_PID, null);
  const { host, child } = fakePaneHost(SHELL_PID, { processes: table, clock });
  const pane: PaneRecord = { id: 'w1:p1', surfaceId: 1, workspaceId: 'w1', tabId: 'w1:t1', name: null, startCwd: '/home/user', aliases: [] };
  const events: CorralEvent[] = [];
  const view = { watched: false };
  const registry = new AgentRegistry(
    {
      panes: () => [pane],
      findPane: (surfaceId) => (surfaceId === pane.surfaceId ? pane : undefined),
      host: () => host,
      isWatched: () => view.watched,
      emit: (event) => events.push({ ...event, ts: clock.now() } as CorralEvent),
      stallThresholdMs: () => STALL_MS,
    },
    rules,
    { clock, processes: table },
  );
  registries.push(registry);
  // As the core does: every parsed batch of output is reported to the registry.
  host.onOutput(() => registry.paneOutput(pane.surfaceId));
  registry.paneStarted(pane);
  clock.advance(0);

  /** The program redraws its whole screen with `text`. */
  const screen = (text: string) => child.output(`\x1b[2J\x1b[H${text}`);
  const status = () => registry.agentIn(pane)?.state.snapshot().status ?? null;
  /** Event types since the last call (agent.* and ai.* only). */
  const take = () =>
    events.splice(0).map((e) => {
      const fields = e as unknown as Record<string, unknown>;
      if (fields.type !== 'agent.status_changed') return `${fields.type} ${fields.source ?? ''}`.trim();
      const flag = fields.gone ? ' gone' : fields.interactive_ready ? ' ready' : '';
      return `status ${fields.previous_status ?? ''}→${fields.agent_status}${flag}`;
    });
  /** An agent (claude) takes the terminal, is found by the next process check, and its first screen read (no rule matches: idle). */
  const startAgent = () => {
    table.session(SHELL_PID, { pid: AGENT_PID, argv: ['claude'] });
    screen('claude starting');
    clock.advance(TRACKING.processCheckMs);
    expect(registry.agentIn(pane)?.kind).toBe('claude');
    clock.advance(TRACKING.screenSettleMs);
    expect(status()).toBe('idle');
  };
  /** A working screen, settled and classified. */
  const working = () => {
    screen('thinking… (esc to interrupt)');
    clock.advance(TRACKING.screenSettleMs);
    expect(status()).toBe('working');
  };
  return { clock, table, host, pane, registry, events, view, screen, status, take, startAgent, working, child: () => child };
}

describe('AgentRegistry: process-table detection', () => {
  it('finds an agent by the foreground process, no sooner than the throttled process check', () => {
    const { clock, table, registry, pane, screen, take } = setup();
    expect(registry.agentIn(pane)).toBeNull();
    clock.advance(TRACKING.processCheckMs);
    table.session(SHELL_PID, { pid: AGENT_PID, argv: ['claude', '--model', 'x'] });
    // Output prompts a check; the last one was at start-up, 400 ms ago at least — it runs now.
    screen('hello');
    clock.advance(0);
    expect(registry.agentIn(pane)).toMatchObject({ kind: 'claude', pid: AGENT_PID });
    expect(take()).toEqual(['agent.detected', 'ai.session_start screen']);
  });

  it('throttles process checks after output to one per processCheckMs', () => {
    const { clock, table, registry, pane, screen } = setup();
    screen('a');
    clock.advance(0);
    table.session(SHELL_PID, { pid: AGENT_PID, argv: ['claude'] });
    screen('b');
    screen('c');
    clock.advance(TRACKING.processCheckMs - 1);
    expect(registry.agentIn(pane)).toBeNull();
    clock.advance(1);
    expect(registry.agentIn(pane)?.pid).toBe(AGENT_PID);
  });

  it('reads /proc only when output arrives or a line is submitted (never on a timer of its own)', () => {
    const { clock, table } = setup();
    clock.advance(TRACKING.processCheckMs);
    const reads = table.reads;
    clock.advance(60_000);
    expect(table.reads).toBe(reads);
  });

  it('finds a program that prints nothing, started after the echo of its command line was checked', () => {
    const { clock, table, registry, pane, child } = setup();
    clock.advance(TRACKING.processCheckMs);
    registry.paneInput(pane, 'claude\r');
    // The shell echoes the line; the check this prompts sees it still at its prompt…
    child().output('claude\r\n');
    clock.advance(0);
    expect(registry.agentIn(pane)).toBeNull();
    // …and only then forks the program, which prints nothing: no output to check after.
    table.session(SHELL_PID, { pid: AGENT_PID, argv: ['claude'] });
    clock.advance(TRACKING.processCheckMs);
    expect(registry.agentIn(pane)).toMatchObject({ kind: 'claude', pid: AGENT_PID });
  });

  it('looks a bounded number of times after a submitted line, and not at all once an agent is found', () => {
    const { clock, table, registry, pane, startAgent } = setup();
    clock.advance(TRACKING.processCheckMs);
    let reads = table.reads;
    registry.paneInput(pane, 'ls\r');
    clock.advance(TRACKING.processCheckMs * TRACKING.submitChecks);
    expect(table.reads).toBeGreaterThan(reads);
    reads = table.reads;
    clock.advance(60_000);
    expect(table.reads).toBe(reads);
    startAgent();
    reads = table.reads;
    registry.paneInput(pane, 'a prompt\r');
    clock.advance(60_000);
    expect(table.reads).toBe(reads);
  });

  it('finds an agent behind a launcher (sh -c) among the foreground group\u2019s descendants', () => {
    const { clock, table, registry, pane, screen } = setup();
    table.session(SHELL_PID, { pid: 6000, argv: ['sh', '-c', 'claude --resume'] });
    table.set({ pid: 6001, ppid: 6000, pgrp: 6000, session: SHELL_PID, tpgid: 6000, argv: ['claude', '--resume'] });
    screen('x');
    clock.advance(TRACKING.processCheckMs);
    expect(registry.agentIn(pane)).toMatchObject({ kind: 'claude', pid: 6001 });
  });

  it('notices the agent leave (shell back at its prompt): ai.exit, ai.session_end, gone', () => {
    const { clock, table, registry, pane, screen, startAgent, take } = setup();
    startAgent();
    take();
    table.session(SHELL_PID, null);
    screen('$ ');
    clock.advance(TRACKING.processCheckMs);
    expect(registry.agentIn(pane)).toBeNull();
    expect(take()).toEqual(['ai.exit screen', 'ai.session_end screen', 'status →idle gone']);
  });

  it('replaces an agent whose pid changed with the new one (a restart), announcing both', () => {
    const { clock, table, registry, pane, screen, startAgent, take } = setup();
    startAgent();
    take();
    table.session(SHELL_PID, { pid: AGENT_PID + 1, argv: ['claude'] });
    screen('again');
    clock.advance(TRACKING.processCheckMs + TRACKING.screenSettleMs);
    expect(registry.agentIn(pane)?.pid).toBe(AGENT_PID + 1);
    // The new agent starts from scratch: unknown until its first screen read.
    expect(take()).toEqual(['ai.exit screen', 'ai.session_end screen', 'status →idle gone', 'agent.detected', 'ai.session_start screen', 'status unknown→idle']);
  });
});

describe('AgentRegistry: screen timing', () => {
  it('classifies a screen once output settles (screenSettleMs), not while it flows', () => {
    const { clock, screen, status, startAgent } = setup();
    startAgent();
    screen('thinking… (esc to interrupt)');
    clock.advance(TRACKING.screenSettleMs - 1);
    expect(status()).toBe('idle');
    clock.advance(1);
    expect(status()).toBe('working');
  });

  it('a screen that never settles is still classified by screenMaxWaitMs', () => {
    const { clock, screen, status, startAgent } = setup();
    startAgent();
    clock.advance(TRACKING.screenMaxWaitMs);
    for (let t = 0; t < TRACKING.screenMaxWaitMs; t += 10) {
      screen(`spinner ${t} (esc to interrupt)`);
      clock.advance(10);
    }
    expect(status()).toBe('working');
  });

  it('working → idle holds for idle_confirm_ms from the idle screen\u2019s arrival before it counts', () => {
    const { clock, screen, status, startAgent, working, take } = setup();
    startAgent();
    working();
    take();
    screen('> ready');
    clock.advance(IDLE_CONFIRM_MS - 1);
    expect(status()).toBe('working');
    expect(take()).toEqual([]);
    clock.advance(1);
    // Not watched by anyone: a finished turn is "done" until seen.
    expect(status()).toBe('done');
    expect(take()).toEqual(['ai.stop screen', 'status working→done']);
  });

  it('an idle frame between two working frames within the window never shows as idle', () => {
    fc.assert(
      fc.property(fc.integer({ min: TRACKING.screenSettleMs, max: IDLE_CONFIRM_MS - 1 }), (gap) => {
        const { clock, screen, status, startAgent, working, take } = setup();
        startAgent();
        working();
        take();
        screen('> ready');
        clock.advance(gap);
        screen('next step (esc to interrupt)');
        clock.advance(IDLE_CONFIRM_MS * 3);
        expect(status()).toBe('working');
        expect(take()).toEqual([]);
      }),
      { numRuns: 15 },
    );
  });

  it('blocked shows at once (no confirmation window), with its message', () => {
    const { clock, screen, status, startAgent, working, registry, pane } = setup();
    startAgent();
    working();
    screen('Run rm -rf build?\nAllow this?');
    clock.advance(TRACKING.screenSettleMs);
    expect(status()).toBe('blocked');
    expect(registry.agentIn(pane)?.state.snapshot().message).toContain('Allow this?');
  });

  it('an Esc sent while working makes the idle that follows an interrupt: idle, not done', () => {
    const { clock, screen, status, startAgent, working, registry, pane } = setup();
    startAgent();
    working();
    registry.paneInput(pane, '\x1b');
    screen('> ready');
    clock.advance(IDLE_CONFIRM_MS);
    expect(status()).toBe('idle');
    expect(registry.agentIn(pane)?.state.snapshot().completionSeq).toBeUndefined();
  });
});

describe('AgentRegistry: stalls', () => {
  it('a working agent with no output for the threshold is stalled, found by the next stall check', () => {
    const { clock, status, startAgent, working, take } = setup();
    startAgent();
    working();
    take();
    clock.advance(STALL_MS - TRACKING.stallCheckMs);
    expect(status()).toBe('working');
    clock.advance(TRACKING.stallCheckMs);
    expect(status()).toBe('stalled');
    expect(take()).toEqual(['status working→stalled']);
  });

  it('output brings a stalled agent back to working at once', () => {
    const { clock, child, status, startAgent, working, take } = setup();
    startAgent();
    working();
    clock.advance(STALL_MS + TRACKING.stallCheckMs);
    expect(status()).toBe('stalled');
    take();
    child().output('.');
    expect(status()).toBe('working');
    expect(take()).toEqual(['ai.prompt_submit screen', 'status stalled→working']);
  });

  it('steady output keeps it from stalling, however long the turn', () => {
    const { clock, child, status, startAgent, working } = setup();
    startAgent();
    working();
    for (let i = 0; i < 30; i++) {
      clock.advance(STALL_MS / 2);
      child().output('.');
    }
    expect(status()).toBe('working');
  });

  it('runs the stall check only while an agent works', () => {
    const { clock, screen, startAgent, working } = setup();
    startAgent();
    const idleTimers = clock.pending;
    working();
    expect(clock.pending).toBeGreaterThan(idleTimers);
    screen('> ready');
    clock.advance(IDLE_CONFIRM_MS + TRACKING.processCheckMs);
    expect(clock.pending).toBe(0);
  });
});

describe('AgentRegistry: hooks beat the screen for a while', () => {
  it('a hook\u2019s status stands against a contrary screen for HOOK_PRECEDENCE_MS, then the screen may speak', () => {
    const { clock, screen, status, startAgent, registry, pane, take } = setup();
    startAgent();
    take();
    registry.applyHook(pane, 'ai.prompt_submit', { session_id: 's1' });
    expect(status()).toBe('working');
    expect(take()).toEqual(['ai.prompt_submit hook', 'status idle→working']);
    // The screen still shows the idle prompt (it lags the hook): ignored, even past idle_confirm_ms.
    screen('> ready');
    clock.advance(IDLE_CONFIRM_MS + TRACKING.screenSettleMs);
    expect(status()).toBe('working');
    clock.advance(HOOK_PRECEDENCE_MS - IDLE_CONFIRM_MS - TRACKING.screenSettleMs);
    expect(status()).toBe('working');
    // The idle prompt is still evidence that its input is live: said without a status change.
    expect(take()).toEqual(['status →working ready']);
    // Past the window a redraw of the idle prompt counts (after its own confirmation).
    screen('> ready');
    clock.advance(IDLE_CONFIRM_MS);
    expect(status()).toBe('done');
  });

  it('a screen that agrees with the hook is never held back', () => {
    const { clock, screen, status, startAgent, registry, pane } = setup();
    startAgent();
    registry.applyHook(pane, 'ai.notification', { message: 'May I?' });
    screen('Allow this?');
    clock.advance(TRACKING.screenSettleMs);
    expect(status()).toBe('blocked');
  });

  it('a later hook resets the window', () => {
    const { clock, screen, status, startAgent, registry, pane } = setup();
    startAgent();
    registry.applyHook(pane, 'ai.prompt_submit', {});
    clock.advance(HOOK_PRECEDENCE_MS - 100);
    registry.applyHook(pane, 'ai.tool_use', { tool_name: 'Bash' });
    clock.advance(200);
    screen('> ready');
    clock.advance(IDLE_CONFIRM_MS + TRACKING.screenSettleMs);
    expect(status()).toBe('working');
    expect(registry.agentIn(pane)?.state.snapshot().activeToolName).toBe('Bash');
  });

  it('a hook adopts an agent the process check has not found yet, by the kind it names', () => {
    const { status, registry, pane, take } = setup();
    registry.applyHook(pane, 'ai.session_start', { kind: 'claude', session_id: 'abc' });
    expect(registry.agentIn(pane)).toMatchObject({ kind: 'claude', sessionId: 'abc' });
    expect(status()).toBe('idle');
    expect(take()[0]).toBe('agent.detected');
  });
});

describe('AgentRegistry: the rows above the command that started an agent are not its screen', () => {
  /** A restored pane: the saved screen of the agent (its ready composer), then the typed resume command. */
  const COMMAND = 'claude --resume 3f2a9c1e-5016-4416-85ee-ca9d60aaeaca';
  const restoredScreen = (child: FakeChild) => child.output(`saved turn\r\n> ready\r\n── restored ──\r\n$ ${COMMAND}\r\n`);
  const adopt = (s: ReturnType<typeof setup>) => {
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: ['claude', '--resume', '3f2a9c1e-5016-4416-85ee-ca9d60aaeaca'] });
    s.child().output('\x1b[?2004h'); // the agent's first bytes: a mode, nothing drawn yet
    s.clock.advance(TRACKING.processCheckMs);
    expect(s.registry.agentIn(s.pane)?.kind).toBe('claude');
    s.clock.advance(TRACKING.screenSettleMs);
  };
  const ready = (s: ReturnType<typeof setup>) => s.registry.agentIn(s.pane)!.state.snapshot().interactiveReady;
  /** corral typed the resume command over a restored screen; the agent is found, and not ready yet. */
  const adoptedOverRestoredScreen = () => {
    const s = setup();
    s.registry.expectCommand(s.pane, COMMAND);
    restoredScreen(s.child());
    adopt(s);
    expect(ready(s)).toBe(false);
    return s;
  };

  it('an old ready screen above the echoed command does not make the new agent ready; its own, drawn below, does', () => {
    const s = adoptedOverRestoredScreen();
    expect(s.registry.explain(s.pane)).not.toContain('rule "ready"');
    s.child().output('loading history…\r\n> ready');
    s.clock.advance(TRACKING.screenSettleMs);
    expect(ready(s)).toBe(true);
  });

  it('once the agent clears the screen every row is its own (Gemini CLI redraws its history after a clear)', () => {
    const s = adoptedOverRestoredScreen();
    s.screen('saved turn\r\n> ready'); // clear + redraw: the same text, now the agent's
    s.clock.advance(TRACKING.screenSettleMs);
    expect(ready(s)).toBe(true);
  });

  it('reading the screen between two checks (agent explain) changes nothing the next check concludes', () => {
    // The agent shows the alternate screen for a moment and leaves it before a check runs: the
    // echo is still where it was, so the old ready screen above it is still not the agent's.
    // A read in that moment must not let go of the start line (it did: explain moved it).
    const s = adoptedOverRestoredScreen();
    const line = s.registry.agentIn(s.pane)!.startLine;
    expect(line).not.toBeNull();
    s.child().output('\x1b[?1049h');
    for (let i = 0; i < 3; i++) s.registry.explain(s.pane);
    expect(s.registry.agentIn(s.pane)!.startLine).toEqual(line);
    s.child().output('\x1b[?1049l');
    s.clock.advance(TRACKING.screenSettleMs);
    expect(ready(s)).toBe(false);
    expect(s.registry.agentIn(s.pane)!.startLine).toEqual(line);
  });

  it('found running before the shell\u2019s echo was read (a restored pane), the whole screen at that moment is old', () => {
    const s = setup();
    s.registry.expectCommand(s.pane, COMMAND, { beforeShell: true });
    s.child().output('saved turn\r\n> ready\r\n── restored ──\r\n');
    adopt(s);
    expect(ready(s)).toBe(false);
    s.child().output(`$ ${COMMAND}\r\n`);
    s.clock.advance(TRACKING.screenSettleMs);
    expect(ready(s)).toBe(false);
    s.child().output('> ready');
    s.clock.advance(TRACKING.screenSettleMs);
    expect(ready(s)).toBe(true);
  });

  it('at a live prompt, an agent that cleared the echo before it was found is read whole (its own ready screen counts)', () => {
    const s = setup();
    s.registry.expectCommand(s.pane, COMMAND);
    s.child().output(`$ ${COMMAND}\r\n`);
    s.screen('> ready'); // drawn, echo cleared, before the process check
    adopt(s);
    expect(ready(s)).toBe(true);
  });

  it('without a command typed by corral (an agent found running, or a start that ended without one) the whole screen counts, as before', () => {
    const s = setup();
    s.registry.expectCommand(s.pane, COMMAND);
    s.registry.expectCommand(s.pane, null);
    restoredScreen(s.child());
    adopt(s);
    expect(ready(s)).toBe(true);
  });
});

describe('AgentRegistry: an agent started as generic (agent start --kind generic)', () => {
  const generic = () => {
    const s = setup(new Map([['generic', GENERIC]]));
    const ready = () => s.registry.agentIn(s.pane)?.state.snapshot().interactiveReady ?? null;
    s.registry.expectCommand(s.pane, 'mycli', { adoptAnyProgram: true });
    s.child().mode = { canonical: true, echo: true };
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: ['mycli'] });
    s.screen('mycli loading');
    s.clock.advance(TRACKING.processCheckMs);
    s.clock.advance(TRACKING.screenSettleMs);
    return { ...s, ready };
  };

  it('is adopted from its first frame, named after its program, before it shows any idiom', () => {
    const s = generic();
    expect(s.registry.agentIn(s.pane)?.kind).toBe('mycli');
    expect(s.status()).toBe('idle');
  });

  it('is not ready while the kernel still edits its lines, and ready once the program reads keys itself', () => {
    const s = generic();
    expect(s.ready()).toBe(false);
    s.clock.advance(TRACKING.genericReadyPollMs * 3);
    expect(s.ready()).toBe(false);
    s.child().mode = { canonical: false, echo: false };
    s.clock.advance(TRACKING.genericReadyPollMs);
    expect(s.ready()).toBe(true);
    expect(s.take()).toContain('status →idle ready');
  });

  it('a program that reads keys but has drawn nothing is not ready until its first frame', () => {
    const s = setup(new Map([['generic', GENERIC]]));
    const ready = () => s.registry.agentIn(s.pane)?.state.snapshot().interactiveReady ?? null;
    s.registry.expectCommand(s.pane, 'mycli', { adoptAnyProgram: true });
    s.child().mode = { canonical: false, echo: false };
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: ['mycli'] });
    s.child().output('\x1b[?1049h'); // the alternate screen, still blank
    s.clock.advance(TRACKING.processCheckMs + TRACKING.screenSettleMs);
    expect(s.registry.agentIn(s.pane)?.kind).toBe('mycli');
    s.clock.advance(TRACKING.genericLineModeReadyMs * 2);
    expect(ready()).toBe(false);
    s.child().output('> ask me anything');
    s.clock.advance(TRACKING.screenSettleMs);
    expect(ready()).toBe(true);
  });

  it('a line-mode program (it never leaves canonical mode) is ready after the line-mode window', () => {
    const s = generic();
    s.clock.advance(TRACKING.genericLineModeReadyMs - TRACKING.genericReadyPollMs * 2);
    expect(s.ready()).toBe(false);
    s.clock.advance(TRACKING.genericReadyPollMs * 2);
    expect(s.ready()).toBe(true);
  });

  it('a program still being started (forked with the shell\u2019s argv, then mid-exec with no command line) is adopted only once it has exec\u2019d', () => {
    // CI once saw `agent start --kind generic -- node newagent.mjs` answer kind "bash": the
    // process check ran while the forked child held the terminal but had not exec'd yet.
    const s = setup(new Map([['generic', GENERIC]]));
    s.registry.expectCommand(s.pane, 'mycli', { adoptAnyProgram: true });
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: ['-bash'] });
    s.child().output('$ mycli\r\n');
    s.clock.advance(TRACKING.processCheckMs + TRACKING.screenSettleMs);
    expect(s.registry.agentIn(s.pane)).toBeNull();
    // In the middle of exec: no command line yet, the kernel's short name already the new program's.
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: [] });
    s.table.processes.get(AGENT_PID)!.comm = 'node';
    s.child().output('.');
    s.clock.advance(TRACKING.processCheckMs + TRACKING.screenSettleMs);
    expect(s.registry.agentIn(s.pane)).toBeNull();
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: ['node', '/opt/mycli.mjs'] });
    s.screen('mycli loading');
    s.clock.advance(TRACKING.processCheckMs + TRACKING.screenSettleMs);
    expect(s.registry.agentIn(s.pane)?.kind).toBe('mycli');
  });

  it('without a generic start, an unknown program that only sits idle is not an agent', () => {
    const s = setup(new Map([['generic', GENERIC]]));
    s.table.session(SHELL_PID, { pid: AGENT_PID, argv: ['mycli'] });
    s.screen('mycli loading');
    s.clock.advance(TRACKING.processCheckMs + TRACKING.screenSettleMs);
    expect(s.registry.agentIn(s.pane)).toBeNull();
  });
});

describe('AgentRegistry: dispose', () => {
  it('leaves no timer running', () => {
    const { clock, registry, screen, startAgent, working } = setup();
    startAgent();
    working();
    screen('> ready');
    expect(clock.pending).toBeGreaterThan(0);
    registry.dispose();
    expect(clock.pending).toBe(0);
  });
});
