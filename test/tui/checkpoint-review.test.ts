/**
 * An agent's turns in the real TUI's review view (prefix D, SPEC §20): the checkpoints newest
 * first with their prompts and counts, the selected turn's coloured diff, `]` / `[` to move to
 * another turn, and `r` then `y` rewinding the files to the selected checkpoint — the files on
 * disk are back, and the rewind's own checkpoint is listed; while the agent works a rewind is
 * refused with the reason. The stand-in agent edits files on each prompt
 * (test/fixtures/programs/edit-agent.mjs).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../integration/harness.js';
import { GIT_TEST_ENV, initRepo } from '../unit/support/git-repo.js';
import { closedAfterEach, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';
const AGENT = join(ROOT, 'test', 'fixtures', 'programs', 'edit-agent.mjs');
const closing = closedAfterEach();

const read = (repo: string, file: string): string | null => (existsSync(join(repo, file)) ? readFileSync(join(repo, file), 'utf8') : null);

/** The screen row holding `text`, or '' (for what else that line says). */
function rowWith(tui: TuiSession, text: string): string {
  return tui.lines().find((line) => line.includes(text)) ?? '';
}

describe('an agent\u2019s turns in the review view', () => {
  it('lists the turns, shows a turn\u2019s diff, moves to another and rewinds after y', async () => {
    const tui = closing(new TuiSession(140, 40, { ...GIT_TEST_ENV, CORRAL_SCRIPTING: '1' }));
    await tui.waitForText('w1:p1');
    const repo = join(tui.env.HOME!, 'repo');
    initRepo(repo, { 'a.txt': 'a original\n', 'b.txt': 'b original\n' });

    const pane = (await tui.json(['workspace', 'create', '--cwd', repo])).result.root_pane.pane_id as string;
    expect((await tui.cli(['agent', 'start', 'ed', '--kind', 'generic', '--pane', pane, '--', 'node', AGENT])).code).toBe(0);
    const prompt = async (text: string) => expect((await tui.cli(['agent', 'prompt', 'ed', text, '--wait', '--timeout', '20000'])).code).toBe(0);
    await prompt('WRITE a.txt a from turn one ;; DELETE b.txt');
    await prompt('WRITE c.txt c from turn two');

    tui.type(`${CTRL_B}D`);
    await tui.waitForText('review ed ([ ] turn, r rewind, q leave)');
    // Newest first, the newest selected; its diff (the current turn: against the files now) below.
    await tui.waitForText('> #2 turn 2');
    expect(rowWith(tui, '#2 turn 2')).toMatch(/> #2 turn 2 {2}\d\d:\d\d {2}1 file \+1 −0 {3}"WRITE c\.txt c from turn two"/);
    expect(rowWith(tui, '#1 turn 1')).toMatch(/ {2}#1 turn 1 {2}\d\d:\d\d {2}2 files \+1 −2 {2}"WRITE a\.txt a from turn one ;; DELETE b\.txt"/);
    await tui.waitForText('turn 2 (#2 → the files now)');
    await tui.waitForText('+c from turn two');
    expect(tui.text()).not.toContain('+a from turn one');

    tui.type(']');
    await tui.waitForText('> #1 turn 1');
    await tui.waitForText('turn 1 (#1 → #2)');
    await tui.waitForText('+a from turn one');
    expect(tui.text()).toContain('-b original');
    expect(tui.text()).not.toContain('+c from turn two');

    tui.type('r');
    await tui.waitForText('Rewind ed to #1, before turn 1 "WRITE a.txt a from turn one ;; …"? The files now are checkpointed first, so it can be undone');
    tui.type('y');
    await tui.waitForText('3 files put back as #1 had them; undo: checkpoint 3');
    expect(read(repo, 'a.txt')).toBe('a original\n');
    expect(read(repo, 'b.txt')).toBe('b original\n');
    expect(read(repo, 'c.txt')).toBeNull();
    // The view is read again: the rewind's checkpoint on top, the selection kept on #1.
    await tui.waitForText(/#3 rewind +\d\d:\d\d {2}3 files \+2 −2 {2}the files before a rewind/);
    expect(rowWith(tui, '#1 turn 1')).toContain('> #1');

    // While the agent works, a rewind is refused and says why; the files stay as they are.
    expect((await tui.cli(['agent', 'prompt', 'ed', 'SLOW 2500', '--wait', '--until', 'working', '--timeout', '10000'])).code).toBe(0);
    tui.type('r');
    await tui.waitForText('Rewind ed to #1');
    tui.type('y');
    await tui.waitForText('is working: rewind it once it is idle or done');
    expect(read(repo, 'a.txt')).toBe('a original\n');

    tui.type('q');
    await tui.waitFor((s) => !s.includes('review ed'), 'the review to close');
  }, 40_000);
});
