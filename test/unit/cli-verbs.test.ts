/**
 * The table of one-call CLI verbs (src/cli/verbs.ts) is self-consistent: every verb calls a
 * method of the contract, declares exactly the positionals its command names, describes
 * every positional and flag, and no group repeats a verb. `--help` output itself is checked
 * end to end by the CLI tests; this catches a table entry that could never work.
 */
import { describe, expect, it } from 'vitest';
import { METHODS } from '../../src/contract/protocol.js';
import { CALL_GROUPS, CONDUCTOR } from '../../src/cli/verbs.js';
import type { CallVerb } from '../../src/cli/verb-table.js';

const GROUPS = Object.values(CALL_GROUPS);
const ALL: { where: string; verb: CallVerb }[] = [
  ...GROUPS.flatMap((group) => group.verbs.map((verb) => ({ where: `${group.command} ${verb.command}`, verb }))),
  ...Object.values(CONDUCTOR).map((verb) => ({ where: verb.command, verb })),
];

/** The positional names a yargs command string declares: `<id>`, `[pane]`, `[keys..]`. */
function namedPositionals(command: string): string[] {
  return [...command.matchAll(/[<[]([a-z-]+)(?:\.\.)?[>\]]/g)].map((m) => m[1]!);
}

describe('CLI verb table', () => {
  it('has every verb call a method of the contract', () => {
    for (const { where, verb } of ALL) expect(METHODS, where).toContain(verb.method);
  });

  it('declares exactly the positionals each command names, in order', () => {
    for (const { where, verb } of ALL) expect(Object.keys(verb.positionals ?? {}), where).toEqual(namedPositionals(verb.command));
  });

  it('describes every verb, positional and flag', () => {
    for (const { where, verb } of ALL) {
      expect(verb.describe.length, where).toBeGreaterThan(0);
      for (const [name, spec] of [...Object.entries(verb.positionals ?? {}), ...Object.entries(verb.options ?? {})]) {
        expect(spec.describe, `${where} ${name}`).toBeTruthy();
      }
    }
  });

  it('names each sub-verb once per group, and workspace and tab offer the same verbs', () => {
    for (const group of GROUPS) {
      const words = group.verbs.map((verb) => verb.command.split(' ')[0]);
      expect(new Set(words).size, group.command).toBe(words.length);
    }
    const words = (group: (typeof GROUPS)[number]) => group.verbs.map((verb) => verb.command.split(' ')[0]);
    expect(words(CALL_GROUPS.tab)).toEqual(words(CALL_GROUPS.workspace));
    expect(CALL_GROUPS.tab.verbs.map((v) => v.method)).toEqual(CALL_GROUPS.workspace.verbs.map((v) => v.method.replace('workspace.', 'tab.')));
  });

  it('builds the params the server expects from a parsed command line', () => {
    const rename = CALL_GROUPS.tab.verbs.find((v) => v.command.startsWith('rename'))!;
    expect(rename.params({ id: 'w1:t2', label: 'build' })).toEqual({ tab_id: 'w1:t2', label: 'build' });
    const swap = CALL_GROUPS.pane.verbs.find((v) => v.command.startsWith('swap'))!;
    expect(swap.params({ pane: 'w1:p1', other: 'w1:p2', current: false })).toEqual({ pane_id: 'w1:p1', other_pane_id: 'w1:p2' });
    expect(() => swap.params({ pane: 'w1:p1', current: false })).toThrow('missing <other>');
  });
});
