import { describe, expect, it } from 'vitest';
import xterm from '@xterm/headless';
import { decodeKeyReport, encodeKeyForPane, legacyBytes, MOD } from '../../src/terminal/key-protocol.js';
import { KeyboardModes } from '../../src/terminal/keyboard-modes.js';
import { InputParser } from '../../src/tui/input-parser.js';

const NONE = { kittyFlags: 0, modifyOtherKeys: 0 };
const KITTY = { kittyFlags: 1, modifyOtherKeys: 0 };
const MOK1 = { kittyFlags: 0, modifyOtherKeys: 1 };
const MOK2 = { kittyFlags: 0, modifyOtherKeys: 2 };
const key = (code: number, mods = 0) => ({ code, mods });

describe('key reports from the outer terminal', () => {
  it('decodes kitty CSI u and xterm CSI 27 forms, ignoring extra fields', () => {
    expect(decodeKeyReport('\x1b[13;2u')).toEqual(key(13, MOD.shift));
    expect(decodeKeyReport('\x1b[27u')).toEqual(key(27));
    expect(decodeKeyReport('\x1b[97:65;6:1u')).toEqual(key(97, MOD.shift | MOD.ctrl));
    expect(decodeKeyReport('\x1b[27;5;13~')).toEqual(key(13, MOD.ctrl));
    expect(decodeKeyReport('\x1b[u')).toBeNull();
    expect(decodeKeyReport('\x1b[1;5A')).toBeNull();
    expect(decodeKeyReport('\x1b[15~')).toBeNull();
  });

  it('reaches the controller as key events, in order with text', () => {
    const events = new InputParser().feed('a\x1b[13;2ub\x1b[98;5u');
    expect(events).toEqual([
      { kind: 'data', data: 'a' },
      { kind: 'key', key: key(13, MOD.shift) },
      { kind: 'data', data: 'b' },
      { kind: 'key', key: key(98, MOD.ctrl) },
    ]);
  });
});

describe('encoding a key for a pane', () => {
  it('falls back to the legacy bytes for an app that asked for nothing', () => {
    expect(encodeKeyForPane(key(13, MOD.shift), NONE)).toBe('\r');
    expect(encodeKeyForPane(key(13, MOD.alt), NONE)).toBe('\x1b\r');
    expect(encodeKeyForPane(key(99, MOD.ctrl), NONE)).toBe('\x03');
    expect(encodeKeyForPane(key(97, MOD.ctrl | MOD.shift), NONE)).toBe('\x01');
    expect(encodeKeyForPane(key(97, MOD.alt | MOD.shift), NONE)).toBe('\x1bA');
    expect(encodeKeyForPane(key(9, MOD.shift), NONE)).toBe('\x1b[Z');
    expect(encodeKeyForPane(key(127, MOD.ctrl), NONE)).toBe('\x08');
    expect(encodeKeyForPane(key(27), NONE)).toBe('\x1b');
    expect(encodeKeyForPane(key(32, MOD.ctrl), NONE)).toBe('\x00');
    expect(encodeKeyForPane(key(57414), NONE)).toBe('\r');
    expect(encodeKeyForPane(key(57441, MOD.shift), NONE)).toBe('');
    expect(legacyBytes(key(99, MOD.ctrl | MOD.capsLock))).toBe('\x03');
  });

  it('gives an agent that asked for nothing kitty\u2019s form only where legacy bytes would lose a modifier', () => {
    const agent = { extendedByDefault: true };
    expect(encodeKeyForPane(key(13, MOD.shift), NONE, agent)).toBe('\x1b[13;2u');
    expect(encodeKeyForPane(key(13, MOD.ctrl), NONE, agent)).toBe('\x1b[13;5u');
    expect(encodeKeyForPane(key(13, MOD.alt), NONE, agent)).toBe('\x1b\r');
    expect(encodeKeyForPane(key(99, MOD.ctrl), NONE, agent)).toBe('\x03');
    expect(encodeKeyForPane(key(27), NONE, agent)).toBe('\x1b');
    expect(encodeKeyForPane(key(9, MOD.shift), NONE, agent)).toBe('\x1b[Z');
  });

  it('uses kitty\u2019s form for an app that pushed kitty flags, keeping plain Enter legacy', () => {
    expect(encodeKeyForPane(key(13, MOD.shift), KITTY)).toBe('\x1b[13;2u');
    expect(encodeKeyForPane(key(13, MOD.ctrl | MOD.numLock), KITTY)).toBe('\x1b[13;5u');
    expect(encodeKeyForPane(key(27), KITTY)).toBe('\x1b[27u');
    expect(encodeKeyForPane(key(13), KITTY)).toBe('\r');
    expect(encodeKeyForPane(key(13), { kittyFlags: 8, modifyOtherKeys: 0 })).toBe('\x1b[13u');
  });

  it('uses xterm\u2019s CSI 27 form under modifyOtherKeys, level 1 only where legacy loses a modifier', () => {
    expect(encodeKeyForPane(key(13, MOD.shift), MOK1)).toBe('\x1b[27;2;13~');
    expect(encodeKeyForPane(key(99, MOD.ctrl), MOK1)).toBe('\x03');
    expect(encodeKeyForPane(key(99, MOD.ctrl), MOK2)).toBe('\x1b[27;5;99~');
    expect(encodeKeyForPane(key(13, MOD.ctrl), MOK2)).toBe('\x1b[27;5;13~');
    expect(encodeKeyForPane(key(97, MOD.shift), MOK2)).toBe('A');
    expect(encodeKeyForPane(key(27), MOK2)).toBe('\x1b');
  });
});

describe('tracking what a pane asked for', () => {
  const setup = () => {
    const term = new xterm.Terminal({ cols: 20, rows: 5, allowProposedApi: true });
    const replies: string[] = [];
    const modes = new KeyboardModes(term, (r) => replies.push(r));
    const write = (s: string) => new Promise<void>((resolve) => term.write(s, resolve));
    return { term, modes, replies, write };
  };

  it('keeps a kitty flag stack per screen, answers the query, and resets on RIS', async () => {
    const { modes, replies, write } = setup();
    await write('\x1b[>1u\x1b[>3u');
    expect(modes.kittyFlags).toBe(3);
    await write('\x1b[?u');
    expect(replies).toEqual(['\x1b[?3u']);
    await write('\x1b[?1049h');
    expect(modes.kittyFlags).toBe(0);
    await write('\x1b[>5u');
    expect(modes.kittyFlags).toBe(5);
    await write('\x1b[?1049l');
    expect(modes.kittyFlags).toBe(3);
    await write('\x1b[<u');
    expect(modes.kittyFlags).toBe(1);
    await write('\x1b[=4;2u');
    expect(modes.kittyFlags).toBe(5);
    await write('\x1b[=1;3u');
    expect(modes.kittyFlags).toBe(4);
    await write('\x1b[<10u');
    expect(modes.kittyFlags).toBe(0);
    await write('\x1b[>1u\x1b[>4;2m');
    expect(modes.modifyOtherKeys).toBe(2);
    await write('\x1bc');
    expect([modes.kittyFlags, modes.modifyOtherKeys]).toEqual([0, 0]);
  });

  it('bounds the stack an app pushes without popping', async () => {
    const { modes, write } = setup();
    await write('\x1b[>1u'.repeat(1000));
    await write('\x1b[<20u');
    expect(modes.kittyFlags).toBe(0);
  });
});
