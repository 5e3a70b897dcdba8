/**
 * TypedLine (src/pty/typed-line.ts): a command line corral typed is pending until the shell
 * leaves bracketed paste mode (it accepted the line), the pane exits, or the wait runs out;
 * `settled` resolves then, and at once when nothing is pending. Time moved by hand.
 */
import { describe, expect, it } from 'vitest';
import { TYPED_LINE_WAIT_MS, TypedLine } from '../../src/pty/typed-line.js';
import { FakeClock } from './support/fakes.js';

/** Whether `promise` has settled, after the microtasks queued so far ran. */
async function settledYet(promise: Promise<void>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('TypedLine', () => {
  it('settles at once when no line was typed', async () => {
    const line = new TypedLine(new FakeClock());
    expect(line.pending).toBe(false);
    expect(await settledYet(line.settled())).toBe(true);
  });

  it('holds until the shell leaves paste mode, in any chunk, as a string or a Buffer', async () => {
    for (const chunk of ['\r\n\x1b[?2004l', Buffer.from('out\x1b[?2004lmore')]) {
      const clock = new FakeClock();
      const line = new TypedLine(clock);
      line.typed();
      const waiting = line.settled();
      line.output('\x1b[?2004h$ echoed text'); // the prompt drawn again: not taken
      clock.advance(TYPED_LINE_WAIT_MS / 2);
      expect(await settledYet(waiting)).toBe(false);
      line.output(chunk);
      expect(line.pending).toBe(false);
      expect(await settledYet(waiting)).toBe(true);
      expect(clock.pending).toBe(0);
    }
  });

  it('gives up waiting after TYPED_LINE_WAIT_MS from the typing, not from the wait', async () => {
    const clock = new FakeClock();
    const line = new TypedLine(clock);
    line.typed();
    clock.advance(TYPED_LINE_WAIT_MS - 100);
    const waiting = line.settled();
    clock.advance(99);
    expect(await settledYet(waiting)).toBe(false);
    clock.advance(1);
    expect(await settledYet(waiting)).toBe(true);
    expect(line.pending).toBe(false);
  });

  it('releases every waiter when the pane is gone', async () => {
    const clock = new FakeClock();
    const line = new TypedLine(clock);
    line.typed();
    const waits = [line.settled(), line.settled()];
    line.taken();
    expect(await Promise.all(waits.map(settledYet))).toEqual([true, true]);
    expect(clock.pending).toBe(0);
  });
});
