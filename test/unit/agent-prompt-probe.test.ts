/** Finding a typed prompt on an agent's screen before Enter is pressed. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { answeredOnScreen, probeCount, promptProbe } from '../../src/agents/prompt-probe.js';

describe('promptProbe', () => {
  it('is the end of a one-line text, without whitespace', () => {
    expect(promptProbe('Which word did I ask you to remember')).toBe('WhichworddidIaskyoutoremember');
    expect(promptProbe('a'.repeat(50) + ' tail')).toBe('a'.repeat(36) + 'tail');
  });
  it('is null for text an agent may not show verbatim: several lines, long pastes, nothing visible', () => {
    expect(promptProbe('one\ntwo')).toBeNull();
    expect(promptProbe('x'.repeat(201))).toBeNull();
    expect(promptProbe('   ')).toBeNull();
  });
});

describe('probeCount', () => {
  const probe = promptProbe('Say hello once again please, with feeling')!;
  it('counts the text in an input box that wrapped it between borders', () => {
    const rows = ['╭──────────────────────╮', '│ > Say hello once     │', '│   again please, with │', '│   feeling            │', '╰──────────────────────╯'];
    expect(probeCount(rows, probe)).toBe(1);
  });
  it('counts each copy: the one in the history and the one typed', () => {
    const rows = ['> Say hello once again please, with feeling', 'answer', '> Say hello once again please, with feeling'];
    expect(probeCount(rows, probe)).toBe(2);
    expect(probeCount(['> Say hello once again'], probe)).toBe(0);
  });
  it('finds any one-line text wherever an input box wraps it', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 120 }).filter((t) => /\S/.test(t) && !/[\r\n]/.test(t)), fc.integer({ min: 5, max: 60 }), (text, width) => {
        const probe = promptProbe(text);
        if (probe === null) return;
        const rows: string[] = [];
        for (let i = 0; i < text.length; i += width) rows.push(`│ ${text.slice(i, i + width)} │`);
        expect(probeCount(rows, probe)).toBeGreaterThanOrEqual(1);
      }),
    );
  });
});

describe('answeredOnScreen: did a prompt leave an answer no rule saw?', () => {
  const BEFORE = ['  welcome to mycli', '', '> type a task', ''];

  it('a new row with words that is not the prompt is an answer', () => {
    expect(answeredOnScreen(BEFORE, ['  welcome to mycli', '', '> type a task', 'what is it', '  The answer is forty-two.', '> type a task'], 'what is it')).toBe(true);
  });

  it('the prompt echoed, wrapped or framed, and rows seen before are not', () => {
    const long = 'please refactor the parser module so that every error names the file and line';
    const echoed = ['  welcome to mycli', '', '│ > please refactor the parser module so that every │', '│ error names the file and line                      │', '> type a task'];
    expect(answeredOnScreen(BEFORE, echoed, long)).toBe(false);
    expect(answeredOnScreen(BEFORE, BEFORE, 'what is it')).toBe(false);
  });

  it('rows without a word (a cursor, a rule, a spinner frame) are not', () => {
    expect(answeredOnScreen(BEFORE, [...BEFORE, '────────', '⠋', '> _'], 'what is it')).toBe(false);
  });

  it('a row seen once before, shown twice now, is new the second time (rows are a multiset)', () => {
    expect(answeredOnScreen(BEFORE, [...BEFORE, '  welcome to mycli'], 'x')).toBe(true);
  });
});
