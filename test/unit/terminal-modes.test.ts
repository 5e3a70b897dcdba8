import { afterEach, describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

const terminals: PaneTerminal[] = [];
function make(): PaneTerminal {
  const t = new PaneTerminal({ cols: 40, rows: 10 });
  terminals.push(t);
  return t;
}
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

describe('PaneTerminal modes and metadata', () => {
  it('tracks the OSC 0/2 title', async () => {
    const t = make();
    expect(t.title).toBe('');
    await t.write('\x1b]0;first title\x07');
    expect(t.title).toBe('first title');
    await t.write('\x1b]2;second\x1b\\');
    expect(t.title).toBe('second');
  });

  it('tracks bracketed paste, application cursor keys and mouse tracking', async () => {
    const t = make();
    expect(t.bracketedPasteMode).toBe(false);
    expect(t.applicationCursorKeys).toBe(false);
    expect(t.mouseTrackingMode).toBe('none');
    await t.write('\x1b[?2004h\x1b[?1h\x1b[?1000h');
    expect(t.bracketedPasteMode).toBe(true);
    expect(t.applicationCursorKeys).toBe(true);
    expect(t.mouseTrackingMode).toBe('vt200');
    await t.write('\x1b[?2004l\x1b[?1l\x1b[?1000l');
    expect(t.bracketedPasteMode).toBe(false);
    expect(t.applicationCursorKeys).toBe(false);
    expect(t.mouseTrackingMode).toBe('none');
  });

  it('parses OSC 9;4 progress and ignores other OSC 9 payloads', async () => {
    const t = make();
    expect(t.progress).toBeNull();
    await t.write('\x1b]9;4;1;42\x07');
    expect(t.progress).toEqual({ state: 1, value: 42 });
    await t.write('\x1b]9;4;3\x1b\\');
    expect(t.progress).toEqual({ state: 3, value: 0 });
    await t.write('\x1b]9;some notification\x07');
    expect(t.progress).toEqual({ state: 3, value: 0 });
    await t.write('\x1b]9;4;0;0\x07');
    expect(t.progress).toEqual({ state: 0, value: 0 });
    expect(t.read({ source: 'visible' }).text).toBe('');
  });

  it('reports the bell', async () => {
    const t = make();
    let bells = 0;
    const sub = t.onBell(() => bells++);
    await t.write('\x07');
    expect(bells).toBe(1);
    sub.dispose();
    await t.write('\x07');
    expect(bells).toBe(1);
  });

  it('serializes contents that a fresh terminal can replay', async () => {
    const t = make();
    await t.write('\x1b[32mgreen\x1b[0m text\r\nsecond line\x1b[?2004h');
    const copy = make();
    await copy.write(t.serialize());
    expect(copy.read({ source: 'visible' }).text).toBe('green text\nsecond line');
    expect(copy.read({ source: 'visible', format: 'ansi' }).text).toBe(t.read({ source: 'visible', format: 'ansi' }).text);
    expect(copy.bracketedPasteMode).toBe(true);
  });
});
