import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { InputParser, splitFirstKey } from '../../src/tui/input-parser.js';

describe('InputParser', () => {
  it('says which chunks pass whole (the controller sends them on without feed): exactly those feed gives back as one data event', () => {
    // Pieces of input a terminal sends: typing, controls, escape sequences, a paste, and parts of them.
    const piece = fc.constantFrom('a', 'Zq', ' ', '\r', '\x7f', '\x03', 'é', '\x1b', '\x1b[', '\x1b[A', '\x1bOB', '\x1bx', '\x1b[I', '\x1b[<0;3;4M', '\x1b[200~', 'xy', '\x1b[201~', '\x1b[13;2u');
    fc.assert(
      fc.property(fc.array(fc.array(piece, { minLength: 1, maxLength: 4 }).map((p) => p.join('')), { minLength: 1, maxLength: 12 }), (chunks) => {
        const parser = new InputParser();
        for (const chunk of chunks) {
          const whole = parser.passesWhole(chunk);
          const events = parser.feed(chunk);
          if (whole) expect(events).toEqual([{ kind: 'data', data: chunk }]);
        }
      }),
    );
    const parser = new InputParser();
    expect(parser.passesWhole('ls -la\r')).toBe(true);
    expect(parser.passesWhole('\x1b[A')).toBe(false);
    expect(parser.passesWhole('')).toBe(false);
    // Held back: the first half of a sequence, or an open paste, must meet what follows in feed.
    parser.feed('\x1b[');
    expect(parser.passesWhole('A')).toBe(false);
    parser.feed('A\x1b[200~abc');
    expect(parser.passesWhole('def')).toBe(false);
  });

  it('passes plain keys and unrelated escape sequences through as data', () => {
    const parser = new InputParser();
    expect(parser.feed('ls -la\r\x1b[A\x1bOB\x1bx')).toEqual([{ kind: 'data', data: 'ls -la\r\x1b[A\x1bOB\x1bx' }]);
  });

  it('takes out SGR mouse reports, focus reports and pastes', () => {
    const parser = new InputParser();
    const events = parser.feed('a\x1b[<0;10;5Mb\x1b[I\x1b[200~pasted\r\x1b[201~c\x1b[<65;3;4M\x1b[O');
    expect(events).toEqual([
      { kind: 'data', data: 'a' },
      { kind: 'mouse', mouse: expect.objectContaining({ x: 9, y: 4, action: 'press', button: 0 }) },
      { kind: 'data', data: 'b' },
      { kind: 'focus', focused: true },
      { kind: 'paste-start' },
      { kind: 'paste-text', text: 'pasted\r' },
      { kind: 'paste-end' },
      { kind: 'data', data: 'c' },
      { kind: 'mouse', mouse: expect.objectContaining({ x: 2, y: 3, action: 'wheel-down' }) },
      { kind: 'focus', focused: false },
    ]);
  });

  it('holds a sequence split across reads and a lone ESC until flushed', () => {
    const parser = new InputParser();
    expect(parser.feed('x\x1b[<0;1')).toEqual([{ kind: 'data', data: 'x' }]);
    expect(parser.awaitsEscapeTimeout).toBe(true);
    expect(parser.feed(';1m')).toEqual([{ kind: 'mouse', mouse: expect.objectContaining({ action: 'release' }) }]);
    expect(parser.feed('\x1b')).toEqual([]);
    expect(parser.flush()).toEqual([{ kind: 'data', data: '\x1b' }]);
    // An SS3 key (an arrow in application mode) cut after its O is held whole too.
    expect(parser.feed('\x1bO')).toEqual([]);
    expect(parser.feed('A')).toEqual([{ kind: 'data', data: '\x1bOA' }]);
  });

  it('passes a paste on as it arrives, holding back only what may be its end marker, and never ends it early', () => {
    const parser = new InputParser();
    expect(parser.feed('a\x1b[200~line 1\r')).toEqual([{ kind: 'data', data: 'a' }, { kind: 'paste-start' }, { kind: 'paste-text', text: 'line 1\r' }]);
    expect(parser.idle).toBe(false);
    expect(parser.feed('line 2\x1b[20')).toEqual([{ kind: 'paste-text', text: 'line 2' }]);
    // However long the pane takes, a paste waiting for its end marker is not released as keys.
    expect(parser.awaitsEscapeTimeout).toBe(false);
    expect(parser.flush()).toEqual([]);
    expect(parser.feed('1~b')).toEqual([{ kind: 'paste-end' }, { kind: 'data', data: 'b' }]);
    expect(parser.idle).toBe(true);
  });

  it('keeps a paste whole however it is chunked (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme-ascii' }), fc.array(fc.nat(40), { maxLength: 6 }), (text, cuts) => {
        const clean = text.replace(/\x1b/g, '');
        const input = `\x1b[200~${clean}\x1b[201~`;
        const points = [...new Set(cuts.map((c) => c % (input.length + 1)))].sort((a, b) => a - b);
        const parser = new InputParser();
        const events = [];
        let last = 0;
        for (const p of [...points, input.length]) {
          events.push(...parser.feed(input.slice(last, p)));
          last = p;
        }
        events.push(...parser.flush());
        const pasted = events.filter((e) => e.kind === 'paste-text').map((e) => (e as any).text).join('');
        expect(pasted).toBe(clean);
        expect(events.filter((e) => e.kind !== 'paste-text')).toEqual([{ kind: 'paste-start' }, { kind: 'paste-end' }]);
      }),
    );
  });
});

describe('splitFirstKey', () => {
  it('splits one key off: CSI, SS3, alt+char, a code point', () => {
    expect(splitFirstKey('\x1b[Arest')).toEqual({ key: '\x1b[A', rest: 'rest' });
    expect(splitFirstKey('\x1bOBx')).toEqual({ key: '\x1bOB', rest: 'x' });
    expect(splitFirstKey('\x1bvx')).toEqual({ key: '\x1bv', rest: 'x' });
    expect(splitFirstKey('😀x')).toEqual({ key: '😀', rest: 'x' });
    expect(splitFirstKey('v')).toEqual({ key: 'v', rest: '' });
  });
});

describe('bracketedPaste', () => {
  it('frames text and drops markers inside it, so a paste cannot end itself early', async () => {
    const { bracketedPaste } = await import('../../src/terminal/paste.js');
    expect(bracketedPaste('ls\r')).toBe('\x1b[200~ls\r\x1b[201~');
    expect(bracketedPaste('a\x1b[201~rm -rf x\r\x1b[200~b')).toBe('\x1b[200~arm -rf x\rb\x1b[201~');
  });
});
