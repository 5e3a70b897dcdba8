/**
 * The real Claude Code inside the real TUI (issue 14 items 4 and 5): Shift+Enter, as a
 * kitty-protocol terminal reports it, puts a new line in Claude's input instead of
 * submitting; and with Claude in a background tab, a finished turn and a permission prompt
 * each send exactly one OSC 9 desktop notification to the TUI's terminal.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { TuiSession } from '../tui/tui-harness.js';
import { AGENTS_DIR, agentEnvironment, agentsInstalled, startFakeModel } from './lab.js';

const CTRL_B = '\x02';
const SHIFT_ENTER = '\x1b[13;2u';
const hasClaude = agentsInstalled() || existsSync(join(AGENTS_DIR, 'node_modules', '.bin', 'claude'));

describe.skipIf(!hasClaude)('claude in the TUI: Shift+Enter and notifications', () => {
  let tui: TuiSession;
  let model: { port: number; stop: () => void; log: string };
  const requests = () => (readFileSync(model.log, 'utf8').match(/POST/g) ?? []).length;

  beforeAll(async () => {
    const scratch = join(AGENTS_DIR, '..', `tui-live-${process.pid}`);
    mkdirSync(scratch, { recursive: true });
    model = await startFakeModel(scratch);
    // The agent's env does not depend on HOME; its files are written into the TUI's HOME below.
    const env = agentEnvironment('claude', scratch, scratch, model.port);
    tui = new TuiSession(140, 40, { ...env, CORRAL_SCRIPTING: '1', PATH: `${join(AGENTS_DIR, 'node_modules', '.bin')}:${process.env.PATH}` });
    const home = join(tui.dir, 'home');
    agentEnvironment('claude', home, home, model.port);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}c`);
    await tui.waitForText('w1:p2');
    await tui.json(['agent', 'start', '--kind', 'claude', '--pane', 'w1:p2', '--timeout', '90000']);
  });
  afterAll(async () => {
    await tui?.close();
    model?.stop();
    rmSync(join(AGENTS_DIR, '..', `tui-live-${process.pid}`), { recursive: true, force: true });
  });

  it('puts a new line in Claude\u2019s input on Shift+Enter instead of submitting', async () => {
    tui.type('first-line');
    await tui.waitForText('first-line');
    tui.type(SHIFT_ENTER);
    tui.type('second-line');
    await tui.waitForText('second-line');
    const lines = tui.lines();
    const first = lines.findIndex((l) => l.includes('first-line'));
    const second = lines.findIndex((l) => l.includes('second-line'));
    // Two lines of one input (the `❯` prompt on the first), nothing sent to the model.
    expect(second, tui.text()).toBe(first + 1);
    expect(lines[first]).toMatch(/❯\s*first-line/);
    expect(lines[second]).not.toContain('❯');
    expect(requests()).toBe(0);
  });

  it('notifies once when the turn finishes in a background tab, and once when it asks permission', async () => {
    // Submit (plain Enter) and look away while it works.
    tui.type('\r');
    tui.type(`${CTRL_B}1`);
    await tui.waitFor((s) => !s.includes('w1:p2'), 'tab 1 in view');
    await tui.until(() => tui.osc9.length === 1, 'a notification for done', 90_000);
    expect(tui.osc9[0]).toContain('claude in w1:p2 is done');
    const sent = await tui.cli(['send', 'w1:p2', 'Please RUNTOOL now', '--submit']);
    expect(sent.code, sent.stderr).toBe(0);
    await tui.until(() => tui.osc9.length === 2, 'a notification for blocked', 90_000);
    expect(tui.osc9[1]).toContain('claude in w1:p2 is blocked');
    // Nothing more while it waits for the answer.
    await new Promise((r) => setTimeout(r, 2000));
    expect(tui.osc9).toHaveLength(2);
    expect(tui.osc777).toHaveLength(2);
  });
});
