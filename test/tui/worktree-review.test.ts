/**
 * Worktrees in the real TUI (SPEC §15): the sidebar shows a worktree agent's branch and
 * `+added −removed`, updated when the agent settles after a turn; prefix D opens the review
 * view (the agent's turns, then the worktree's files and coloured diff, search as in copy mode),
 * whose keys never reach the agent, and `m` then `y` merges the worktree into the main checkout.
 */
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../integration/harness.js';
import { GIT_TEST_ENV, initRepo } from '../unit/support/git-repo.js';
import { TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';
const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'worktree-agent.mjs');

let tui: TuiSession | null = null;
let bin: string | null = null;
afterEach(async () => {
  await tui?.close();
  tui = null;
  if (bin) rmSync(bin, { recursive: true, force: true });
  bin = null;
});

/** Foreground palette index of the first cell of the screen row holding `text` (-1: default). */
function fgOfRow(session: TuiSession, text: string): number {
  const buffer = session.screen.buffer.active;
  for (let y = 0; y < session.screen.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y)!;
    const at = line.translateToString().indexOf(text);
    if (at >= 0) {
      const cell = line.getCell(at)!;
      return cell.isFgDefault() ? -1 : cell.getFgColor();
    }
  }
  return -2;
}

describe('worktrees in the TUI', () => {
  it('sidebar branch and +added −removed; prefix D reviews; m y merges', async () => {
    // The stand-in as `claude`, first on the server's (and so every pane's) PATH.
    bin = mkdtempSync(join(tmpdir(), 'corral-tui-bin-'));
    symlinkSync(AGENT, join(bin, 'claude'));
    tui = new TuiSession(140, 40, { ...GIT_TEST_ENV, CORRAL_SCRIPTING: '1', PATH: `${bin}:${process.env.PATH}` });
    await tui.waitForText('w1:p1');
    const repo = join(tui.env.HOME!, 'repo');
    initRepo(repo, { 'shared.txt': 'base line\n' });

    const pane = (await tui.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id as string;
    const started = await tui.cli(['agent', 'start', 'alpha', '--kind', 'claude', '--pane', pane, '--worktree']);
    expect(started.code, started.stderr).toBe(0);
    const worktree = JSON.parse(started.stdout).result.worktree.path as string;
    await tui.waitForText('\u2387 corral/alpha +0 \u22120');

    writeFileSync(join(worktree, 'shared.txt'), 'alpha line\n');
    // A turn ends (hooks prompt_submit → stop): the count is taken again from that event.
    expect((await tui.cli(['agent', 'prompt', 'alpha', 'EDIT notes.md hello', '--wait', '--timeout', '20000'])).code).toBe(0);
    await tui.waitForText('\u2387 corral/alpha +2 \u22121');

    tui.type(`${CTRL_B}D`);
    // The agent's one turn comes first (test/tui/checkpoint-review.test.ts), then the worktree.
    await tui.waitForText('review alpha ([ ] turn, r rewind, m merge, q leave)');
    await tui.waitForText('> #1 turn 1');
    await tui.waitForText('M shared.txt');
    await tui.waitForText('? notes.md');
    tui.type('G');
    await tui.waitForText('+alpha line');
    // git's colours: green added, red removed.
    expect(fgOfRow(tui, '+alpha line')).toBe(2);
    expect(fgOfRow(tui, '-base line')).toBe(1);
    tui.type('/hello\r');
    await tui.waitForText(/\[\d+\/\d+\]/);
    tui.type('q');
    await tui.waitFor((s) => !s.includes('review alpha'), 'the review to close');
    // Nothing typed in the review reached the agent's input line.
    const agentScreen = (await tui.cli(['pane', 'read', pane, '--source', 'visible'])).stdout;
    expect(agentScreen).toMatch(/^> ?$/m);

    tui.type(`${CTRL_B}D`);
    await tui.waitForText('review alpha');
    tui.type('m');
    await tui.waitForText('Merge worktree alpha into the main checkout');
    tui.type('y');
    await tui.waitForText('corral/alpha merged into main');
    expect(readFileSync(join(repo, 'shared.txt'), 'utf8')).toBe('alpha line\n');
    expect(readFileSync(join(repo, 'notes.md'), 'utf8')).toBe('hello\n');
  });
});
