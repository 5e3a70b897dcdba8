import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { notificationBytes, visibleText } from '../../src/notify/notify-text.js';

describe('notification text', () => {
  it('shows control characters instead of sending them', () => {
    expect(visibleText('a\x1b]52;c;x\x07b')).toBe('a^[]52;c;x^Gb');
    expect(visibleText('x\x7f\u009by\nz')).toBe('x^?\\x9by z');
  });

  it('never lets peer text end the OSC or start another sequence', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'binary' }), (title, body) => {
        const bytes = notificationBytes(title, body);
        // Exactly the three BELs we put there (two terminators and the bell), two ESCs (the OSC starts).
        expect(bytes.match(/\x07/g)).toHaveLength(3);
        expect(bytes.match(/\x1b/g)).toHaveLength(2);
        expect(/[\u0080-\u009f]/.test(bytes)).toBe(false);
        // OSC 777's title field holds no `;`: notify;TITLE;BODY.
        const osc777 = bytes.slice(bytes.indexOf('\x1b]777;') + 6, bytes.lastIndexOf('\x07', bytes.length - 2));
        expect(osc777.split(';')[0]).toBe('notify');
        expect(osc777.split(';')[1]).toBe(visibleText(title).replace(/;/g, ','));
      }),
    );
  });

  it('cuts long text', () => {
    expect([...visibleText('x'.repeat(1000))].length).toBe(200);
  });
});
