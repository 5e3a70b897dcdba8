/**
 * The scheduling of pane reads (src/pty/read-turn.ts): a reading budget per event-loop turn,
 * and other panes holding their reads while a keystroke's echo is awaited — on real PaneHosts
 * (real headless terminals) over scripted children that record pause and resume.
 */
import { describe, expect, it } from 'vitest';
import { PaneHost } from '../../src/pty/pane-host.js';
import { ReadTurn, type ReadTurnClock } from '../../src/pty/read-turn.js';
import type { SpawnOptions } from '../../src/pty/pane-process.js';
import { FakeChild } from './support/fakes.js';

/** A clock that moves only when told; "after poll" and timers run when the test says so. */
class ManualTurnClock implements ReadTurnClock {
  time = 0;
  private polled: (() => void)[] = [];
  private timers: { at: number; fn: () => void }[] = [];
  /** Timers set so far: each one is a timer-list insertion (and removal) on the real event loop. */
  armed = 0;
  now(): number {
    return this.time;
  }
  afterPoll(fn: () => void): void {
    this.polled.push(fn);
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn };
    this.armed++;
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }
  /** The event loop polled: the check phase runs. */
  poll(): void {
    const due = this.polled;
    this.polled = [];
    for (const fn of due) fn();
  }
  advance(ms: number): void {
    this.time += ms;
    const due = this.timers.filter((t) => t.at <= this.time);
    this.timers = this.timers.filter((t) => t.at > this.time);
    for (const t of due) t.fn();
  }
}

/** A scripted child that knows whether its reader paused it (a real pty then stops delivering). */
class PausableChild extends FakeChild {
  paused = false;
  pauses = 0;
  override pause(): void {
    this.paused = true;
    this.pauses++;
  }
  override resume(): void {
    this.paused = false;
  }
}

function panes(turn: ReadTurn): { hosts: PaneHost[]; children: PausableChild[] } {
  const children: PausableChild[] = [];
  const hosts = [1, 2].map(
    (n) =>
      new PaneHost({
        shell: '/bin/sh',
        cwd: '/tmp',
        env: {},
        cols: 40,
        rows: 10,
        scrollback: 100,
        readTurn: turn,
        spawn: (options: SpawnOptions) => {
          const child = new PausableChild(4000 + n, options);
          children.push(child);
          return child;
        },
      }),
  );
  return { hosts, children };
}

describe('ReadTurn', () => {
  it('spends its budget within one turn and opens a fresh one after the loop polled', () => {
    const clock = new ManualTurnClock();
    const turn = new ReadTurn(clock, { budgetMs: 2, echoWaitMs: 8 });
    const reader = {};
    turn.enter(reader);
    clock.time += 1.5;
    expect(turn.spent()).toBe(false);
    turn.enter(reader);
    clock.time += 0.5;
    expect(turn.spent()).toBe(true);
    clock.poll();
    turn.enter(reader);
    expect(turn.spent()).toBe(false);
  });

  it('holds the other readers while an echo is awaited, until its output or the wait ends', () => {
    const clock = new ManualTurnClock();
    const turn = new ReadTurn(clock, { budgetMs: 2, echoWaitMs: 8 });
    const typed = {};
    const other = {};
    const resumed: string[] = [];
    turn.expectEcho(typed);
    expect(turn.mustWait(typed, () => resumed.push('typed'))).toBe(false);
    expect(turn.mustWait(other, () => resumed.push('other'))).toBe(true);
    turn.enter(typed);
    expect(resumed).toEqual(['other']);
    expect(turn.mustWait(other, () => resumed.push('again'))).toBe(false);
    // A program that echoes nothing holds the others for echoWaitMs at most.
    turn.expectEcho(typed);
    expect(turn.mustWait(other, () => resumed.push('timeout'))).toBe(true);
    clock.advance(7);
    expect(resumed).toEqual(['other']);
    clock.advance(1);
    expect(resumed).toEqual(['other', 'timeout']);
    // A pane that closes is not waited for.
    turn.expectEcho(typed);
    expect(turn.mustWait(other, () => resumed.push('forgotten'))).toBe(true);
    turn.forget(typed);
    expect(resumed.at(-1)).toBe('forgotten');
  });
});

describe('PaneHost reading under ReadTurn', () => {
  it('stops a flooding pane once the turn budget is spent and resumes it after the poll, keeping every byte', () => {
    const clock = new ManualTurnClock();
    const { hosts, children } = panes(new ReadTurn(clock, { budgetMs: 2, echoWaitMs: 8 }));
    const [host] = hosts;
    const [child] = children;
    child!.output('line 1\r\n');
    clock.time += 1;
    child!.output('line 2\r\n');
    expect(child!.paused).toBe(false);
    clock.time += 1;
    child!.output('line 3\r\n');
    expect(child!.paused).toBe(true);
    clock.poll();
    expect(child!.paused).toBe(false);
    expect(host!.terminal.read({ source: 'visible' }).text.split('\n').slice(0, 3)).toEqual(['line 1', 'line 2', 'line 3']);
    for (const h of hosts) h.dispose();
  });

  it("holds the other pane's reading from a keystroke until the typed pane's echo", async () => {
    const clock = new ManualTurnClock();
    const { hosts, children } = panes(new ReadTurn(clock, { budgetMs: 2, echoWaitMs: 8 }));
    const [typed, flooding] = hosts;
    const [typedChild, floodChild] = children;
    await typed!.write('x');
    expect(typedChild!.writes).toEqual(['x']);
    floodChild!.output('flood\r\n');
    expect(floodChild!.paused).toBe(true);
    clock.time += 3;
    typedChild!.output('x');
    expect(floodChild!.paused).toBe(false);
    clock.poll();
    floodChild!.output('more\r\n');
    expect(floodChild!.paused).toBe(false);
    expect(flooding!.terminal.read({ source: 'visible' }).text.split('\n').slice(0, 2)).toEqual(['flood', 'more']);
    // Parse and echo holds are counted apart: the pane resumes only when neither is left.
    expect(flooding!.paused).toBe(false);
    for (const h of hosts) h.dispose();
  });

  it('arms no timer for a keystroke that nothing else waits on; a pane that waits gets what is left of the wait', () => {
    const clock = new ManualTurnClock();
    const turn = new ReadTurn(clock, { budgetMs: 2, echoWaitMs: 8 });
    const typed = {};
    const other = {};
    const resumed: string[] = [];
    // Typing with no other pane reading: the echo comes, nothing was armed or cleared.
    turn.expectEcho(typed);
    turn.enter(typed);
    turn.expectEcho(typed);
    turn.enter(typed);
    expect(clock.armed).toBe(0);
    // Another pane reads 3 ms after the key: it holds for the 5 ms left, not 8.
    turn.expectEcho(typed);
    clock.advance(3);
    expect(turn.mustWait(other, () => resumed.push('other'))).toBe(true);
    expect(clock.armed).toBe(1);
    clock.advance(4);
    expect(resumed).toEqual([]);
    clock.advance(1);
    expect(resumed).toEqual(['other']);
    // A wait already over holds nobody.
    turn.expectEcho(typed);
    clock.advance(8);
    expect(turn.mustWait(other, () => resumed.push('late'))).toBe(false);
    expect(resumed).toEqual(['other']);
  });
});
