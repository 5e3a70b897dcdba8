/**
 * Living in the TUI (SPEC §12, issue 14 items 3 and 6), through the real binary in a real
 * pty read back as a screen: resize by keys (with the prefix-less repeat) and by dragging a
 * border, rename tab and workspace, y/n before closing a busy pane (and the answer keys never
 * reach the pane), last/next pane, the configured prefix in the status line, messages that
 * fade, a typo under [keys] reported with a suggestion, action ids in the help.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';

/** Polls `pane list` until `predicate` holds (the layout reaches the ptys through the core). */
async function panesWhen(tui: TuiSession, predicate: (panes: any[]) => boolean, what: string): Promise<any[]> {
  let panes: any[] = [];
  for (let i = 0; i < 50; i++) {
    panes = (await tui.json(['pane', 'list'])).result.panes;
    if (predicate(panes)) return panes;
  }
  throw new Error(`${what}: ${JSON.stringify(panes.map((p) => [p.pane_id, p.cols, p.rows, p.focused]))}`);
}

const cols = (panes: any[], id: string): number => panes.find((p) => p.pane_id === id).cols;
const rows = (panes: any[], id: string): number => panes.find((p) => p.pane_id === id).rows;
const focusedId = (panes: any[]): string => panes.find((p) => p.focused).pane_id;

describe('living in the TUI', () => {
  let tui: TuiSession | null = null;
  afterEach(async () => {
    await tui?.close();
    tui = null;
  });

  it('resizes the focused pane with prefix H J K L, repeating without the prefix for 500 ms', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    const start = await panesWhen(tui, (p) => p.length === 2, 'two panes');
    const left = cols(start, 'w1:p1');
    // w1:p2 (right) has focus: H moves its left border left, growing it by 2 columns; within
    // the repeat window (typed at once, so a slow machine cannot let it lapse) H alone
    // resizes again, and is not typed into the shell.
    tui.type(`${CTRL_B}HHH`);
    const thrice = await panesWhen(tui, (p) => cols(p, 'w1:p1') === left - 6, 'three resize steps');
    expect(cols(thrice, 'w1:p2')).toBe(cols(start, 'w1:p2') + 6);
    // Once the window has passed, H is text for the pane again.
    await new Promise((resolve) => setTimeout(resolve, 700));
    tui.type('echo H-typed\r');
    await tui.waitForText('H-typed');
    expect(cols((await tui.json(['pane', 'list'])).result.panes, 'w1:p1')).toBe(left - 6);
    // Vertical: split w1:p2 down, then K moves the border between them up.
    tui.type(`${CTRL_B}-`);
    await tui.waitForText('w1:p3');
    const split = await panesWhen(tui, (p) => p.length === 3, 'three panes');
    tui.type(`${CTRL_B}K`);
    const up = await panesWhen(tui, (p) => rows(p, 'w1:p2') === rows(split, 'w1:p2') - 1, 'a vertical step');
    expect(rows(up, 'w1:p3')).toBe(rows(split, 'w1:p3') + 1);
  });

  it('moves a border by dragging it with the mouse', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    const start = await panesWhen(tui, (p) => p.length === 2, 'two panes');
    // The frames' top row: `┐┌` is the border between the two panes (two cells wide).
    const top = tui.lines()[1]!;
    const border = top.indexOf('┐┌');
    expect(border).toBeGreaterThan(28);
    tui.mouse(0, border + 1, 10);
    tui.mouse(32, border - 4, 10);
    tui.mouse(32, border - 9, 10);
    tui.mouse(0, border - 9, 10, 'm');
    const after = await panesWhen(tui, (p) => cols(p, 'w1:p1') === cols(start, 'w1:p1') - 10, 'the drag to move the border');
    expect(cols(after, 'w1:p2')).toBe(cols(start, 'w1:p2') + 10);
    await tui.waitFor((s) => s.split('\n')[1]!.indexOf('┐┌') === border - 10, 'the frames redrawn at the new border');
    // The press grabbed the border: focus did not move to the pane under it.
    expect(focusedId(after)).toBe('w1:p2');
    // A release ends the drag: further motion reports move nothing.
    tui.mouse(32, border - 20, 10);
    tui.type('echo still\r');
    await tui.waitForText('still');
    expect(cols((await tui.json(['pane', 'list'])).result.panes, 'w1:p1')).toBe(cols(after, 'w1:p1'));
  });

  it('renames the tab with prefix , and the workspace with prefix $', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B},`);
    await tui.waitForText('Rename tab w1:t1');
    tui.type('\x15build\r');
    await tui.waitFor((s) => !s.includes('Rename tab'), 'the prompt to close');
    const tabs = (await tui.json(['tab', 'list'])).result.tabs;
    expect(tabs[0].label).toBe('build');
    await tui.waitForText('build');
    tui.type(`${CTRL_B}$`);
    await tui.waitForText('Rename workspace w1');
    tui.type('\x15proj-x\r');
    await tui.waitFor((s) => !s.includes('Rename workspace') && s.includes('proj-x'), 'the sidebar to show the new name');
    expect((await tui.json(['workspace', 'list'])).result.workspaces[0].label).toBe('proj-x');
    // Esc cancels and keeps the label.
    tui.type(`${CTRL_B}$`);
    await tui.waitForText('Rename workspace w1');
    tui.type('\x15other\x1b');
    await tui.waitFor((s) => !s.includes('Rename workspace'), 'the prompt to close');
    expect((await tui.json(['workspace', 'list'])).result.workspaces[0].label).toBe('proj-x');
  });

  it('asks y/n before closing a pane running a program; the answer never reaches the pane', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    tui.type('cat -v\r');
    await panesWhen(tui, (p) => p.find((x: any) => x.pane_id === 'w1:p2').cmd.startsWith('cat'), 'cat in the foreground');
    tui.type(`${CTRL_B}x`);
    await tui.waitForText(/Close pane w1:p2\? cat is running in it/);
    // Esc says no, and is consumed: cat -v would print ^[ for it.
    tui.type('\x1b');
    await tui.waitFor((s) => !s.includes('Close pane'), 'the question to close');
    tui.type(`${CTRL_B}x`);
    await tui.waitForText('Close pane w1:p2?');
    tui.type('n');
    await tui.waitFor((s) => !s.includes('Close pane'), 'the question to close');
    tui.type('after-no\r');
    await tui.waitForText('after-no');
    expect(tui.text()).not.toContain('^[');
    expect(tui.text()).not.toMatch(/^.*│n *│/m);
    expect((await tui.json(['pane', 'list'])).result.panes).toHaveLength(2);
    tui.type(`${CTRL_B}x`);
    await tui.waitForText('Close pane w1:p2?');
    tui.type('y');
    await tui.waitFor((s) => !s.includes('w1:p2'), 'w1:p2 to close');
    expect((await tui.json(['pane', 'list'])).result.panes.map((p: any) => p.pane_id)).toEqual(['w1:p1']);
    // A shell at its prompt closes without a question.
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p3');
    tui.type(`${CTRL_B}x`);
    await tui.waitFor((s) => !s.includes('w1:p3'), 'w1:p3 to close at once');
  });

  it('goes to the last pane with prefix ; and the next with prefix o', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    tui.type(`${CTRL_B}-`);
    await tui.waitForText('w1:p3');
    await panesWhen(tui, (p) => focusedId(p) === 'w1:p3', 'w1:p3 focused');
    tui.type(`${CTRL_B};`);
    await panesWhen(tui, (p) => focusedId(p) === 'w1:p2', 'last pane: w1:p2');
    tui.type(`${CTRL_B};`);
    await panesWhen(tui, (p) => focusedId(p) === 'w1:p3', 'last pane again: w1:p3');
    tui.type(`${CTRL_B}o`);
    await panesWhen(tui, (p) => focusedId(p) === 'w1:p1', 'next pane wraps to w1:p1');
    tui.type(`${CTRL_B}o`);
    await panesWhen(tui, (p) => focusedId(p) === 'w1:p2', 'next pane: w1:p2');
  });

  it('shows the configured prefix, fades messages after 5 s, and lists action ids in the help', async () => {
    tui = new TuiSession(120, 36, {}, '[keys]\nprefix = "ctrl+a"\n');
    await tui.waitForText('w1:p1');
    const status = () => tui!.lines()[35]!;
    expect(status()).toContain('ctrl+a ? help');
    expect(status()).not.toContain('ctrl+b');
    const typed = Date.now();
    tui.type('\x01Q');
    await tui.waitForText('no command on "Q"');
    await tui.waitFor((s) => !s.includes('no command on'), 'the message to fade', 12_000);
    // The fade timer starts when the key is handled, after it was typed; slack above for a loaded machine.
    const lasted = Date.now() - typed;
    expect(lasted).toBeGreaterThanOrEqual(5000);
    expect(lasted).toBeLessThan(10_000);
    tui.type('\x01?');
    await tui.waitForText('split_right');
    expect(tui.text()).toContain('resize_left');
    expect(tui.text()).toMatch(/v %\s+split_right\s+Split the pane/);
    expect(tui.text()).toMatch(/1…9\s+select_tab/);
  });

  it('reports a misspelt [keys] action with a suggestion', async () => {
    tui = new TuiSession(160, 36, {}, '[keys]\nsplit_rigth = "|"\n');
    await tui.waitForText('w1:p1');
    await tui.waitForText('unknown key "keys.split_rigth" (did you mean "keys.split_right"?)');
  });
});
