/**
 * The saved scrollback reader (src/persist/scrollback-capture.ts): the same lines, with the
 * same colours, as the pane's own `recent-unwrapped` ANSI read — wrapped lines joined — while
 * reading in slices and remembering rows above the screen.
 */
import { describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { ScrollbackCapture } from '../../src/persist/scrollback-capture.js';

function terminal(): PaneTerminal {
  return new PaneTerminal({ cols: 40, rows: 10, scrollback: 5000, compactScrollback: true });
}

function lines(from: number, to: number): string {
  let s = '';
  for (let i = from; i < to; i++) {
    // Every 7th line wraps (longer than 40 columns, a space right at the wrap point).
    const long = i % 7 === 0 ? ` ${'word '.repeat(12)}end` : '';
    s += `\x1b[3${i % 8}mline ${i}\x1b[0m plain${long}\r\n`;
  }
  return s;
}

describe('ScrollbackCapture', () => {
  it('reads what recent-unwrapped ANSI reads, in slices, and again after more output', async () => {
    const t = terminal();
    await t.write(lines(0, 900));
    const capture = new ScrollbackCapture(t);
    const expected = () => t.read({ source: 'recent-unwrapped', lines: 300, format: 'ansi' }).text;
    expect(await capture.capture(300, 17)).toBe(expected());
    await t.write(lines(900, 1200) + 'prompt$ ');
    expect(await capture.capture(300, 17)).toBe(expected());
    expect((await capture.capture(300))!.split('\n')).toHaveLength(300);
    t.dispose();
  });

  it('gives null on the alternate screen, and everything when asked for more than there is', async () => {
    const t = terminal();
    await t.write(lines(0, 5));
    const capture = new ScrollbackCapture(t);
    expect((await capture.capture(2000))!.split('\n')).toHaveLength(5);
    await t.write('\x1b[?1049h');
    expect(await capture.capture(2000)).toBeNull();
    t.dispose();
  });
});
