/**
 * The turns of the review view as lines (src/tui/turn-lines.ts): aligned columns, the selected
 * line marked, a rewind's checkpoint marked, controls in a prompt made visible, the time with
 * its day when it is not today, and what the diff part says for each kind of checkpoint.
 */
import { describe, expect, it } from 'vitest';
import type { CheckpointDiffResult, CheckpointInfo } from '../../src/contract/checkpoints.js';
import { shortTime, turnDiffLines, turnListLines } from '../../src/tui/turn-lines.js';

const plain = (line: string): string => line.replace(/\x1b\[[0-9;]*m/g, '');

const NOW = new Date(2026, 11, 7, 15, 30);
const at = (hours: number, minutes: number, day = 7): string => new Date(2026, 11, day, hours, minutes).toISOString();

function checkpoint(over: Partial<CheckpointInfo>): CheckpointInfo {
  return { id: 1, turn: 1, at: at(14, 5), prompt: 'fix it', commit: 'c'.repeat(40), reason: 'turn', ms: 3, files_changed: 1, added: 2, removed: 0, ...over };
}

describe('turn lines', () => {
  it('one aligned line per checkpoint, the selected one marked, a rewind marked, controls visible', () => {
    const lines = turnListLines(
      [
        checkpoint({ id: 12, turn: 3, reason: 'rewind', prompt: '', files_changed: 10, added: 120, removed: 4 }),
        checkpoint({ id: 9, turn: 3, prompt: 'say \x1b[31mred\x07', at: at(9, 2), late: true }),
        checkpoint({ id: 1, turn: 1, at: at(23, 59, 6), files_changed: undefined }),
      ],
      1,
      NOW,
    ).map(plain);
    expect(lines).toEqual([
      '  #12 rewind  14:05        10 files +120 −4  the files before a rewind',
      '> #9  turn 3  09:02        1 file +2 −0      "say ^[[31mred^G"  late',
      '  #1  turn 1  12-06 23:59                    "fix it"',
    ]);
    expect(turnListLines([checkpoint({})], 0, NOW)[0]).toMatch(/^\x1b\[1m> /);
  });

  it('shortTime: the day only when it is another day; a bad date says so', () => {
    expect(shortTime(at(8, 7), NOW)).toBe('08:07');
    expect(shortTime(at(8, 7, 1), NOW)).toBe('12-01 08:07');
    expect(shortTime('not a date', NOW)).toBe('??:??');
  });

  it('the diff part: a turn\u2019s span, files and diff; a rewind\u2019s checkpoint; a failed read; a cut diff', () => {
    const diff: CheckpointDiffResult = {
      agent: 'ed',
      turn: 2,
      from: 2,
      to: null,
      files: [{ path: 'a.txt', status: 'modified', added: 1, removed: 1 }],
      added: 1,
      removed: 1,
      patch: 'diff --git a/a.txt b/a.txt\n@@ -1 +1 @@\n-old\n+new\n',
      truncated: true,
    };
    const lines = turnDiffLines('ed', checkpoint({ id: 2, turn: 2 }), { diff }).map(plain);
    expect(lines[0]).toBe('turn 2 (#2 → the files now)');
    expect(lines).toContain('M a.txt  +1 −1');
    expect(lines).toContain('+new');
    expect(lines.at(-1)).toContain('corral agent diff ed --turn 2 --stat');
    expect(turnDiffLines('ed', checkpoint({ id: 5, reason: 'rewind' }), null).map(plain)[0]).toContain('#5: the files just before a rewind');
    expect(turnDiffLines('ed', checkpoint({ turn: 4 }), { error: 'git failed\x07' }).map(plain)).toEqual(['turn 4: git failed^G']);
  });
});
