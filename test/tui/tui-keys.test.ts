/**
 * Keyboard fidelity (SPEC §12, issue 14 item 4) through the real binary: keys reported by a
 * kitty-protocol outer terminal (`CSI code ; mods u`) reach each pane in the form its app asked
 * for — kitty's to an app that pushed kitty flags (it also gets its `CSI ? u` query
 * answered), xterm's `CSI 27;…~` to one that set modifyOtherKeys 2, legacy bytes to one that
 * asked for nothing (Shift+Enter is Enter, Ctrl+C interrupts) — and the prefix works when it
 * arrives as `CSI 98;5u`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TuiSession } from './tui-harness.js';

const APP = resolve(import.meta.dirname, '../fixtures/apps/key-echo.mjs');
const SHIFT_ENTER = '\x1b[13;2u';
const CTRL_ENTER = '\x1b[13;5u';
const ALT_ENTER = '\x1b[13;3u';
const CTRL_C = '\x1b[99;5u';
const CTRL_B = '\x1b[98;5u';

/** Ctrl+C must reach sleep, not the shell that is about to start it. */
async function sleepInForeground(tui: TuiSession): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const panes = (await tui.json(['pane', 'list'])).result.panes;
    if (panes[0].cmd.startsWith('sleep')) return;
  }
  throw new Error('sleep never reached the foreground');
}

describe('keyboard fidelity', () => {
  let tui: TuiSession | null = null;
  afterEach(async () => {
    await tui?.close();
    tui = null;
  });

  it('asks the outer terminal for modified keys and gives it back its keyboard on quit', async () => {
    tui = new TuiSession(120, 36);
    const enabled: string[] = [];
    tui.screen.parser.registerCsiHandler({ prefix: '>', final: 'u' }, (p) => (enabled.push(`push ${p[0]}`), true));
    tui.screen.parser.registerCsiHandler({ prefix: '<', final: 'u' }, () => (enabled.push('pop'), true));
    tui.screen.parser.registerCsiHandler({ prefix: '>', final: 'm' }, (p) => (enabled.push(`mok ${p.join(',')}`), true));
    await tui.waitForText('w1:p1');
    expect(enabled).toEqual(['push 1', 'mok 4,1']);
    tui.type('\x02d');
    expect(await tui.waitExit()).toBe(0);
    expect(enabled).toEqual(['push 1', 'mok 4,1', 'pop', 'mok 4']);
  });

  it('sends kitty, xterm or legacy bytes as each pane asked, and takes the prefix as CSI u', async () => {
    tui = new TuiSession(140, 40);
    await tui.waitForText('w1:p1');
    tui.type(`node ${APP} kitty\r`);
    await tui.waitForText('READY-kitty');
    // The app's CSI ? u query was answered with the flags it pushed.
    expect(tui.text()).toContain('flags=1');
    tui.type(SHIFT_ENTER);
    await tui.waitForText('got <ESC>[13;2u');
    tui.type(CTRL_C);
    await tui.waitForText('got <ESC>[99;5u');
    // Plain Enter stays legacy at the disambiguate level.
    tui.type('\x1b[13u');
    await tui.waitForText('got <0d>');
    tui.type('q');
    await tui.waitForText('bye');

    tui.type(`node ${APP} mok\r`);
    await tui.waitForText('READY-mok');
    tui.type(CTRL_ENTER);
    await tui.waitForText('got <ESC>[27;5;13~');
    tui.type(SHIFT_ENTER);
    await tui.waitForText('got <ESC>[27;2;13~');
    tui.type('q');
    await tui.waitForText(/bye[\s\S]*bye/);

    tui.type(`node ${APP} plain\r`);
    await tui.waitForText('READY-plain');
    tui.type(ALT_ENTER);
    await tui.waitForText('got <ESC><0d>');
    tui.type(SHIFT_ENTER);
    await tui.waitForText(/got <0d>[\s\S]*got <0d>/);
    // Ctrl+C as CSI u is ^C for a legacy app: the tty turns it into SIGINT... (raw mode: the byte).
    tui.type(CTRL_C);
    await tui.waitForText('got <03>');
    tui.type('q');
    await tui.waitForText(/bye[\s\S]*bye[\s\S]*bye/);

    // The shell (no request) interrupts on Ctrl+C reported as CSI u.
    tui.type('sleep 100\r');
    await sleepInForeground(tui);
    tui.type(CTRL_C);
    tui.type('echo after-$((40+2))\r');
    await tui.waitForText('after-42');

    // The prefix arrives as CSI 98;5u from such a terminal, and still works.
    tui.type(`${CTRL_B}v`);
    await tui.waitForText('w1:p2');
  });

  it('gives an agent that asked for nothing kitty\u2019s Shift+Enter (Claude Code reads it), other apps Enter', async () => {
    // The key echo app under the name `claude`: corral's process detection makes it a claude agent.
    const bin = mkdtempSync(join(tmpdir(), 'corral-fake-agent-'));
    copyFileSync(APP, join(bin, 'claude'));
    chmodSync(join(bin, 'claude'), 0o755);
    writeFileSync(join(bin, 'package.json'), '{ "type": "module" }\n');
    try {
      tui = new TuiSession(140, 40, { PATH: `${bin}:${process.env.PATH}` });
      await tui.waitForText('w1:p1');
      tui.type('claude plain\r');
      await tui.waitForText('READY-plain');
      // Detected as an agent: the sidebar lists it.
      await tui.waitFor(() => tui!.lines().some((l) => l.slice(0, 27).includes('claude')), 'the agent in the sidebar');
      tui.type(SHIFT_ENTER);
      await tui.waitForText('got <ESC>[13;2u');
      tui.type(ALT_ENTER);
      await tui.waitForText('got <ESC><0d>');
      tui.type(CTRL_C);
      await tui.waitForText('got <03>');
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });

  it('forgets an app\u2019s request once its shell is back at the prompt (the app died without undoing it)', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    // Push kitty flags and exit without popping, like a crashed agent.
    tui.type(`printf '\\033[>1u'; echo pushed-$((1+1))\r`);
    await tui.waitForText('pushed-2');
    tui.type('sleep 100\r');
    await sleepInForeground(tui);
    tui.type(CTRL_C);
    tui.type('echo alive-$((2+3))\r');
    await tui.waitForText('alive-5');
  });
});
