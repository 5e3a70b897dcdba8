/**
 * Holding a client's input while its paste waits for a pane (src/tui/input-hold.ts): input
 * that was already on its way when the hold began is kept in order and handed on first, a
 * hand-on that fills the pane again holds again without losing or reordering anything, and a
 * client that keeps sending past the hold has its source stopped.
 */
import { describe, expect, it } from 'vitest';
import { InputHold } from '../../src/tui/input-hold.js';

/** Wired as AttachedClient wires it: what is handed on goes through the same input handler, which asks `keep` first. */
function setup() {
  const calls: string[] = [];
  const delivered: string[] = [];
  let holdDuring: string | null = null;
  const onInput = (chunk: Buffer): void => {
    if (hold.keep(chunk)) return;
    const text = chunk.toString();
    delivered.push(text);
    if (text === holdDuring) hold.hold();
  };
  const hold: InputHold = new InputHold({ pause: () => calls.push('pause'), resume: () => calls.push('resume'), stop: () => calls.push('stop') }, onInput);
  return { hold, input: (text: string) => onInput(Buffer.from(text)), calls, delivered, holdAgainAt: (text: string) => (holdDuring = text) };
}

describe('InputHold', () => {
  it('keeps what arrives while held and hands it on, in order, before the source is read again', () => {
    const { hold, input, calls, delivered } = setup();
    input('a');
    hold.hold();
    hold.hold();
    input('b');
    input('c');
    expect(delivered).toEqual(['a']);
    expect(calls).toEqual(['pause']);
    hold.release();
    expect(delivered).toEqual(['a', 'b', 'c']);
    expect(calls).toEqual(['pause', 'resume']);
    input('d');
    expect(delivered).toEqual(['a', 'b', 'c', 'd']);
  });

  it('holds again when what it hands on fills the pane again, keeping the rest in order', () => {
    const { hold, input, calls, delivered, holdAgainAt } = setup();
    hold.hold();
    for (const text of ['b', 'c', 'd']) input(text);
    holdAgainAt('c');
    hold.release();
    // Held again after c: d waits, the source stays paused (no resume between).
    expect(delivered).toEqual(['b', 'c']);
    expect(calls).toEqual(['pause']);
    input('e');
    holdAgainAt('');
    hold.release();
    expect(delivered).toEqual(['b', 'c', 'd', 'e']);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('stops a source that keeps sending past the hold, once a MiB has piled up', () => {
    const { hold, input, calls } = setup();
    hold.hold();
    const chunk = 'x'.repeat(64 * 1024);
    for (let i = 0; i < 16; i++) input(chunk);
    expect(calls).toEqual(['pause']);
    input(chunk);
    expect(calls).toEqual(['pause', 'stop']);
    hold.release();
    expect(calls).toEqual(['pause', 'stop', 'resume']);
  });
});
