/**
 * The pane-text regex engine (src/terminal/pane-regex.ts): the seed's Rust-regex syntax,
 * linear time, and `invalid_regex` with RE2's reason for what it does not support.
 */
import { describe, expect, it } from 'vitest';
import { compilePaneRegex } from '../../src/terminal/pane-regex.js';
import { CorralError } from '../../src/contract/protocol.js';

function rejection(source: string, label?: string): CorralError {
  try {
    compilePaneRegex(source, label);
  } catch (error) {
    return error as CorralError;
  }
  throw new Error(`${source} compiled`);
}

describe('compilePaneRegex', () => {
  it('speaks the seed syntax (Rust regex): inline flags, (?P<name>), POSIX classes, \\z', () => {
    expect(compilePaneRegex('(?i)3 PASSED').test('tests: 3 passed')).toBe(true);
    expect(compilePaneRegex('(?P<n>\\d+) passed').test('12 passed, 0 failed')).toBe(true);
    expect(compilePaneRegex('^[[:digit:]]+$').test('2024')).toBe(true);
    expect(compilePaneRegex('^[[:digit:]]+$').test('20x4')).toBe(false);
    expect(compilePaneRegex('done\\z').test('all done')).toBe(true);
    expect(compilePaneRegex('done\\z').test('done yet?')).toBe(false);
    expect(compilePaneRegex('\\p{Greek}+').test('λx')).toBe(true);
  });

  it('gives the same answer on every call (no lastIndex carried between lines)', () => {
    const re = compilePaneRegex('^DONE');
    expect(['DONE 1', 'x', 'DONE 2', 'DONE 3'].filter(re.test)).toEqual(['DONE 1', 'DONE 2', 'DONE 3']);
  });

  it('matches a catastrophic-backtracking pattern on a long line in linear time', () => {
    const line = `${'d'.repeat(200_000)}x`;
    // A backtracking engine needs longer than the universe's age here, far past the test's
    // timeout; linear time is microseconds per KiB (its cost is measured in the bench, not here).
    expect(compilePaneRegex('^(d+)+$').test(line)).toBe(false);
    expect(compilePaneRegex('^(d|dd)+$').test(line)).toBe(false);
  });

  it('refuses what RE2 does not support with invalid_regex, the label, the pattern and the reason', () => {
    const look = rejection('a(?=b)', '--pattern');
    expect(look).toBeInstanceOf(CorralError);
    expect(look.code).toBe('invalid_regex');
    expect(look.message).toMatch(/^invalid --pattern "a\(\?=b\)": invalid perl operator: \(\?= \(RE2 syntax/);
    expect(look.data).toEqual({ pattern: 'a(?=b)' });
    expect(rejection('(a)\\1').message).toMatch(/^invalid regex "\(a\)\\\\1": invalid escape sequence/);
    expect(rejection('(').message).toMatch(/missing \)/);
  });
});
