import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { encodeKey, encodeKeys, KEY_NAMES } from '../../src/terminal/keys.js';
import { CorralError } from '../../src/contract/protocol.js';

describe('encodeKey', () => {
  it.each([
    ['enter', '\r'],
    ['esc', '\x1b'],
    ['escape', '\x1b'],
    ['tab', '\t'],
    ['backspace', '\x7f'],
    ['space', ' '],
    ['up', '\x1b[A'],
    ['down', '\x1b[B'],
    ['right', '\x1b[C'],
    ['left', '\x1b[D'],
    ['home', '\x1b[H'],
    ['end', '\x1b[F'],
    ['pageup', '\x1b[5~'],
    ['pagedown', '\x1b[6~'],
    ['delete', '\x1b[3~'],
    ['insert', '\x1b[2~'],
    ['shift+tab', '\x1b[Z'],
    ['f1', '\x1bOP'],
    ['f4', '\x1bOS'],
    ['f5', '\x1b[15~'],
    ['f10', '\x1b[21~'],
    ['f11', '\x1b[23~'],
    ['f12', '\x1b[24~'],
    ['ctrl+c', '\x03'],
    ['ctrl+a', '\x01'],
    ['ctrl+z', '\x1a'],
    ['ctrl+[', '\x1b'],
    ['ctrl+\\', '\x1c'],
    ['ctrl+]', '\x1d'],
    ['ctrl+^', '\x1e'],
    ['ctrl+_', '\x1f'],
    ['ctrl+@', '\x00'],
    ['ctrl+space', '\x00'],
    ['alt+x', '\x1bx'],
    ['alt+enter', '\x1b\r'],
    ['alt+ctrl+c', '\x1b\x03'],
    ['ctrl+alt+c', '\x1b\x03'],
    ['alt+up', '\x1b\x1b[A'],
    ['a', 'a'],
    ['/', '/'],
    ['+', '+'],
    ['é', 'é'],
    ['😀', '😀'],
    ['👍🏽', '👍🏽'],
  ])('%j → %j', (name, bytes) => {
    expect(encodeKey(name)).toBe(bytes);
  });

  it('is case-insensitive for names but keeps literal characters as typed', () => {
    expect(encodeKey('ENTER')).toBe('\r');
    expect(encodeKey('Ctrl+C')).toBe('\x03');
    expect(encodeKey('PageUp')).toBe('\x1b[5~');
    expect(encodeKey('F12')).toBe('\x1b[24~');
    expect(encodeKey('A')).toBe('A');
    expect(encodeKey('Alt+A')).toBe('\x1bA');
  });

  it('uses SS3 for cursor keys in application cursor mode', () => {
    const opts = { applicationCursor: true };
    expect(encodeKey('up', opts)).toBe('\x1bOA');
    expect(encodeKey('down', opts)).toBe('\x1bOB');
    expect(encodeKey('right', opts)).toBe('\x1bOC');
    expect(encodeKey('left', opts)).toBe('\x1bOD');
    expect(encodeKey('home', opts)).toBe('\x1bOH');
    expect(encodeKey('end', opts)).toBe('\x1bOF');
    expect(encodeKey('pageup', opts)).toBe('\x1b[5~');
  });

  it.each(['', 'foo', 'ctrl+', 'ctrl+1', 'alt+', 'ab', 'ctrl+foo', 'f13', 'alt+nope'])(
    'rejects %j with invalid_key',
    (name) => {
      let err: unknown;
      try {
        encodeKey(name);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(CorralError);
      expect((err as CorralError).code).toBe('invalid_key');
      expect((err as CorralError).data).toEqual({ key: name });
      expect((err as CorralError).message).toContain('known keys:');
    },
  );

  it('encodes every ctrl+letter as its control code', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 25 }), (i) => {
        const letter = String.fromCharCode(97 + i);
        expect(encodeKey(`ctrl+${letter}`)).toBe(String.fromCharCode(i + 1));
      }),
    );
  });

  it('passes any single code point through unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), (ch) => {
        expect(encodeKey(ch)).toBe(ch);
      }),
    );
  });

  it('lists the named keys for help text', () => {
    expect(KEY_NAMES).toContain('enter');
    expect(KEY_NAMES).toContain('pagedown');
    expect(KEY_NAMES).toContain('f12');
  });
});

describe('encodeKeys', () => {
  it('concatenates the encodings', () => {
    expect(encodeKeys(['h', 'i', 'enter'])).toBe('hi\r');
    expect(encodeKeys(['up'], { applicationCursor: true })).toBe('\x1bOA');
    expect(encodeKeys([])).toBe('');
  });

  it('validates all names before returning anything', () => {
    expect(() => encodeKeys(['enter', 'bogus'])).toThrow(/unknown key "bogus"/);
  });
});
