/**
 * Copy mode and cell widths in the real TUI, in a real pty, read back through a headless
 * terminal: keys that leave copy mode never reach the pane, search over a 5,000-line
 * scrollback highlights its matches and n moves, a copy goes out as OSC 52 and prefix ]
 * pastes it, the wheel enters copy mode, and an emoji line keeps its columns.
 */
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../integration/harness.js';
import { TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';
const COPY_LABEL = 'copy mode';

/** The pane's own screen, as the server reads it (no TUI chrome in between). */
async function paneText(tui: TuiSession, pane = 'w1:p1'): Promise<string> {
  const result = await tui.cli(['pane', 'read', pane, '--source', 'visible']);
  return result.stdout;
}

/** Waits until a shell command's marker output (not its echoed command line) is on screen. */
async function run(tui: TuiSession, command: string, marker: string): Promise<void> {
  tui.type(`${command}; echo ${marker.slice(0, 3)}''${marker.slice(3)}\r`);
  await tui.waitFor((s) => s.split('\n').some((l) => l.includes(marker) && !l.includes("''")), marker);
}

/** Background palette index of a screen cell (-1: default). Rows here hold only one-cell characters, so string index = column. */
function bgAt(tui: TuiSession, row: number, col: number): number {
  const buffer = tui.screen.buffer.active;
  const cell = buffer.getLine(buffer.viewportY + row)!.getCell(col)!;
  return cell.isBgDefault() ? -1 : cell.getBgColor();
}

/** Starts `cat -v` after a ready marker (so the pane's modes are set when the marker shows). */
async function startCat(tui: TuiSession, setup = ''): Promise<void> {
  tui.type(`${setup}echo CAT''-READY; cat -v\r`);
  await tui.waitForText('CAT-READY');
}

let tui: TuiSession | null = null;
afterEach(async () => {
  await tui?.close();
  tui = null;
});

describe('copy mode in the TUI', () => {
  it('consumes the keys that leave it: after Esc, q and Esc+q the pane (cat -v) got nothing', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    await startCat(tui);
    const leave = async (keys: string) => {
      tui!.type(`${CTRL_B}[`);
      await tui!.waitForText(COPY_LABEL);
      tui!.type(keys);
      await tui!.waitFor((s) => !s.includes(COPY_LABEL), `copy mode to end on ${JSON.stringify(keys)}`);
    };
    await leave('\x1b');
    await leave('q');
    await leave('\x1bq');
    // Keys typed in copy mode are consumed too.
    tui.type(`${CTRL_B}[`);
    await tui.waitForText(COPY_LABEL);
    tui.type('hjkxz');
    tui.type('q');
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end');
    tui.type('END-MARK\r');
    await tui.waitFor((s) => s.split('\n').filter((l) => l.includes('END-MARK')).length >= 2, 'the tty echo and cat -v output');
    const text = await paneText(tui);
    expect(text).not.toContain('^[');
    const lines = text.split('\n').filter((l) => l.includes('END-MARK'));
    expect(lines.map((l) => l.trim())).toEqual(['END-MARK', 'END-MARK']);
    tui.type('\x04');
  });

  it('searches a 5,000-line scrollback, highlights every visible match, and n moves to the next', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    await run(tui, `seq 1 5000 | awk '{ m = $1 % 1000; print "item-" $1 (m == 0 || m == 5 ? " MA" "RK" : "") }'`, 'SEQ-DONE');
    tui.type(`${CTRL_B}[`);
    await tui.waitForText(COPY_LABEL);
    tui.type('?MARK\r');
    // Backward from the bottom: the last of 10 matches, item-5000.
    await tui.waitForText('?MARK 10/10');
    expect(tui.text()).toContain('item-5000 MARK');
    tui.type('n');
    await tui.waitForText('?MARK 9/10');
    tui.type('n');
    await tui.waitForText('?MARK 8/10');
    const screen = tui.text();
    expect(screen).toContain('item-4000 MARK');
    expect(screen).toContain('item-4005 MARK');
    // The current match (item-4000) and the other visible one are both highlighted, differently.
    const lines = tui.lines();
    const r4000 = lines.findIndex((l) => l.includes('item-4000 MARK'));
    const r4005 = lines.findIndex((l) => l.includes('item-4005 MARK'));
    expect(bgAt(tui, r4000, lines[r4000]!.indexOf('MARK'))).toBe(13);
    expect(bgAt(tui, r4005, lines[r4005]!.indexOf('MARK'))).toBe(3);
    // Text that is not a match is not highlighted.
    expect(bgAt(tui, r4005, lines[r4005]!.indexOf('item-4005'))).toBe(-1);
    // N goes back the other way.
    tui.type('N');
    await tui.waitForText('?MARK 9/10');
    tui.type('q');
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end');
  });

  it('copies a selection to the clipboard with OSC 52, and prefix ] pastes it as a bracketed paste', async () => {
    tui = new TuiSession();
    const clipboard: string[] = [];
    tui.screen.parser.registerOscHandler(52, (data) => {
      clipboard.push(data);
      return true;
    });
    await tui.waitForText('w1:p1');
    await run(tui, `printf 'copy-%s\\n' me-please`, 'PRINTED');
    tui.type(`${CTRL_B}[`);
    await tui.waitForText(COPY_LABEL);
    tui.type('?copy-me\r');
    await tui.waitForText('?copy-me 1/1');
    tui.type('v$y');
    await tui.waitFor(() => clipboard.length > 0, 'OSC 52');
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end after y');
    expect(clipboard).toEqual([`c;${Buffer.from('copy-me-please').toString('base64')}`]);
    // An app that asked for bracketed paste gets the markers around the pasted text.
    await startCat(tui, `printf '\\e[?2004h'; `);
    tui.type(`${CTRL_B}]`);
    tui.type('\r');
    await tui.waitForText('^[[200~copy-me-please^[[201~');
    tui.type('\x04');
  });

  it('enters copy mode with the wheel, selects by dragging, and leaves with q', async () => {
    tui = new TuiSession(120, 36);
    const clipboard: string[] = [];
    tui.screen.parser.registerOscHandler(52, (data) => {
      clipboard.push(data);
      return true;
    });
    await tui.waitForText('w1:p1');
    await run(tui, 'seq 1 200', 'SEQ-DONE');
    const row = tui.lines().findIndex((l) => /│200 *│/.test(l));
    const col = tui.lines()[row]!.indexOf('│200') + 2;
    // A shift+drag is the outer terminal's selection: corral neither enters copy mode nor selects.
    tui.type(`\x1b[<4;${col};${row}M\x1b[<36;${col + 2};${row}M\x1b[<4;${col + 2};${row}m`);
    await run(tui, 'true', 'SHIFT-DRAG-IGNORED');
    expect(clipboard).toEqual([]);
    expect(tui.text()).not.toContain(COPY_LABEL);
    const topRow = (s: string): number => Number(/││(\d+) /.exec(s)?.[1] ?? NaN);
    const liveTop = topRow(tui.text());
    expect(liveTop).toBeGreaterThan(100);
    for (let i = 0; i < 10; i++) tui.type(`\x1b[<64;${col};${row + 1}M`);
    await tui.waitForText(COPY_LABEL);
    // Ten notches of three lines: the view's first row shows a number exactly thirty lines up —
    // waiting for the last notch, so the rows read below do not move under the drag.
    await tui.waitFor((s) => topRow(s) === liveTop - 30, 'the view to scroll 30 lines up');
    expect(tui.text()).not.toMatch(/│200 *│/);
    // Drag across a number on screen: press, drag, release (SGR, 1-based).
    const lines = tui.lines();
    const target = lines.findIndex((l) => /│17[0-9] /.test(l));
    // The pane's first column (0-based) is just inside its frame, after the sidebar's border.
    const first = lines[target]!.indexOf('││') + 2;
    const number = lines[target]!.slice(first, first + 3);
    expect(number).toMatch(/^17\d$/);
    const x = first + 1; // SGR columns are 1-based
    tui.type(`\x1b[<0;${x};${target + 1}M\x1b[<32;${x + 1};${target + 1}M\x1b[<32;${x + 2};${target + 1}M\x1b[<0;${x + 2};${target + 1}m`);
    await tui.waitFor(() => clipboard.length > 0, 'OSC 52 after the drag');
    expect(Buffer.from(clipboard[0]!.slice(2), 'base64').toString()).toBe(number);
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end after the copy');
    // The wheel again, then q: back to the live screen, and the q never reached the shell.
    tui.type(`\x1b[<64;${col};${row + 1}M`);
    await tui.waitForText(COPY_LABEL);
    tui.type('q');
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end');
    await run(tui, 'true', 'STILL-ALIVE');
    expect(await paneText(tui)).not.toMatch(/^\$ q/m);
  });
});

describe('copy mode on the alternate screen', () => {
  it('works on what a full-screen app shows', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    tui.type(`printf '\\e[?1049h\\e[HALT-%s\\r\\nALT-%s\\r\\n' FIRST SECOND; cat\r`);
    await tui.waitForText('ALT-SECOND');
    tui.type(`${CTRL_B}[`);
    await tui.waitForText(COPY_LABEL);
    tui.type('?alt-\r');
    await tui.waitForText('?alt- 2/2');
    tui.type('n');
    await tui.waitForText('?alt- 1/2');
    tui.type('y');
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end after y');
    tui.type(`${CTRL_B}]`);
    tui.type('\x04');
    // cat printed the pasted line back, on the alternate screen.
    await tui.waitFor((s) => s.split('ALT-FIRST').length > 2, 'the pasted line');
  });
});

describe('copy mode on a full-screen agent', () => {
  it('gathers the agent\u2019s transcript and searches beyond its screen', async () => {
    tui = new TuiSession(120, 36);
    await tui.waitForText('w1:p1');
    // The fixture agent (alternate screen, wheel-scrolled transcript) under an agent's name, so corral recognises it.
    const bin = join(tui.dir, 'bin');
    mkdirSync(bin, { recursive: true });
    copyFileSync(join(ROOT, 'test', 'fixtures', 'fullscreen-app', 'app.mjs'), join(bin, 'maki'));
    chmodSync(join(bin, 'maki'), 0o755);
    tui.type(`${join(bin, 'maki')} 200\r`);
    await tui.waitForText('fixed footer');
    expect(tui.text()).not.toContain('transcript line 010');
    // Bounded: the agent's detection settles on idle within a second or two.
    for (let i = 0; i < 100; i++) {
      const agent = await tui.cli(['agent', 'get', 'w1:p1']);
      if (agent.code === 0 && JSON.parse(agent.stdout).result.agent.agent_status === 'idle') break;
    }
    tui.type(`${CTRL_B}[`);
    await tui.waitForText(COPY_LABEL);
    await tui.waitForText(/transcript: \d+ lines/, 30_000);
    tui.type('?line 010\r');
    await tui.waitForText('?line 010 1/1');
    expect(tui.text()).toContain('transcript line 010');
    tui.type('q');
    await tui.waitFor((s) => !s.includes(COPY_LABEL), 'copy mode to end');
    // The agent was put back at the bottom of its transcript.
    expect(await paneText(tui)).toContain('transcript line 200');
  });
});

describe('cell widths in the TUI', () => {
  it('shows an emoji two cells wide in a pane, with what follows in its own columns', async () => {
    tui = new TuiSession();
    await tui.waitForText('w1:p1');
    tui.type("printf 'A\\360\\237\\230\\200B|\\n'\r");
    await tui.waitForText('A😀B|');
    const lines = tui.lines();
    const row = lines.findIndex((l) => l.includes('A😀B|'));
    const buffer = tui.screen.buffer.active;
    const line = buffer.getLine(buffer.viewportY + row)!;
    // Find A's cell, then check the emoji spans two cells and B is right after.
    let x = 0;
    while (x < tui.screen.cols && !(line.getCell(x)!.getChars() === 'A' && line.getCell(x + 1)!.getChars() === '😀')) x++;
    expect(line.getCell(x + 1)!.getWidth()).toBe(2);
    expect(line.getCell(x + 3)!.getChars()).toBe('B');
    expect(line.getCell(x + 4)!.getChars()).toBe('|');
  });
});
