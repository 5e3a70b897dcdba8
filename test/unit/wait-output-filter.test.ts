/**
 * The output filter of `pane.wait_for_output` (src/wait/output-filter.ts) may say "maybe"
 * too often, never too rarely: whenever a batch of output makes a line of the pane match —
 * as a real xterm renders it — that batch was a "maybe". Checked against PaneTerminal on
 * random streams of text, colours, hyperlinks, tabs, line ends, carriage returns, backspaces
 * and cursor moves, cut into random batches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';
import { compilePaneLinesTest, compilePaneRegex } from '../../src/terminal/pane-regex.js';
import { appendingLine, outputFilter, MAX_CARRY, RegexFilter, requiredLiteral } from '../../src/wait/output-filter.js';

const token = fc.oneof(
  { weight: 12, arbitrary: fc.string({ unit: fc.constantFrom('M', 'A', 'R', 'K', '-', 'x', ' ', 'é'), minLength: 1, maxLength: 6 }) },
  { weight: 2, arbitrary: fc.constant('MARK-x') },
  { weight: 4, arbitrary: fc.constant('\r\n') },
  { weight: 3, arbitrary: fc.constantFrom('\x1b[31m', '\x1b[0m', '\x1b[1;38;5;208m', '\x1b[K') },
  { weight: 1, arbitrary: fc.constantFrom('\x1b]8;;https://x.test/\x07', '\x1b]8;;\x1b\\', '\x1b]0;title\x07') },
  { weight: 1, arbitrary: fc.constantFrom('\t', '\r', '\n', '\b', '\x07') },
  { weight: 1, arbitrary: fc.constantFrom('\x1b[2D', '\x1b[3C', '\x1b[1;1H', '\x1b[A', '\x1b7', '\x1b8', '\x1bM', '\x1b(0', '\x1b(B', '\x1b[2P') },
);

/** The stream as bytes, cut at random places (also inside sequences and UTF-8 characters). */
const stream = fc.tuple(fc.array(token, { maxLength: 60 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 40 })).map(([tokens, cuts]) => {
  const bytes = Buffer.from(tokens.join(''), 'utf8');
  const batches: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const n = cuts[i % cuts.length]!;
    batches.push(bytes.subarray(at, at + n));
    at += n;
  }
  return batches;
});

/** The logical lines that match now, keyed by row and text. */
function matching(t: PaneTerminal, test: (line: string) => boolean): Set<string> {
  const found = new Set<string>();
  const { text, lineStarts } = t.read({ source: 'recent-unwrapped', lines: 10_000 });
  text.split('\n').forEach((line, i) => {
    if (test(line)) found.add(`${lineStarts![i]}:${line}`);
  });
  return found;
}

async function neverMisses(match: { type: 'substring' | 'regex'; value: string }, batches: Buffer[], cols: number): Promise<void> {
  const t = new PaneTerminal({ cols, rows: 4, scrollback: 1000 });
  try {
    const test = match.type === 'substring' ? (line: string) => line.includes(match.value) : compilePaneRegex(match.value).test;
    const filter = outputFilter(match, appendingLine(t));
    let before = matching(t, test);
    for (const batch of batches) {
      const maybe = filter.mayMatch(batch);
      await t.write(batch);
      const after = matching(t, test);
      const fresh = [...after].filter((m) => !before.has(m));
      if (fresh.length > 0) expect({ fresh, batch: batch.toString('latin1'), maybe }).toMatchObject({ maybe: true });
      before = after;
      // As the wait does after reading the rows of a "maybe" batch.
      if (maybe && filter.lost) {
        const line = appendingLine(t);
        if (line !== null) filter.reseed(line);
      }
    }
  } finally {
    t.dispose();
  }
}

describe('wait-output filter', () => {
  it('says "maybe" for every batch that makes a line contain the substring', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.constantFrom(8, 20), fc.constantFrom('MARK-x', 'K-x', ' x', 'RK x'), (batches, cols, needle) =>
        neverMisses({ type: 'substring', value: needle }, batches, cols),
      ),
      { numRuns: 400 },
    );
  });

  it('says "maybe" for every batch that makes a line match the regex', async () => {
    await fc.assert(
      fc.asyncProperty(stream, fc.constantFrom(8, 20), fc.constantFrom('^MARK-x$', 'R+K', '^ +x', 'x$', 'é-?x', '^MARK-x', 'MARK?-x', 'RK x'), (batches, cols, regex) =>
        neverMisses({ type: 'regex', value: regex }, batches, cols),
      ),
      { numRuns: 400 },
    );
  });

  it('a regex with a required literal answers as the full rebuild does, batch by batch (issue 45)', () => {
    fc.assert(
      fc.property(stream, fc.constantFrom('^MARK-x', 'MARK?-x', 'RK x', '^MA(RK)?-x$', 'K-x{1,2}'), (batches, regex) => {
        const linesTest = compilePaneLinesTest(regex)!;
        const fast = new RegexFilter(linesTest, '', requiredLiteral(regex));
        const full = new RegexFilter(linesTest, '', null);
        for (const batch of batches) {
          expect(fast.mayMatch(batch)).toBe(full.mayMatch(batch));
          expect(fast.lost).toBe(full.lost);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('finds the literal every match of a pattern holds, or none', () => {
    expect(requiredLiteral('^MARK-7')).toBe('MARK-7');
    expect(requiredLiteral('MARK-[0-9]+')).toBe('MARK-');
    expect(requiredLiteral('^MARK?')).toBe('MAR');
    expect(requiredLiteral('^MARK{0}x')).toBe('MAR');
    expect(requiredLiteral('^MA(RK)?')).toBe('MA');
    expect(requiredLiteral('build done: ok')).toBe('build done: ok');
    for (const none of ['a|MARK', '^MARK|x', '.*MARK', '\\dMARK', '(?i)MARK', '^M?', 'x', '[MARK]', '^(MARK)']) expect(requiredLiteral(none), none).toBeNull();
  });

  it('stays quiet on a flood of text, colours and line ends that never holds the needle', () => {
    const filter = outputFilter({ type: 'substring', value: 'MARK-done' }, '');
    const line = 'MARK-don \x1b[31mMARK\x1b[0m-dome \tMARK -done\r\n';
    const flood = Buffer.from(line.repeat(2000));
    // Batches cut anywhere, in a line, a sequence or a character.
    for (let at = 0, n = 1; at < flood.length; at += n, n = (n * 7 + 3) % 4099) expect(filter.mayMatch(flood.subarray(at, at + n))).toBe(false);
  });

  it('finds the needle split by colours, a hyperlink, or two batches, and one finished after the seed', () => {
    const hit = (value: string, seed: string, ...batches: string[]) => {
      const filter = outputFilter({ type: 'substring', value }, seed);
      return batches.map((b) => filter.mayMatch(Buffer.from(b)));
    };
    expect(hit('MARK-x', '', 'a MA\x1b[1mRK\x1b[0m-x\r\n')).toEqual([true]);
    expect(hit('MARK-x', '', 'a MARK\x1b]8;;http://h/\x07-x\x1b]8;;\x07\r\n')).toEqual([true]);
    expect(hit('MARK-x', '', 'a MA', 'R', 'K-x\r\n')).toEqual([false, false, true]);
    expect(hit('MARK-x', '$ MA', 'RK-x')).toEqual([true]);
    expect(hit('MARK-x', '', 'MA\r\n', 'RK-x\r\n')).toEqual([false, false]);
  });

  it('says "maybe" for what it cannot follow, and for an unfinished line past the carry limit', () => {
    const filter = () => outputFilter({ type: 'substring', value: 'MARK' }, '');
    for (const b of ['ab\x1b[3Dcd', 'ab\rcd', 'ab\bc', 'a\x1b8b', '\x1b(0q']) {
      const f = filter();
      expect(f.mayMatch(Buffer.from(b))).toBe(true);
      // Lost: every batch is a "maybe" until told where output goes on.
      expect([f.lost, f.mayMatch(Buffer.from('plain\r\n'))]).toEqual([true, true]);
      f.reseed('');
      expect([f.lost, f.mayMatch(Buffer.from('plain\r\n'))]).toEqual([false, false]);
    }
    expect(filter().mayMatch(Buffer.alloc(MAX_CARRY + 1, 0x61))).toBe(true);
    // A regex whose meaning changes on joined lines: every batch is a "maybe".
    expect(outputFilter({ type: 'regex', value: '\\Ax' }, '').mayMatch(Buffer.from('y\r\n'))).toBe(true);
  });
});
