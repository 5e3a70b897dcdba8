/**
 * The real `corral` TUI in a real pty, read back as a screen: start, type, split, close,
 * drive it from the CLI, resize, and detach with the terminal restored.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';

describe('the TUI', () => {
  let tui: TuiSession | null = null;
  afterEach(async () => {
    await tui?.close();
    tui = null;
  });

  it('starts with one workspace, runs a command typed into the pane, and shows its output', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    expect(tui.isAlternateScreen).toBe(true);
    expect(tui.text()).toContain('WORKSPACES');
    tui.type('echo $((6*7))-typed\r');
    await tui.waitForText('42-typed');
    // The echo sits inside the pane's frame (right of the sidebar and its border).
    const line = tui.lines().find((l) => l.includes('42-typed'))!;
    expect(line.indexOf('42-typed')).toBeGreaterThan(28);
  });

  it('splits with ctrl+b v, closes with ctrl+b x, and shows a split made from the CLI', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    const panes = await tui.json(['pane', 'list']);
    expect(panes.result.panes).toHaveLength(2);
    // The new pane has focus: what we type lands there.
    tui.type('echo in-$CORRAL_PANE_ID\r');
    await tui.waitForText('in-w1:p2');

    await tui.json(['pane', 'split', 'w1:p1', '--direction', 'down', '--no-focus']);
    await tui.waitForText('w1:p3');

    tui.type(`${CTRL_B}x`);
    await tui.waitFor((s) => !s.includes('w1:p2'), 'w1:p2 to close');
    const after = await tui.json(['pane', 'list']);
    expect(after.result.panes.map((p: any) => p.pane_id).sort()).toEqual(['w1:p1', 'w1:p3']);
  });

  it('resizes every pane when the terminal is resized', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    const before = (await tui.json(['pane', 'list'])).result.panes;
    tui.resize(160, 44);
    await tui.waitFor(() => true, 'noop');
    let after = before;
    // The resize reaches the ptys through SIGWINCH and the core; poll the API (bounded).
    for (let i = 0; i < 50 && after[0].cols === before[0].cols; i++) after = (await tui.json(['pane', 'list'])).result.panes;
    expect(after[0].cols).toBeGreaterThan(before[0].cols);
    expect(after[0].rows).toBeGreaterThan(before[0].rows);
    tui.type('stty size\r');
    await tui.waitForText(`${after[1].rows} ${after[1].cols}`);
  });

  it('focuses a pane on click and scrolls its scrollback with the wheel', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    tui.type('seq 1 200\r');
    await tui.waitForText(/^.*│200 *│/m);
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
    expect((await tui.json(['pane', 'get', 'w1:p2'])).result.pane.focused).toBe(true);
    // Click inside w1:p1's frame (left half of the main area), SGR encoding, 1-based.
    const row = tui.lines().findIndex((l) => l.includes('│200'));
    tui.type(`\x1b[<0;40;${row + 1}M\x1b[<0;40;${row + 1}m`);
    let focused = false;
    for (let i = 0; i < 50 && !focused; i++) focused = (await tui.json(['pane', 'get', 'w1:p1'])).result.pane.focused;
    expect(focused).toBe(true);
    // Wheel up over w1:p1: copy mode shows its scrollback, with a position indicator.
    for (let i = 0; i < 10; i++) tui.type(`\x1b[<64;40;${row + 1}M`);
    await tui.waitForText('copy mode');
    await tui.waitFor((s) => !/│200 *│/.test(s), 'the scrollback to show');
    tui.type('q');
    await tui.waitFor((s) => !s.includes('copy mode'), 'q to return to the live screen');
  });

  it('renames the focused pane from the rename prompt', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}r`);
    await tui.waitForText('Rename');
    tui.type('builder\r');
    await tui.waitForText('w1:p1 builder');
    expect((await tui.json(['pane', 'get', 'w1:p1'])).result.pane.name).toBe('builder');
    // A refused name is shown in the status line; the TUI carries on.
    tui.type(`${CTRL_B}r`);
    await tui.waitForText('Rename');
    tui.type('\x15' + '42\r');
    await tui.waitForText('would read as a selector');
    tui.type('echo still-alive-$((1+1))\r');
    await tui.waitForText('still-alive-2');
  });

  it('refuses to nest inside one of its own panes, saying how to', async () => {
    tui = new TuiSession(160, 36);
    await tui.waitForText('w1:p1');
    tui.type('corral; echo NESTED-EXIT-$?\r');
    await tui.waitForText(/NESTED-EXIT-1/);
    expect(tui.text().replace(/[│\s]+/g, ' ')).toContain('to run a nested corral');
    expect((await tui.json(['pane', 'list'])).result.panes).toHaveLength(1);
  });

  it('opens the help overlay generated from the keybindings', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}?`);
    // Keys, the action id ([keys] name), the description (cut to fit at 120×36).
    await tui.waitForText(/v %\s+split_right\s+Split the pane/);
    tui.type('q');
    await tui.waitFor((s) => !s.includes('split_right'), 'help to close');
  });

  it('detaches with ctrl+b d and restores the terminal', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}d`);
    expect(await tui.waitExit()).toBe(0);
    tui.expectTerminalRestored();
    const cursorHidden = (tui.screen as any)._core.coreService.isCursorHidden;
    expect(cursorHidden).toBe(false);
  });

  it('restores the terminal on SIGTERM', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    (tui as any).proc.kill('SIGTERM');
    await tui.waitExit();
    expect(tui.isAlternateScreen).toBe(false);
    expect(tui.modes.mouseTrackingMode).toBe('none');
  });
});
