import { afterEach, describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { CorralError } from '../../src/contract/protocol.js';

const terminals: PaneTerminal[] = [];
function make(cols = 20, rows = 5): PaneTerminal {
  const t = new PaneTerminal({ cols, rows, scrollback: 1000 });
  terminals.push(t);
  return t;
}
afterEach(() => {
  for (const t of terminals.splice(0)) t.dispose();
});

describe('PaneTerminal.search', () => {
  it('finds substrings across scrollback and screen with 1-based buffer lines', async () => {
    const t = make();
    await t.write(Array.from({ length: 30 }, (_, i) => `row ${i + 1}${i % 10 === 0 ? ' ERROR' : ''}`).join('\r\n'));
    const r = t.search('ERROR');
    expect(r.truncated).toBe(false);
    expect(r.matches).toEqual([
      { line: 1, text: 'row 1 ERROR' },
      { line: 11, text: 'row 11 ERROR' },
      { line: 21, text: 'row 21 ERROR' },
    ]);
  });

  it('matches a pattern split by a soft wrap and reports the whole logical line', async () => {
    const t = make(10, 5);
    await t.write('first\r\n0123456789needle here\r\nlast');
    const r = t.search('89needle');
    expect(r.matches).toEqual([{ line: 2, text: '0123456789needle here' }]);
  });

  it('supports regexes and rejects invalid ones with invalid_regex', async () => {
    const t = make();
    await t.write('a1\r\nb22\r\nc333');
    expect(t.search('^[bc]\\d+$', { regex: true }).matches.map((m) => m.text)).toEqual(['b22', 'c333']);
    let err: unknown;
    try {
      t.search('(unclosed', { regex: true });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CorralError);
    expect((err as CorralError).code).toBe('invalid_regex');
    // A plain substring search treats regex syntax literally.
    expect(t.search('(unclosed').matches).toEqual([]);
  });

  it('caps matches and reports truncation', async () => {
    const t = make();
    await t.write(Array.from({ length: 100 }, () => 'x').join('\r\n'));
    expect(t.search('x').matches).toHaveLength(50);
    expect(t.search('x').truncated).toBe(true);
    const three = t.search('x', { maxMatches: 3 });
    expect(three.matches.map((m) => m.line)).toEqual([1, 2, 3]);
    expect(three.truncated).toBe(true);
    expect(t.search('x', { maxMatches: 100 }).truncated).toBe(false);
  });
});
