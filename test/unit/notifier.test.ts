/**
 * The notifier's rules with a stand-in for the core's event stream and views (timers faked):
 * a state must hold for the settle time, the same state repeats once per window, in-view and
 * muted panes never notify, marks clear when the pane comes into view.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Notifier } from '../../src/notify/notifier.js';
import type { CorralCore } from '../../src/core/corral-core.js';
import type { AgentStatus, CorralEvent } from '../../src/contract/protocol.js';

function setup() {
  let listener: (event: CorralEvent) => void = () => {};
  const pane = { id: 'w1:p2', surfaceId: 2, workspaceId: 'w1', tabId: 'w1:t2' };
  const agent = { kind: 'claude', name: null as string | null, state: { status: 'working', snapshot: () => ({ message: null }) } };
  let watched = false;
  const core = {
    listen: (l: (event: CorralEvent) => void) => ((listener = l), { dispose: () => {} }),
    paneBySurface: (id: number) => (id === 2 ? pane : undefined),
    isWatched: () => watched,
    agents: { agentIn: () => agent },
  } as unknown as CorralCore;
  const notifier = new Notifier({ core, config: { on: ['blocked', 'done'], command: '' } });
  const sent: string[] = [];
  notifier.attach({ writeTerminal: (b) => sent.push(b), onChange: () => {}, onError: () => {} });
  const become = (status: AgentStatus, previous: AgentStatus) => {
    agent.state.status = status;
    // Only the fields the notifier reads; the rest of the event does not matter here.
    listener({ type: 'agent.status_changed', ts: Date.now(), surface_id: 2, agent_status: status, previous_status: previous } as CorralEvent);
  };
  /** The agent crossed a budget (SPEC §18). */
  const crossed = () =>
    listener({ type: 'agent.budget_exceeded', ts: Date.now(), surface_id: 2, agent_status: 'working', scope: 'turn', limit: 100, used: 150 } as CorralEvent);
  return { notifier, sent, become, crossed, setWatched: (w: boolean) => (watched = w) };
}

describe('Notifier', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('a crossed budget notifies at once, like a blocked agent, naming the budget; a muted pane says nothing', () => {
    const { notifier, sent, crossed } = setup();
    crossed();
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('budget_exceeded');
    expect(sent[0]).toContain('turn budget: 150 of 100 tokens');
    notifier.toggleMute(2);
    crossed();
    expect(sent).toHaveLength(1);
  });

  it('waits for a state to settle, so a flicker sends nothing', () => {
    const { sent, become } = setup();
    become('blocked', 'working');
    vi.advanceTimersByTime(200);
    become('working', 'blocked');
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(0);
    become('blocked', 'working');
    vi.advanceTimersByTime(300);
    expect(sent).toHaveLength(1);
  });

  it('sends the same state once per window, a different state at once', () => {
    const { sent, become } = setup();
    for (let i = 0; i < 5; i++) {
      become('blocked', 'working');
      vi.advanceTimersByTime(400);
      become('working', 'blocked');
      vi.advanceTimersByTime(400);
    }
    expect(sent).toHaveLength(1);
    become('done', 'working');
    vi.advanceTimersByTime(400);
    expect(sent).toHaveLength(2);
    vi.advanceTimersByTime(10_000);
    become('blocked', 'done');
    vi.advanceTimersByTime(400);
    expect(sent).toHaveLength(3);
  });

  it('never notifies for a pane in view or a muted one, and clears the mark when looked at', () => {
    const { notifier, sent, become, setWatched } = setup();
    setWatched(true);
    become('blocked', 'working');
    vi.advanceTimersByTime(400);
    expect(sent).toHaveLength(0);
    setWatched(false);
    expect(notifier.toggleMute(2)).toBe(true);
    become('done', 'working');
    vi.advanceTimersByTime(400);
    expect(sent).toHaveLength(0);
    notifier.toggleMute(2);
    become('blocked', 'done');
    vi.advanceTimersByTime(400);
    expect(sent).toHaveLength(1);
    expect(notifier.isMarked(2)).toBe(true);
    setWatched(true);
    notifier.viewChanged();
    expect(notifier.isMarked(2)).toBe(false);
  });

  it('ignores states not in [notify] on and events that are not transitions', () => {
    const { sent, become } = setup();
    become('idle', 'working');
    become('blocked', 'blocked');
    vi.advanceTimersByTime(1000);
    expect(sent).toHaveLength(0);
  });
});
