import { describe, expect, it } from 'vitest';
import { matchFastPath, matchPaneFastPath } from '../../src/cli/fast-path.js';

describe('matchFastPath', () => {
  it('takes exactly ps [--json] and status <target> [--json]', () => {
    expect(matchFastPath(['ps'])).toEqual({ verb: 'ps', positionals: [], json: false });
    expect(matchFastPath(['ps', '--json'])).toEqual({ verb: 'ps', positionals: [], json: true });
    expect(matchFastPath(['status', 'w1:p1', '--json'])).toEqual({ verb: 'status', positionals: ['w1:p1'], json: true });
    expect(matchFastPath(['status', '--json', 'cmdline:claude'])).toEqual({ verb: 'status', positionals: ['cmdline:claude'], json: true });
  });

  it('leaves everything else to the full CLI', () => {
    for (const args of [
      [],
      ['ls'],
      ['ps', '--help'],
      ['ps', 'extra'],
      ['ps', '--json', '--json'],
      ['ps', '--socket', '/x'],
      ['status'],
      ['status', 'a', 'b'],
      ['status', '--jsn', 'a'],
      ['status', 'a', '--session', 'x'],
    ]) {
      expect(matchFastPath(args), args.join(' ')).toBeNull();
    }
  });
});

describe('matchPaneFastPath (issue 45: a script driving a pane)', () => {
  it('takes pane run <pane> <command> and pane wait-output <pane> with --regex or --match and --timeout', () => {
    expect(matchPaneFastPath(['pane', 'run', 'w1:p2', 'cat f; echo MARK'])).toEqual({ verb: 'pane run', pane: 'w1:p2', command: 'cat f; echo MARK' });
    expect(matchPaneFastPath(['pane', 'wait-output', 'w1:p2', '--regex', '^MARK'])).toEqual({ verb: 'pane wait-output', pane: 'w1:p2', match: { type: 'regex', value: '^MARK' }, timeoutMs: undefined });
    expect(matchPaneFastPath(['pane', 'wait-output', 'w1:p2', '--timeout', '5000', '--match', 'done'])).toEqual({ verb: 'pane wait-output', pane: 'w1:p2', match: { type: 'substring', value: 'done' }, timeoutMs: 5000 });
    expect(matchPaneFastPath(['pane', 'wait-output', 'build/w1:p2', '--match', 'x', '--timeout', '0'])?.pane).toBe('build/w1:p2');
  });

  it('leaves every other shape to the full CLI', () => {
    for (const args of [
      ['pane'],
      ['pane', 'run'],
      ['pane', 'run', 'w1:p1'],
      ['pane', 'run', 'w1:p1', 'a', 'b'],
      ['pane', 'run', '--current', 'ls'],
      ['pane', 'run', 'w1:p1', '--help'],
      ['pane', 'run', 'w1:p1', '-x'],
      ['pane', 'run', '', 'ls'],
      ['pane', 'read', 'w1:p1'],
      ['pane', 'wait-output', 'w1:p1'],
      ['pane', 'wait-output', 'w1:p1', '--regex', 'a', '--match', 'b'],
      ['pane', 'wait-output', 'w1:p1', '--regex', 'a', '--regex', 'b'],
      ['pane', 'wait-output', 'w1:p1', '--regex=a'],
      ['pane', 'wait-output', 'w1:p1', '--regex', '-a'],
      ['pane', 'wait-output', 'w1:p1', '--match', 'a', '--source', 'visible'],
      ['pane', 'wait-output', 'w1:p1', '--match', 'a', '--timeout', '1e3'],
      ['pane', 'wait-output', 'w1:p1', '--match', 'a', '--timeout', '9999999999'],
      ['pane', 'wait-output', 'w1:p1', '--match', 'a', '--timeout'],
      ['pane', 'wait-output', '--current', '--match', 'a'],
      ['pane', 'wait-output', 'w1:p1', '--match', 'a', '--session', 'x'],
    ]) {
      expect(matchPaneFastPath(args), args.join(' ')).toBeNull();
    }
  });
});
