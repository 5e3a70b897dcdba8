/**
 * A pane's one input queue (src/pty/pane-input.ts) against a scripted pty: what the "kernel"
 * takes per write is chosen by the test, time and loop turns move by hand. Every byte accepted
 * arrives once, in order, units never interleave, an open unit holds the others back until it
 * ends (or stalls), the bound refuses and pauses without dropping, and retries back off.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { PaneInput, PANE_INPUT, type InputClock } from '../../src/pty/pane-input.js';

/** Hand-moved time and loop turns. */
class ManualClock implements InputClock {
  time = 0;
  private timers: { at: number; fn: () => void; live: boolean }[] = [];
  private turns: { fn: () => void; live: boolean }[] = [];
  now(): number {
    return this.time;
  }
  after(ms: number, fn: () => void): () => void {
    const timer = { at: this.time + ms, fn, live: true };
    this.timers.push(timer);
    return () => void (timer.live = false);
  }
  nextTurn(fn: () => void): () => void {
    const turn = { fn, live: true };
    this.turns.push(turn);
    return () => void (turn.live = false);
  }
  /** Runs what waits for the next loop turn. */
  turn(): void {
    const turns = this.turns;
    this.turns = [];
    for (const t of turns) if (t.live) t.fn();
  }
  /** Moves time on, running each timer that comes due (in order). */
  advance(ms: number): void {
    const end = this.time + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      due.live = false;
      this.time = due.at;
      due.fn();
    }
    this.time = end;
  }
  get pendingTimers(): number[] {
    return this.timers.filter((t) => t.live).map((t) => t.at - this.time);
  }
  get pendingTurns(): number {
    return this.turns.filter((t) => t.live).length;
  }
}

/** A pty that takes `room` bytes and then nothing until the test makes room again. */
class ScriptedPty {
  received = '';
  writes = 0;
  room = Infinity;
  gone = false;
  readonly write = (bytes: Uint8Array): number => {
    if (this.gone) throw new Error('EIO');
    this.writes++;
    const n = Math.min(bytes.length, this.room);
    this.room -= n;
    this.received += Buffer.from(bytes.subarray(0, n)).toString('latin1');
    return n;
  };
}

const bytes = (s: string) => Buffer.from(s, 'latin1');

function setup(limits: Partial<typeof PANE_INPUT> = {}) {
  const clock = new ManualClock();
  const pty = new ScriptedPty();
  const input = new PaneInput(pty.write, clock, { ...PANE_INPUT, ...limits });
  return { clock, pty, input };
}

describe('PaneInput', () => {
  it('writes a unit in the call when nothing is queued, and keeps what the pty does not take, in order', () => {
    const { clock, pty, input } = setup();
    expect(input.send(bytes('ab'))).toBe(true);
    expect(pty.received).toBe('ab');
    expect(input.idle).toBe(true);
    pty.room = 2;
    input.send(bytes('cdef'));
    expect(pty.received).toBe('abcd');
    expect(input.queuedBytes).toBe(2);
    // Not idle: the express refuses, and a later unit goes behind.
    expect(input.sendIfIdle(bytes('X'))).toBe(false);
    input.send(bytes('gh'));
    pty.room = Infinity;
    // The pty took bytes just now (the program reads): retried on the next loop turn, no timer.
    expect(clock.pendingTurns).toBe(1);
    clock.turn();
    expect(pty.received).toBe('abcdefgh');
    expect(input.idle).toBe(true);
    expect(input.sendIfIdle(bytes('X'))).toBe(true);
    expect(pty.received).toBe('abcdefghX');
  });

  it('backs off on a timer while the program reads nothing, never spinning the loop', () => {
    const { clock, pty, input } = setup();
    pty.room = 0;
    input.send(bytes('stuck'));
    const delays: number[] = [];
    for (let i = 0; i < 10; i++) {
      clock.turn();
      expect(clock.pendingTurns).toBe(0);
      delays.push(...clock.pendingTimers);
      clock.advance(clock.pendingTimers[0]!);
    }
    expect(delays).toEqual([1, 2, 4, 8, 16, 32, 50, 50, 50, 50]);
    const writes = pty.writes;
    clock.advance(1000);
    // ~20 tries a second at most.
    expect(pty.writes - writes).toBeLessThanOrEqual(20);
    pty.room = Infinity;
    clock.advance(50);
    expect(pty.received).toBe('stuck');
  });

  it('refuses a unit once the queue is at its bound, drops nothing it took, and says when there is room', () => {
    const { clock, pty, input } = setup({ maxQueuedBytes: 10, resumeBelowBytes: 5 });
    pty.room = 0;
    expect(input.send(bytes('0123456789'))).toBe(true);
    expect(input.full).toBe(true);
    expect(input.send(bytes('refused'))).toBe(false);
    let room = 0;
    input.whenRoom(() => room++);
    pty.room = 4;
    clock.advance(1);
    expect(room).toBe(0);
    pty.room = 2;
    clock.turn();
    expect(room).toBe(1);
    expect(input.send(bytes('ab'))).toBe(true);
    pty.room = Infinity;
    clock.turn();
    expect(pty.received).toBe('0123456789ab');
  });

  it('holds every other unit behind an open one until it ends; its writer is told to pause at the bound', () => {
    const { clock, pty, input } = setup({ maxQueuedBytes: 8, resumeBelowBytes: 4 });
    input.send(bytes('<'));
    const paste = input.open();
    expect(paste.write(bytes('p1'))).toBe(true);
    // Another writer while the paste is open: it waits behind the paste, whole.
    expect(input.send(bytes('key'))).toBe(true);
    expect(input.sendIfIdle(bytes('x'))).toBe(false);
    expect(paste.write(bytes('p2'))).toBe(true);
    expect(pty.received).toBe('<p1p2');
    pty.room = 0;
    expect(paste.write(bytes('p3p4p5'))).toBe(false);
    // Over the bound a writer still gets everything it sends accepted (it was told to pause).
    expect(paste.write(bytes('p6'))).toBe(false);
    pty.room = Infinity;
    paste.end(bytes('!'));
    expect(paste.isOpen).toBe(false);
    // The pty took bytes a moment ago: the retry is on the next loop turn.
    clock.turn();
    expect(pty.received).toBe('<p1p2p3p4p5p6!key');
    expect(input.idle).toBe(true);
  });

  it('lets the units behind an open one go when it has sent nothing for a while, closing it with its own end', () => {
    const { clock, pty, input } = setup();
    const paste = input.open(() => bytes(']'));
    paste.write(bytes('[half'));
    clock.advance(PANE_INPUT.openUnitStallMs * 3);
    // Nobody waits: no reason to yield.
    expect(paste.isOpen).toBe(true);
    input.send(bytes('reply'));
    clock.advance(PANE_INPUT.openUnitStallMs - 1);
    paste.write(bytes(' more'));
    // Each piece restarts the wait.
    clock.advance(PANE_INPUT.openUnitStallMs - 1);
    expect(pty.received).toBe('[half more');
    clock.advance(1);
    expect(paste.isOpen).toBe(false);
    expect(pty.received).toBe('[half more]reply');
    // A late piece of a yielded unit is not taken by it (its writer opens another).
    paste.write(bytes('late'));
    expect(pty.received).toBe('[half more]reply');
  });

  it('drops what is queued when the pty is gone, and releases whoever waits', async () => {
    const { pty, input } = setup({ maxQueuedBytes: 4, resumeBelowBytes: 2 });
    pty.room = 0;
    input.send(bytes('abcdef'));
    let room = false;
    input.whenRoom(() => (room = true));
    const idle = input.whenIdle();
    pty.gone = true;
    pty.room = Infinity;
    input.send(bytes('x'));
    // The next try meets the dead pty: everything goes, waiters are released.
    input.close();
    await idle;
    expect(room).toBe(true);
    expect(input.queuedBytes).toBe(0);
    expect(input.send(bytes('after'))).toBe(true);
    expect(pty.received).toBe('');
  });

  it('delivers exactly what it accepted, each unit whole and in order of acceptance, whatever the pty takes (property)', () => {
    type Op = { kind: 'send'; text: string } | { kind: 'open'; id: number } | { kind: 'write'; id: number; text: string } | { kind: 'end'; id: number } | { kind: 'room'; n: number } | { kind: 'turn' } | { kind: 'tick'; ms: number };
    const text = fc.string({ minLength: 1, maxLength: 12, unit: fc.constantFrom('a', 'b', 'c', 'd') });
    const op: fc.Arbitrary<Op> = fc.oneof(
      text.map((t) => ({ kind: 'send' as const, text: t })),
      fc.nat(3).map((id) => ({ kind: 'open' as const, id })),
      fc.tuple(fc.nat(3), text).map(([id, t]) => ({ kind: 'write' as const, id, text: t })),
      fc.nat(3).map((id) => ({ kind: 'end' as const, id })),
      fc.nat(20).map((n) => ({ kind: 'room' as const, n })),
      fc.constant({ kind: 'turn' as const }),
      fc.integer({ min: 1, max: 3000 }).map((ms) => ({ kind: 'tick' as const, ms })),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const { clock, pty, input } = setup({ maxQueuedBytes: 40, resumeBelowBytes: 20 });
        pty.room = 0;
        // What each unit must deliver, in the order the units were accepted.
        const expected: { text: string; open: boolean }[] = [];
        const streams = new Map<number, { unit: ReturnType<PaneInput['open']>; entry: { text: string; open: boolean } }>();
        let label = 0;
        for (const o of ops) {
          if (o.kind === 'send') {
            const unit = `<${label++}:${o.text}>`;
            if (input.send(bytes(unit))) expected.push({ text: unit, open: false });
          } else if (o.kind === 'open') {
            if (streams.has(o.id)) continue;
            const entry = { text: '', open: true };
            streams.set(o.id, { unit: input.open(() => bytes(`|${o.id}`)), entry });
            expected.push(entry);
          } else if (o.kind === 'write') {
            const s = streams.get(o.id);
            if (!s) continue;
            if (!s.unit.isOpen) {
              // Yielded: its writer goes on in a unit of its own, at the back.
              s.entry.open = false;
              s.entry.text += `|${o.id}`;
              s.entry = { text: '', open: true };
              s.unit = input.open(() => bytes(`|${o.id}`));
              expected.push(s.entry);
            }
            s.unit.write(bytes(o.text));
            s.entry.text += o.text;
          } else if (o.kind === 'end') {
            const s = streams.get(o.id);
            if (!s) continue;
            if (s.unit.isOpen) {
              s.unit.end();
            } else {
              s.entry.text += `|${o.id}`;
            }
            s.entry.open = false;
            streams.delete(o.id);
          } else if (o.kind === 'room') pty.room = o.n;
          else if (o.kind === 'turn') clock.turn();
          else if (o.kind === 'tick') clock.advance(o.ms);
        }
        for (const [id, s] of streams) {
          if (s.unit.isOpen) s.unit.end();
          else s.entry.text += `|${id}`;
        }
        pty.room = Infinity;
        for (let i = 0; i < 200 && !input.idle; i++) {
          clock.turn();
          clock.advance(PANE_INPUT.retryMaxMs);
        }
        expect(input.idle).toBe(true);
        expect(pty.received).toBe(expected.map((e) => e.text).join(''));
      }),
      { numRuns: 300 },
    );
  });
});
