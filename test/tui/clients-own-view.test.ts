/**
 * What each attached client has of its own (SPEC §1, issue 12 §3–§4), each client the real
 * `corral` in a real pty read back as a screen: its own tab of a shared workspace (pane focus
 * inside a tab shared), and colours written as its own terminal can show them.
 */
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RawClient, connectUnix } from '../integration/harness.js';
import { closedAfterEach, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';
/** A stand-in Claude, detected as kind claude, switched by its control socket (tui-notify.test.ts). */
const FAKE_DIR = resolve(import.meta.dirname, '../../bench/fixtures/fake-claude');

/** The sidebar row of the claude agent (the sidebar is the first 27 cells). */
function agentRow(tui: TuiSession): string {
  return tui.lines().map((l) => l.slice(0, 27)).find((l) => l.includes('claude')) ?? '';
}

/** `client.list` as a script reads it: client id → `field` of that client. */
async function byClient(tui: TuiSession, field: 'tab_id' | 'colors' | 'active'): Promise<Record<string, unknown>> {
  const rpc = await RawClient.open(tui.socketPath);
  try {
    const { clients } = await rpc.call('client.list');
    return Object.fromEntries(clients.map((c: any) => [c.client_id, c[field]]));
  } finally {
    rpc.socket.destroy();
  }
}

const tabsByClient = (tui: TuiSession) => byClient(tui, 'tab_id');

/** The colour of the first cell of `word` where a line shows it, as the terminal parsed it. */
function colourOf(tui: TuiSession, word: string): { mode: 'rgb' | 'p256' | 'p16' | 'default'; value: number } {
  const buffer = tui.screen.buffer.active;
  for (let y = 0; y < tui.screen.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y)!;
    const x = line.translateToString(true).indexOf(word);
    if (x < 0) continue;
    const cell = line.getCell(x)!;
    const mode = cell.isFgRGB() ? 'rgb' : cell.isFgDefault() ? 'default' : cell.getFgColorMode() === 0x1000000 ? 'p16' : 'p256';
    return { mode, value: cell.getFgColor() };
  }
  throw new Error(`${word} is not on screen:\n${tui.text()}`);
}

describe('each client its own', () => {
  const session = closedAfterEach();

  it('switches tabs of one workspace on each client independently, pane focus inside a tab shared', async () => {
    const first = session(new TuiSession(120, 36));
    await first.waitForText('w1:p1');
    first.type('echo TAB-$((10+1))\r');
    await first.waitForText('TAB-11');
    first.type(`${CTRL_B}c`);
    await first.waitForText('w1:p2');
    first.type('echo TAB-$((20+2))\r');
    await first.waitForText('TAB-22');

    // The second client joins where the session is (w1:t2), then goes to tab 1.
    const second = session(first.attach(120, 36));
    await second.waitForText('TAB-22');
    second.type(`${CTRL_B}1`);
    await second.waitForText('TAB-11');
    expect(await tabsByClient(first)).toEqual({ c1: 'w1:t2', c2: 'w1:t1' });

    // Typing on the first client makes it the active one: it stays on its tab 2 …
    first.type('echo BACK-$((3*3))\r');
    await first.waitForText('BACK-9');
    expect(first.text()).not.toContain('TAB-11');
    // … and the second keeps showing tab 1.
    expect(second.text()).toContain('TAB-11');
    expect(second.text()).not.toContain('TAB-22');
    expect(await tabsByClient(first)).toEqual({ c1: 'w1:t2', c2: 'w1:t1' });

    // Pane focus inside a tab is the tab's: the first client splits tab 2 (w1:p3 focused) …
    first.type(`${CTRL_B}v`);
    await first.waitForText('w1:p3');
    // … and the second, going to tab 2, types into that same pane.
    second.type(`${CTRL_B}2`);
    await second.waitForText('w1:p3');
    second.type('echo IN-P3-$((4+4))\r');
    await second.waitForText('IN-P3-8');
    expect((await first.cli(['read', 'w1:p3'])).stdout).toContain('IN-P3-8');
    // The first client moves the focus to the left pane; the second, doing nothing, follows:
    // what it types next goes there.
    first.type(`${CTRL_B}h`);
    first.type('echo LEFT-$((5+5))\r');
    await second.waitForText('LEFT-10');
    expect((await first.cli(['read', 'w1:p2'])).stdout).toContain('LEFT-10');
    second.type('echo AGAIN-$((6+6))\r');
    await second.waitForText('AGAIN-12');
    expect((await first.cli(['read', 'w1:p2'])).stdout).toContain('AGAIN-12');

    // A focus from the CLI acts for the client used last (the second): it goes to tab 1, the
    // first stays on tab 2.
    await first.json(['tab', 'focus', 'w1:t1']);
    await second.waitFor((s) => s.includes('TAB-11') && !s.includes('AGAIN-12'), 'the second client on tab 1');
    expect(await tabsByClient(first)).toEqual({ c1: 'w1:t2', c2: 'w1:t1' });
    expect(first.text()).toContain('AGAIN-12');
  });

  it('writes a pane’s 24-bit colour as 24-bit, 256-palette or 16-colour, as each client’s terminal shows', async () => {
    // The harness's terminal says TERM=xterm-256color and no COLORTERM: no truecolor.
    const palette = session(new TuiSession(100, 30));
    await palette.waitForText('w1:p1');
    const truecolor = session(new TuiSession(100, 30, { COLORTERM: 'truecolor' }, undefined, { peer: palette, args: ['attach'] }));
    await truecolor.waitForText('w1:p1');
    const sixteen = session(new TuiSession(100, 30, { TERM: 'xterm' }, undefined, { peer: palette, args: ['attach'] }));
    await sixteen.waitForText('w1:p1');

    // The command line shows ORA'NGE'; only the output reads ORANGE.
    palette.type(`printf '\\033[38;2;255;128;0m%s\\033[0m\\n' ORA'NGE'\r`);
    for (const tui of [palette, truecolor, sixteen]) await tui.waitForText(/^.*│ORANGE/m);
    expect(colourOf(truecolor, 'ORANGE')).toEqual({ mode: 'rgb', value: 0xff8000 });
    expect(colourOf(palette, 'ORANGE')).toEqual({ mode: 'p256', value: 208 });
    expect(colourOf(sixteen, 'ORANGE')).toEqual({ mode: 'p16', value: 3 });
    expect(await byClient(palette, 'colors')).toEqual({ c1: 256, c2: 16777216, c3: 16 });
  });

  it('asks each terminal only for what it has, and honours a pane’s requests per client', async () => {
    const xterm = session(new TuiSession(100, 30));
    await xterm.waitForText('w1:p1');
    // A VT220 has no mouse, focus or paste reports, no OSC 52 and no synchronized output.
    const vt = session(new TuiSession(100, 30, { TERM: 'vt220' }, undefined, { peer: xterm, args: ['attach'] }));
    await vt.waitForText('w1:p1');
    expect(xterm.modes).toMatchObject({ mouseTrackingMode: 'drag', sendFocusMode: true, bracketedPasteMode: true });
    expect(vt.modes).toMatchObject({ mouseTrackingMode: 'none', sendFocusMode: false, bracketedPasteMode: false });

    // Frames from now on: synchronized on the xterm, plain on the VT220.
    const sync = new Map<TuiSession, number>();
    const clipboard = new Map<TuiSession, string[]>();
    for (const tui of [xterm, vt]) {
      sync.set(tui, 0);
      clipboard.set(tui, []);
      tui.screen.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
        if (params[0] === 2026) sync.set(tui, sync.get(tui)! + 1);
        return false;
      });
      tui.screen.parser.registerOscHandler(52, (data) => (clipboard.get(tui)!.push(data), true));
    }

    // The pane's app asks for focus reports and prints each it gets, until it reads "xyz".
    xterm.type(`printf '\\033[?1004h'; echo REA''DY; while IFS= read -rsn3 k && [ "$k" != xyz ]; do printf 'GOT:%q\\n' "$k"; done; echo DO''NE\r`);
    await xterm.waitForText(/^.*│READY/m);
    await vt.waitForText(/^.*│READY/m);
    // The xterm's terminal loses and regains focus; the VT220 (which cannot tell) shows the
    // pane all along, so the pane keeps its focus and hears nothing.
    // ("abc" after them is read like a report: once it shows, the two before were handled.)
    xterm.type('\x1b[O\x1b[Iabc');
    await xterm.waitForText(/│GOT:abc/);
    // The VT220 goes to a new tab; the xterm's terminal, still focused, shows the pane.
    vt.type(`${CTRL_B}c`);
    await vt.waitForText('w1:p2');
    // Now the xterm's terminal losing focus leaves the pane without: out; regaining: in. Each
    // report is awaited before the next change: `read -s` turns echo off only while it reads,
    // so a report arriving while bash prints the previous line is echoed (`^[[I`) in front of
    // it and that line no longer starts with GOT (seen at load when both were typed at once).
    xterm.type('\x1b[O');
    await xterm.waitForText(/│GOT:\$'\\E\[O'/);
    xterm.type('\x1b[I');
    await xterm.waitForText(/│GOT:\$'\\E\[I'/);
    xterm.type('xyz');
    await xterm.waitForText(/^.*│DONE/m);
    const got = xterm.lines().flatMap((l) => /│(GOT:\S+)/.exec(l)?.[1] ?? []);
    expect(got).toEqual(['GOT:abc', "GOT:$'\\E[O'", "GOT:$'\\E[I'"]);
    expect(sync.get(xterm)).toBeGreaterThan(0);
    expect(sync.get(vt)).toBe(0);

    // Copying in copy mode: the xterm gets the text by OSC 52, the VT220 only corral's buffer.
    xterm.type(`${CTRL_B}[Vy`);
    await xterm.waitForText(/copied \d+ characters/);
    expect(clipboard.get(xterm)!.length).toBe(1);
    vt.type(`${CTRL_B}[Vy`);
    await vt.waitForText('(no OSC 52 clipboard here)');
    expect(clipboard.get(vt)).toEqual([]);
  });

  it('counts an agent as seen while its pane is in view on any client, whatever tab the other shows', async () => {
    const first = session(new TuiSession(140, 40, { PATH: `${FAKE_DIR}:${process.env.PATH}`, CORRAL_SCRIPTING: '1' }));
    await first.waitForText('w1:p1');
    first.type(`${CTRL_B}c`);
    await first.waitForText('w1:p2');
    const control = join(first.dir, 'claude.ctl');
    await first.json(['agent', 'start', '--kind', 'claude', '--pane', 'w1:p2', '--timeout', '25000', '--', '--control', control, '--spinner-ms', '0', '--work-ms', '600000']);
    const agent = await connectUnix(control);
    const status = async () => (await first.json(['agent', 'get', 'w1:p2'])).result.agent.agent_status;
    try {
      // The second client shows the agent's tab; the first goes back to tab 1.
      const second = session(first.attach(140, 40));
      await second.waitForText('w1:p2 · claude');
      first.type(`${CTRL_B}1`);
      await first.waitFor((s) => !s.includes('w1:p2'), 'tab 1 on the first client');

      agent.write('working\n');
      await second.waitFor(() => agentRow(second).includes('working'), 'the agent working');
      agent.write('idle\n');
      await second.waitFor(() => agentRow(second).includes('idle'), 'idle on the second client');
      // In view on the second client: seen, so idle rather than done, and nobody is notified.
      expect(await status()).toBe('idle');
      expect([first.osc9, second.osc9]).toEqual([[], []]);

      // Out of view on both: the next turn ends done, and both terminals hear of it.
      second.type(`${CTRL_B}1`);
      await second.waitFor((s) => !s.includes('w1:p2 ·'), 'tab 1 on the second client');
      agent.write('working\n');
      await second.waitFor(() => agentRow(second).includes('working'), 'the agent working again');
      agent.write('idle\n');
      await first.until(() => first.osc9.length === 1, 'a notification on the first client');
      await second.until(() => second.osc9.length === 1, 'a notification on the second client');
      expect(await status()).toBe('done');
    } finally {
      agent.destroy();
    }
  });

  it('does not make a client the active one when its terminal only reports losing focus', async () => {
    const big = session(new TuiSession(120, 36));
    await big.waitForText('w1:p1');
    const small = session(big.attach(90, 28));
    await small.waitForText('w1:p1');
    small.type(`${CTRL_B}N`);
    await small.waitForText('w2:p1');
    // An app in the small client's pane that reports the focus reports it gets.
    small.type(`printf '\\033[?1004h'; echo REA''DY; while IFS= read -rsn3 k; do printf 'GOT:%q\\n' "$k"; done\r`);
    await small.waitForText(/^.*│READY/m);
    big.type('echo BIG-$((2+2))\r');
    await big.waitForText('BIG-4');
    expect(await byClient(big, 'active')).toEqual({ c1: true, c2: false });

    // The user leaves the small client's terminal: its pane loses focus (the app hears it) …
    small.type('\x1b[O');
    await small.waitForText(/│GOT:\$'\\E\[O'/);
    // … and the big client stays the active one, its size laying the tabs out.
    expect(await byClient(big, 'active')).toEqual({ c1: true, c2: false });
    // Coming back (focus in) is using it again.
    small.type('\x1b[I');
    await small.waitForText(/│GOT:\$'\\E\[I'/);
    expect(await byClient(big, 'active')).toEqual({ c1: false, c2: true });
  });
});
