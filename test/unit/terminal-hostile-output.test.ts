/**
 * Output the byte-stream fuzzer (byte-stream-fuzz.test.ts) found a pane's terminal mishandling:
 * a UTF-8 character cut between two pty reads (lost by xterm), and CSI counts of up to 2^31
 * that xterm ran one step at a time (the server's event loop held for seconds to hours).
 */
import { describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { incompleteTail } from '../../src/terminal/utf8-carry.js';
import { RateLimitedXtermLog } from '../../src/terminal/xterm-log.js';

const quiet = () => new PaneTerminal({ cols: 40, rows: 6, hibernate: false, log: new RateLimitedXtermLog(() => {}) });

describe('a character cut between two reads', () => {
  it('is shown whole, wherever the cut falls', async () => {
    const bytes = Buffer.from('a•─😀b', 'utf8');
    for (let cut = 1; cut < bytes.length; cut++) {
      const term = quiet();
      await term.write(bytes.subarray(0, cut));
      await term.write(bytes.subarray(cut));
      expect(term.read({ source: 'visible' }).text, `cut at ${cut}`).toBe('a•─😀b');
      term.dispose();
    }
  });

  it('holds back only the start of a character still missing bytes', () => {
    expect(incompleteTail(Buffer.from('ab'))).toBe(0);
    expect(incompleteTail(Buffer.from([0x61, 0xe2, 0x80]))).toBe(2);
    expect(incompleteTail(Buffer.from([0xf0, 0x9f, 0x98]))).toBe(3);
    expect(incompleteTail(Buffer.from('😀'))).toBe(0);
    // Not UTF-8 at all: nothing to wait for.
    expect(incompleteTail(Buffer.from([0x80, 0x80, 0x80]))).toBe(0);
    expect(incompleteTail(Buffer.from([0xff]))).toBe(0);
  });
});

describe('huge CSI counts', () => {
  it.each([
    ['insert lines', '\x1b[2147483647L', 'r1'],
    ['delete lines', '\x1b[2147483647M', 'r1'],
    ['scroll up', '\x1b[2147483647S', ''],
    ['scroll down', '\x1b[2147483647T', ''],
  ])('%s: done at once, with the effect of the screen height', async (_name, sequence, expected) => {
    const term = quiet();
    await term.write('r1\r\nr2\r\nr3\x1b[2;1H');
    const started = performance.now();
    await term.write(sequence);
    expect(performance.now() - started).toBeLessThan(250);
    expect(term.read({ source: 'visible' }).text).toBe(expected);
    term.dispose();
  });

  it('repeat: at most a screenful of the character', async () => {
    const term = quiet();
    const started = performance.now();
    await term.write('x\x1b[2147483647b');
    expect(performance.now() - started).toBeLessThan(250);
    // The first x and 240 repeats: a full screen, scrolled once by the last.
    expect(term.read({ source: 'visible' }).text).toBe([...Array(5).fill('x'.repeat(40)), 'x'].join('\n'));
    term.dispose();
  });
});
