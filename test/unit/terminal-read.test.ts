import { afterEach, describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { CorralError } from '../../src/contract/protocol.js';

const terminals: PaneTerminal[] = [];
function make(cols = 20, rows = 5, scrollback = 100): PaneTerminal {
  const t = new PaneTerminal({ cols, rows, scrollback });
  terminals.push(t);
  return t;
}
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

/** `n` lines "line 1" … "line n" separated by CRLF, as a shell prints them. */
function numbered(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}`).join('\r\n');
}

describe('PaneTerminal write and revision', () => {
  it('resolves write after parsing and bumps the revision once per batch', async () => {
    const t = make();
    const seen: number[] = [];
    t.onRevision((r) => seen.push(r));
    expect(t.revision).toBe(0);
    await t.write('hello');
    expect(t.revision).toBe(1);
    expect(seen).toEqual([1]);
    expect(t.read({ source: 'visible' }).text).toBe('hello');
    await t.write('');
    expect(t.revision).toBe(1);
  });

  it('disposer stops revision notifications', async () => {
    const t = make();
    const seen: number[] = [];
    const sub = t.onRevision((r) => seen.push(r));
    await t.write('a');
    sub.dispose();
    await t.write('b');
    expect(seen).toEqual([1]);
    expect(t.revision).toBe(2);
  });

  it('resolves pending writes on dispose', async () => {
    const t = new PaneTerminal({ cols: 10, rows: 3 });
    const p = t.write('x'.repeat(100_000));
    t.dispose();
    await expect(p).resolves.toBeUndefined();
  });
});

describe('PaneTerminal read sources', () => {
  it('visible trims trailing whitespace and trailing empty rows', async () => {
    const t = make();
    await t.write('one   \r\ntwo\r\n\r\n');
    const r = t.read({ source: 'visible' });
    expect(r.text).toBe('one\ntwo');
    expect(r.truncated).toBe(false);
    expect(r.totalLines).toBe(5);
  });

  it('visible with lines keeps the last N rows', async () => {
    const t = make();
    await t.write(numbered(4));
    const r = t.read({ source: 'visible', lines: 2 });
    expect(r.text).toBe('line 3\nline 4');
    expect(r.truncated).toBe(true);
  });

  it('visible shows only the screen; recent reaches into scrollback', async () => {
    const t = make(20, 5, 100);
    await t.write(numbered(12));
    expect(t.read({ source: 'visible' }).text).toBe(['line 8', 'line 9', 'line 10', 'line 11', 'line 12'].join('\n'));
    const recent = t.read({ source: 'recent', lines: 8 });
    expect(recent.text.split('\n')).toEqual(['line 5', 'line 6', 'line 7', 'line 8', 'line 9', 'line 10', 'line 11', 'line 12']);
    expect(recent.truncated).toBe(true);
    expect(recent.totalLines).toBe(12);
    const all = t.read({ source: 'recent' });
    expect(all.text.split('\n')).toHaveLength(12);
    expect(all.truncated).toBe(false);
  });

  it('recent defaults to 80 rows', async () => {
    const t = make(20, 5, 1000);
    await t.write(numbered(200));
    const r = t.read({ source: 'recent' });
    const rows = r.text.split('\n');
    expect(rows).toHaveLength(80);
    expect(rows[0]).toBe('line 121');
    expect(rows[79]).toBe('line 200');
    expect(r.truncated).toBe(true);
    expect(r.totalLines).toBe(200);
  });

  it('scrollback is bounded by the configured size', async () => {
    const t = make(20, 5, 10);
    await t.write(numbered(100));
    const r = t.read({ source: 'recent', lines: 1000 });
    expect(r.totalLines).toBe(15);
    expect(r.text.split('\n')[0]).toBe('line 86');
  });

  it('recent shows soft-wrapped rows separately, recent-unwrapped joins them', async () => {
    const t = make(10, 5);
    await t.write('short\r\nabcdefghijKLMNOPQRSTuv\r\nend');
    expect(t.read({ source: 'recent' }).text).toBe('short\nabcdefghij\nKLMNOPQRST\nuv\nend');
    const un = t.read({ source: 'recent-unwrapped' });
    expect(un.text).toBe('short\nabcdefghijKLMNOPQRSTuv\nend');
    expect(t.read({ source: 'recent-unwrapped', lines: 2 }).text).toBe('abcdefghijKLMNOPQRSTuv\nend');
    expect(t.read({ source: 'recent-unwrapped', lines: 2 }).truncated).toBe(true);
    expect(un.truncated).toBe(false);
    // Each logical line's first row, counted like endLine.
    expect(un.lineStarts).toEqual([0, 1, 4]);
    expect(un.endLine).toBe(5);
    expect(t.read({ source: 'recent' }).lineStarts).toBeUndefined();
  });

  it('recent-unwrapped keeps a written space at the wrap point', async () => {
    const t = make(6, 3);
    await t.write('hello world');
    expect(t.read({ source: 'recent' }).text).toBe('hello\nworld');
    expect(t.read({ source: 'recent-unwrapped' }).text).toBe('hello world');
  });

  it('detection is the plain visible screen even when ansi is asked for', async () => {
    const t = make();
    await t.write('\x1b[31mred\x1b[0m\r\nplain\r\n\r\n');
    const r = t.read({ source: 'detection', format: 'ansi' });
    expect(r.text).toBe('red\nplain');
    expect(t.read({ source: 'detection', lines: 1 }).text).toBe('plain');
  });

  it('format ansi keeps colours and attributes, text strips them', async () => {
    const t = make(30, 3);
    await t.write('\x1b[1;31mbold red\x1b[0m \x1b[38;2;1;2;3mrgb\x1b[0m \x1b[48;5;200mbg\x1b[0m');
    expect(t.read({ source: 'visible' }).text).toBe('bold red rgb bg');
    const ansi = t.read({ source: 'visible', format: 'ansi' }).text;
    expect(ansi).toContain('\x1b[0;1;31mbold red');
    expect(ansi).toContain('\x1b[0;38;2;1;2;3mrgb');
    expect(ansi).toContain('\x1b[0;48;5;200mbg');
    expect(ansi.endsWith('\x1b[0m')).toBe(true);
    // Round trip: writing the ansi text into a fresh terminal renders the same cells.
    const copy = make(30, 3);
    await copy.write(ansi);
    const cell = copy.xterm.buffer.active.getLine(0)?.getCell(0);
    expect(cell?.isBold()).toBeTruthy();
    expect(cell?.getFgColor()).toBe(1);
    expect(copy.read({ source: 'visible' }).text).toBe('bold red rgb bg');
  });

  it('ansi keeps a coloured blank area that plain text trims', async () => {
    const t = make(10, 2);
    await t.write('x\x1b[44m   \x1b[0m');
    expect(t.read({ source: 'visible' }).text).toBe('x');
    expect(t.read({ source: 'visible', format: 'ansi' }).text).toBe('x\x1b[0;44m   \x1b[0m');
  });

  it('wide characters are read once', async () => {
    const t = make(10, 2);
    await t.write('日本語 ok');
    expect(t.read({ source: 'visible' }).text).toBe('日本語 ok');
    expect(t.read({ source: 'visible', format: 'ansi' }).text).toBe('日本語 ok');
  });

  it('reads the alternate screen while a full-screen app runs, the normal one after', async () => {
    const t = make(20, 4);
    await t.write('shell prompt\r\n');
    expect(t.isAlternateScreen).toBe(false);
    await t.write('\x1b[?1049h\x1b[H\x1b[2Jfull screen app');
    expect(t.isAlternateScreen).toBe(true);
    const alt = t.read({ source: 'visible' });
    expect(alt.text).toBe('full screen app');
    expect(alt.totalLines).toBe(4);
    expect(t.read({ source: 'recent' }).text).toBe('full screen app');
    await t.write('\x1b[?1049l');
    expect(t.isAlternateScreen).toBe(false);
    expect(t.read({ source: 'visible' }).text).toBe('shell prompt');
  });

  it('rejects a bad lines value', () => {
    const t = make();
    expect(() => t.read({ source: 'recent', lines: 0 })).toThrow(CorralError);
    expect(() => t.read({ source: 'recent', lines: 1.5 })).toThrow(/positive integer/);
  });

  it('an empty terminal reads as empty text', () => {
    const t = make();
    for (const source of ['visible', 'recent', 'recent-unwrapped', 'detection'] as const) {
      const lineStarts = source === 'recent-unwrapped' ? { lineStarts: [] } : {};
      expect(t.read({ source })).toEqual({ text: '', truncated: false, totalLines: 5, endLine: 0, ...lineStarts });
    }
  });

  it('numbers rows absolutely across scrollback trimming (endLine)', async () => {
    const t = make(20, 5, 10);
    expect(t.endLine).toBe(0);
    await t.write('line 1\r\nline 2');
    expect(t.endLine).toBe(2);
    // Far more than the buffer holds (10 scrollback + 5 rows), in one write and in many.
    await t.write('\r\n' + Array.from({ length: 98 }, (_, i) => `line ${i + 3}`).join('\r\n'));
    for (let i = 101; i <= 250; i++) await t.write(`\r\nline ${i}`);
    expect(t.endLine).toBe(250);
    const r = t.read({ source: 'recent', lines: 3 });
    expect(r.text).toBe('line 248\nline 249\nline 250');
    expect(r.endLine).toBe(250);
    // The row numbered endLine - 1 is the last returned: "line 250" is absolute row 249 (0-based).
    await t.write('\r\n');
    expect(t.endLine).toBe(250);
  });

  it('counts alternate-screen rows on from the normal buffer', async () => {
    const t = make(20, 5, 10);
    await t.write('a\r\nb\r\nc\r\n');
    expect(t.endLine).toBe(3);
    await t.write('\x1b[?1049h\x1b[Hfull\r\nscreen');
    expect(t.read({ source: 'visible' }).endLine).toBe(5);
    await t.write('\x1b[?1049l');
    expect(t.endLine).toBe(3);
  });

  it('resize reflows wrapped lines (not the cursor line, as xterm does by default)', async () => {
    const t = make(10, 5);
    await t.write('abcdefghijklmno\r\n');
    expect(t.read({ source: 'visible' }).text).toBe('abcdefghij\nklmno');
    t.resize(20, 5);
    expect(t.cols).toBe(20);
    expect(t.read({ source: 'visible' }).text).toBe('abcdefghijklmno');
  });
});
