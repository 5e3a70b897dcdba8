/**
 * Peer text in the TUI's chrome (SPEC §8): a workspace named after a directory whose name
 * holds an OSC 52 clipboard write and a clear screen is drawn with its control characters
 * made visible in the sidebar, the tab bar and the status line — and the user's terminal
 * (here a headless one reading the TUI's output) never sees the clipboard write.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';
const HOSTILE = '\x1b]52;c;cHduZWQ=\x07\x1b[2J\x9b2J';

describe('peer text in the TUI chrome', () => {
  let tui: TuiSession | null = null;
  afterEach(async () => {
    await tui?.close();
    tui = null;
  });

  it('a hostile directory name shows as ^[ in the sidebar and never writes the clipboard or clears the screen', async () => {
    tui = new TuiSession(140, 36);
    const clipboardWrites: string[] = [];
    tui.screen.parser.registerOscHandler(52, (data) => {
      clipboardWrites.push(data);
      return true;
    });
    await tui.waitForText('w1:p1');
    const evil = join(tui.env.HOME!, `x${HOSTILE}`);
    mkdirSync(evil);
    // The gate is closed in the TUI's server; creating a workspace in a directory is not gated,
    // and its label defaults to the directory's name.
    const created = await tui.json(['workspace', 'create', '--cwd', evil]);
    expect(created.result.workspace.label).toBe(`x${HOSTILE}`);
    // The sidebar cuts long labels with …: the visible form starts `x^[]52`.
    await tui.waitForText('x^[]52');
    expect(tui.text()).toContain('WORKSPACES');
    // The new workspace has focus, so its (first) tab and its pane frame are drawn too.
    await tui.waitForText('w2:p1');
    expect(clipboardWrites).toEqual([]);
    // Its screen was not cleared: the sidebar's other entry is still there.
    expect(tui.text()).toMatch(/1 .*home/);
  });

  it('a pane name holding ESC, allowed once the user opens the gate, shows as ^[ in the pane frame; closed, it is refused', async () => {
    tui = new TuiSession(140, 36);
    await tui.waitForText('scripting: off');
    const refused = await tui.cli(['pane', 'rename', 'w1:p1', 'n\x1b[2J\x1b]0;pwn\x07']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr).error.code).toBe('scripting_disabled');
    tui.type(`${CTRL_B}s`);
    await tui.waitForText('scripting: on');
    const titles: string[] = [];
    tui.screen.onTitleChange((title) => titles.push(title));
    expect((await tui.cli(['pane', 'rename', 'w1:p1', 'n\x1b[2J\x1b]0;pwn\x07'])).code).toBe(0);
    await tui.waitForText('w1:p1 n^[[2J^[]0;pwn^G');
    expect(titles).not.toContain('pwn');
    expect(tui.text()).toContain('WORKSPACES');
  });
});
