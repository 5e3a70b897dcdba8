import { describe, expect, it } from 'vitest';
import { AgentState, HOOK_PRECEDENCE_MS, SequenceCounter, rollup } from '../../src/agents/agent-state.js';

const hidden = { visible: false };
const shown = { visible: true };

function started(counter = new SequenceCounter()) {
  const agent = new AgentState(counter, 0);
  agent.observeScreen('idle', 10, hidden);
  return agent;
}

describe('AgentState', () => {
  it('start-up to idle is not completed work', () => {
    const agent = started();
    const snap = agent.snapshot();
    expect(snap.status).toBe('idle');
    expect(snap.completionSeq).toBeUndefined();
    expect(snap.interactiveReady).toBe(true);
  });

  it('working → idle while nobody looks is done, with completion_seq = that transition', () => {
    const agent = started();
    agent.observeScreen('working', 100, hidden);
    expect(agent.snapshot()).toMatchObject({ status: 'working', seen: true });
    const change = agent.observeScreen('idle', 200, hidden)!;
    expect(change).toMatchObject({ from: 'working', to: 'done', completed: true });
    expect(agent.snapshot()).toMatchObject({ status: 'done', seen: false, completionSeq: change.seq, stateChangeSeq: change.seq });
  });

  it('focusing a done agent makes it idle; completion_seq keeps pointing at the idle transition', () => {
    const agent = started();
    agent.observeScreen('working', 100, hidden);
    const done = agent.observeScreen('idle', 200, hidden)!;
    const seen = agent.markSeen(300)!;
    expect(seen).toMatchObject({ from: 'done', to: 'idle' });
    expect(seen.seq).toBeGreaterThan(done.seq);
    expect(agent.snapshot()).toMatchObject({ status: 'idle', stateChangeSeq: seen.seq, completionSeq: done.seq });
  });

  it('finishing while visible in a focused TUI goes straight to idle', () => {
    const agent = started();
    agent.observeScreen('working', 100, hidden);
    expect(agent.observeScreen('idle', 200, shown)).toMatchObject({ to: 'idle', completed: true });
  });

  it('blocked carries its message and counts as work', () => {
    const agent = started();
    agent.observeScreen('blocked', 100, { visible: false, message: 'Do you want to proceed?' });
    expect(agent.snapshot()).toMatchObject({ status: 'blocked', message: 'Do you want to proceed?' });
    expect(agent.observeScreen('idle', 200, hidden)).toMatchObject({ to: 'done', completed: true });
    expect(agent.snapshot().message).toBeNull();
  });

  it('an interrupted turn ends idle (not done) with no completion', () => {
    const agent = started();
    agent.observeScreen('working', 100, hidden);
    expect(agent.observeScreen('idle', 200, { visible: false, interrupted: true })).toMatchObject({ to: 'idle', completed: false });
    expect(agent.snapshot()).toMatchObject({ status: 'idle', seen: true, completionSeq: undefined });
  });

  it('bumps one global sequence across agents, only on effective changes', () => {
    const counter = new SequenceCounter();
    const a = started(counter);
    const b = started(counter);
    const before = counter.current;
    expect(a.observeScreen('idle', 50, hidden)).toBeNull();
    expect(counter.current).toBe(before);
    a.observeScreen('working', 60, hidden);
    b.observeScreen('working', 70, hidden);
    expect(b.snapshot().stateChangeSeq).toBe(a.snapshot().stateChangeSeq + 1);
  });

  it('stalls when working without activity past the threshold, and recovers on output', () => {
    const agent = started();
    agent.observeScreen('working', 100, hidden);
    agent.noteActivity(100, false);
    expect(agent.checkStall(1000, 5000, false)).toBeNull();
    expect(agent.checkStall(5200, 5000, false)).toMatchObject({ to: 'stalled' });
    expect(agent.noteActivity(5300, false)).toMatchObject({ from: 'stalled', to: 'working' });
  });

  it('maps exit codes: 0/129/130/137/143 idle, others errored', () => {
    for (const code of [0, 129, 130, 137, 143]) {
      const agent = started();
      agent.observeScreen('working', 100, hidden);
      agent.exited(code, 200, true);
      expect(agent.status, String(code)).toBe('idle');
    }
    const failing = started();
    failing.observeScreen('working', 100, hidden);
    failing.exited(1, 200, true);
    expect(failing.status).toBe('errored');
  });

  it('lets hook events win over the screen for a while', () => {
    const agent = started();
    agent.observeHook('working', 1000, { visible: false });
    expect(agent.snapshot().hooked).toBe(true);
    // The screen has not caught up yet: ignored.
    expect(agent.observeScreen('idle', 1000 + HOOK_PRECEDENCE_MS - 1, hidden)).toBeNull();
    expect(agent.status).toBe('working');
    // Long after the last hook (e.g. an interrupt that sends no hook), the screen decides.
    expect(agent.observeScreen('idle', 1000 + HOOK_PRECEDENCE_MS + 1, hidden)).toMatchObject({ to: 'done' });
  });

  it('reports the active tool only while working', () => {
    const agent = started();
    agent.observeHook('working', 100, { visible: false, tool: 'Bash' });
    expect(agent.snapshot().activeToolName).toBe('Bash');
    agent.observeHook('idle', 200, { visible: false, lastResult: 'All done.' });
    expect(agent.snapshot()).toMatchObject({ activeToolName: null, lastResult: 'All done.' });
  });
});

describe('rollup', () => {
  it('orders blocked > working > done > idle > unknown', () => {
    expect(rollup(['idle', 'done', 'working'])).toBe('working');
    expect(rollup(['idle', 'blocked', 'working'])).toBe('blocked');
    expect(rollup(['idle', 'done'])).toBe('done');
    expect(rollup(['unknown', 'idle'])).toBe('idle');
    expect(rollup([])).toBeNull();
  });
});
