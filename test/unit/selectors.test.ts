import { describe, expect, it } from 'vitest';
import {
  classifySelector,
  cwdIsUnder,
  matchSelector,
  resolveSelector,
  type SelectorCandidate,
} from '../../src/session/selectors.js';
import { CorralError } from '../../src/contract/protocol.js';

function pane(paneId: string, surfaceId: number, more: Partial<SelectorCandidate> = {}): SelectorCandidate {
  return { paneId, aliases: [], surfaceId, paneName: null, agentName: null, cmdline: 'bash', cwd: '/home/u', ...more };
}

const PANES: SelectorCandidate[] = [
  pane('w1:p1', 1, { paneName: 'api', cmdline: 'claude --resume', cwd: '/home/u/proj', agentName: 'reviewer' }),
  pane('w1:p2', 2, { paneName: 'web', cmdline: 'npm run dev', cwd: '/home/u/proj/web' }),
  pane('w2:p1', 3, { paneName: 'reviewer', cmdline: 'Codex exec', cwd: '/home/u/project2', aliases: ['w1:p3'] }),
  pane('w2:p2', 7, { paneName: '42', cmdline: 'vim notes', cwd: '/tmp' }),
  pane('w2:p3', 42, { paneName: 'w1:p9', cmdline: 'bash', cwd: '/' }),
];

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(CorralError);
    return (err as CorralError).code;
  }
  throw new Error('did not throw');
}

const ids = (cs: SelectorCandidate[]): string[] => cs.map((c) => c.paneId);

describe('resolveSelector rules', () => {
  it('cmdline: case-insensitive substring of the command line', () => {
    expect(ids(resolveSelector('cmdline:CLAUDE', PANES))).toEqual(['w1:p1']);
    expect(ids(resolveSelector('cmdline:codex', PANES))).toEqual(['w2:p1']);
    expect(ids(resolveSelector('cmdline:E', PANES, { allowMany: true }))).toEqual(['w1:p1', 'w1:p2', 'w2:p1', 'w2:p2']);
    expect(codeOf(() => resolveSelector('cmdline:emacs', PANES))).toBe('target_not_found');
  });

  it('cwd: panes whose cwd is the path or under it, trailing slashes ignored', () => {
    expect(ids(resolveSelector('cwd:/home/u/proj', PANES, { allowMany: true }))).toEqual(['w1:p1', 'w1:p2']);
    expect(ids(resolveSelector('cwd:/home/u/proj/', PANES, { allowMany: true }))).toEqual(['w1:p1', 'w1:p2']);
    expect(ids(resolveSelector('cwd:/home/u/proj/web', PANES))).toEqual(['w1:p2']);
    // A sibling whose name merely starts with the path does not match.
    expect(ids(resolveSelector('cwd:/home/u/project2', PANES))).toEqual(['w2:p1']);
    expect(codeOf(() => resolveSelector('cwd:/home/u/proj/web/src', PANES))).toBe('target_not_found');
    expect(resolveSelector('cwd:/', PANES, { allowMany: true })).toHaveLength(5);
  });

  it('cwdIsUnder', () => {
    expect(cwdIsUnder('/a/b', '/a')).toBe(true);
    expect(cwdIsUnder('/a/b/', '/a/b')).toBe(true);
    expect(cwdIsUnder('/ab', '/a')).toBe(false);
    expect(cwdIsUnder('/a', '/a/b')).toBe(false);
  });

  it('a pane id, also matching aliases of moved panes', () => {
    expect(ids(resolveSelector('w1:p2', PANES))).toEqual(['w1:p2']);
    expect(ids(resolveSelector('w1:p3', PANES))).toEqual(['w2:p1']);
  });

  it('a number is a surface id', () => {
    expect(ids(resolveSelector('3', PANES))).toEqual(['w2:p1']);
    expect(ids(resolveSelector('7', PANES))).toEqual(['w2:p2']);
  });

  it('a live agent name, then a pane name', () => {
    expect(ids(resolveSelector('web', PANES))).toEqual(['w1:p2']);
    expect(ids(resolveSelector('api', PANES))).toEqual(['w1:p1']);
  });
});

describe('resolveSelector precedence', () => {
  it('an agent name shadows a pane with the same name', () => {
    // w1:p1's agent is "reviewer"; w2:p1's pane is named "reviewer".
    expect(matchSelector('reviewer', PANES).rule).toBe('agent_name');
    expect(ids(resolveSelector('reviewer', PANES))).toEqual(['w1:p1']);
  });

  it('a number is always a surface id, never a numeric pane name', () => {
    expect(ids(resolveSelector('42', PANES))).toEqual(['w2:p3']); // surface 42, not the pane named "42"
    expect(codeOf(() => resolveSelector('99', PANES))).toBe('target_not_found');
  });

  it('an id-shaped selector that matches nothing is not found, not a name lookup', () => {
    expect(codeOf(() => resolveSelector('w1:p9', PANES))).toBe('target_not_found');
  });

  it('prefixes win over everything else', () => {
    const tricky = [pane('w1:p1', 1, { paneName: 'cmdline:x', cmdline: 'y' })];
    expect(codeOf(() => resolveSelector('cmdline:x', tricky))).toBe('target_not_found');
    expect(classifySelector('cwd:w1:p1')).toBe('cwd');
    expect(classifySelector('w1:p1')).toBe('pane_id');
    expect(classifySelector('1')).toBe('surface_id');
    expect(classifySelector('01')).toBe('name');
    expect(classifySelector('w1')).toBe('name');
  });
});

describe('resolveSelector errors', () => {
  it('several matches are ambiguous unless allowMany, naming the panes', () => {
    const many = [pane('w1:p1', 1, { paneName: 'x' }), pane('w1:p2', 2, { paneName: 'x' }), pane('w2:p1', 3, { paneName: 'x' })];
    try {
      resolveSelector('x', many);
      expect.unreachable();
    } catch (err) {
      const e = err as CorralError;
      expect(e.code).toBe('target_ambiguous');
      expect(e.message).toBe('"x" matches 3 panes: w1:p1, w1:p2, w2:p1');
      expect(e.data.selector).toBe('x');
      expect(e.data.candidates).toEqual([
        { pane_id: 'w1:p1', surface_id: 1, name: 'x', agent_name: null },
        { pane_id: 'w1:p2', surface_id: 2, name: 'x', agent_name: null },
        { pane_id: 'w2:p1', surface_id: 3, name: 'x', agent_name: null },
      ]);
    }
    expect(resolveSelector('x', many, { allowMany: true })).toHaveLength(3);
  });

  it('no match lists up to 20 candidates for help', () => {
    const lots = Array.from({ length: 30 }, (_, i) => pane(`w1:p${i + 1}`, i + 1));
    try {
      resolveSelector('nobody', lots);
      expect.unreachable();
    } catch (err) {
      const e = err as CorralError;
      expect(e.code).toBe('target_not_found');
      expect(e.message).toBe('no pane matches "nobody"');
      expect(e.data.candidates).toHaveLength(20);
    }
  });

  it('long ambiguous lists are cut in the message', () => {
    const lots = Array.from({ length: 25 }, (_, i) => pane(`w1:p${i + 1}`, i + 1));
    expect(() => resolveSelector('cmdline:bash', lots)).toThrow(/matches 25 panes: .*, … 5 more$/);
  });

  it('an empty selector or prefix value is invalid_params', () => {
    expect(codeOf(() => resolveSelector('', PANES))).toBe('invalid_params');
    expect(codeOf(() => resolveSelector('   ', PANES))).toBe('invalid_params');
    expect(codeOf(() => resolveSelector('cmdline:', PANES))).toBe('invalid_params');
    expect(codeOf(() => resolveSelector('cwd:', PANES))).toBe('invalid_params');
  });
});
