/**
 * Text from a repository shown to people (SPEC §8, §15): a diff's lines and file names have
 * their control characters made visible before corral adds its own colours; a setup's output
 * keeps its colours and nothing else, so it cannot move the cursor or make the terminal answer
 * a query into the pane's shell.
 */
import { describe, expect, it } from 'vitest';
import { diffLineKind, diffLines, statLines } from '../../src/terminal/diff-lines.js';
import { setupLines } from '../../src/actions/worktree-actions.js';

describe('diff lines', () => {
  it('classifies a unified diff and colours it as git does', () => {
    const patch = ['diff --git a/x b/x', 'index 1..2 100644', '--- a/x', '+++ b/x', '@@ -1 +1 @@', '-old', '+new', ' same', '\\ No newline at end of file', ''].join('\n');
    expect(patch.split('\n').slice(0, -1).map(diffLineKind)).toEqual(['file', 'meta', 'meta', 'meta', 'hunk', 'removed', 'added', 'context', 'note']);
    expect(diffLines(patch, true)[6]).toBe('\x1b[32m+new\x1b[0m');
    expect(diffLines(patch, false)).toEqual(patch.split('\n').slice(0, -1));
  });

  it('makes the controls an agent wrote into a file visible: they cannot act on the terminal', () => {
    const [line] = diffLines('+evil \x1b]52;c;cHduZWQ=\x07 \x9b2J\n', true);
    expect(line).toBe('\x1b[32m+evil ^[]52;c;cHduZWQ=^G \\x9b2J\x1b[0m');
    const stat = statLines([{ path: 'a\x1b[2Jb', status: 'untracked', added: 1, removed: 0 }], false);
    expect(stat).toEqual(['? a^[[2Jb  +1 \u22120', '1 file changed, +1 \u22120']);
  });

  it('--stat: statuses, renames, binary files and a total', () => {
    expect(
      statLines(
        [
          { path: 'src/new.ts', old_path: 'src/old.ts', status: 'renamed', added: 2, removed: 1 },
          { path: 'logo.png', status: 'added', added: null, removed: null },
        ],
        false,
      ),
    ).toEqual(['R src/old.ts \u2192 src/new.ts  +2 \u22121', 'A logo.png                 binary', '2 files changed, +2 \u22121']);
    expect(statLines([], false)).toEqual(['no changes']);
  });
});

describe('a setup\u2019s output in the pane', () => {
  it('keeps colours and text, drops cursor moves, queries and titles; a lone CR keeps the last overwrite', () => {
    expect(setupLines('\x1b[32mok\x1b[0m\n\x1b[6n\x1b]0;title\x07done\nprogress 10%\rprogress 100%\n')).toEqual([
      '\x1b[32mok\x1b[0m\x1b[0m',
      ']0;titledone\x1b[0m',
      'progress 100%\x1b[0m',
      '\x1b[0m',
    ]);
  });
});
