import { describe, expect, it } from 'vitest';
import { matchFastPath } from '../../src/cli/fast-path.js';

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
