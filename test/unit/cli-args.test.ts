import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/cli/output.js';
import { currentPaneId, expectArgs, paneAndArgs, paneArg } from '../../src/cli/run.js';

const env = { CORRAL_PANE_ID: 'w1:p3' };

describe('--current and <pane>', () => {
  it('uses the positional pane', () => {
    expect(paneArg({ pane: 'w2:p1' }, env)).toBe('w2:p1');
  });

  it('--current means $CORRAL_PANE_ID', () => {
    expect(paneArg({ current: true }, env)).toBe('w1:p3');
    expect(currentPaneId(env)).toBe('w1:p3');
  });

  it('--current outside a pane, neither, or both are usage errors', () => {
    expect(() => paneArg({ current: true }, {})).toThrow(UsageError);
    expect(() => paneArg({}, env)).toThrow(UsageError);
    expect(() => paneArg({ pane: 'w1:p1', current: true }, env)).toThrow(UsageError);
  });

  it('with --current the pane slot holds the first of the other arguments', () => {
    expect(paneAndArgs({ pane: 'make test', current: true }, [undefined], env)).toEqual({ pane: 'w1:p3', args: ['make test'] });
    expect(paneAndArgs({ pane: 'esc', current: true }, [['up', 'enter']], env)).toEqual({ pane: 'w1:p3', args: ['esc', 'up', 'enter'] });
    expect(paneAndArgs({ pane: 'w1:p1' }, ['make test'], env)).toEqual({ pane: 'w1:p1', args: ['make test'] });
  });

  it('expectArgs names what is missing or extra', () => {
    expect(expectArgs(['a'], ['text'])).toEqual(['a']);
    expect(() => expectArgs([], ['text'])).toThrow('missing <text>');
    expect(() => expectArgs(['a', 'b'], ['text'])).toThrow('unexpected argument: b');
  });
});
