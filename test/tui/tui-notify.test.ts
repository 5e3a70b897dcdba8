/**
 * Notifications (SPEC §12, issue 14 item 5) through the real binary: a stand-in Claude
 * (bench/fixtures/fake-claude, detected as kind claude, switched by its control socket) in a
 * background tab finishes and then asks for permission; the TUI's terminal gets exactly one
 * OSC 9 (and one OSC 777 and a bell) for each, `[notify] command` gets each event as JSON,
 * the sidebar marks the agent until its pane is looked at, nothing is sent for the pane in
 * view or for a muted pane, and quitting with the agent running asks first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { TuiSession } from './tui-harness.js';
import { connectUnix } from '../integration/harness.js';

const CTRL_B = '\x02';
const FAKE_DIR = resolve(import.meta.dirname, '../../bench/fixtures/fake-claude');

/** The sidebar row of the claude agent (the sidebar is the first 27 cells). */
function agentRow(tui: TuiSession): string {
  return tui.lines().map((l) => l.slice(0, 27)).find((l) => l.includes('claude')) ?? '';
}

describe('notifications', () => {
  let tui: TuiSession | null = null;
  afterEach(async () => {
    await tui?.close();
    tui = null;
  });

  it('sends one OSC 9 each for done and blocked in a background tab, never for the pane in view or a muted one', async () => {
    const env = { PATH: `${FAKE_DIR}:${process.env.PATH}`, CORRAL_SCRIPTING: '1' };
    const logDir = mkdtempSync(join(tmpdir(), 'corral-notify-'));
    const log = join(logDir, 'notify.jsonl');
    tui = new TuiSession(140, 40, env, `[notify]\ncommand = "cat >> '${log}'"\n`);
    await tui.waitForText('w1:p1');
    tui.type(`${CTRL_B}c`);
    await tui.waitForText('w1:p2');
    const control = join(tui.dir, 'claude.ctl');
    await tui.json(['agent', 'start', '--kind', 'claude', '--pane', 'w1:p2', '--timeout', '25000', '--', '--control', control, '--spinner-ms', '0', '--work-ms', '600000']);
    const agent = await connectUnix(control);
    try {
      // Back to tab 1: the agent's pane is out of view.
      tui.type(`${CTRL_B}1`);
      await tui.waitFor((s) => !s.includes('w1:p2'), 'tab 1 in view');

      agent.write('working\n');
      await tui.waitFor(() => agentRow(tui!).includes('working'), 'the agent working');
      agent.write('idle\n');
      await tui.until(() => tui!.osc9.length === 1, 'a notification for done');
      expect(tui.osc9[0]).toMatch(/^corral: claude done: claude in w1:p2 is done$/);
      expect(tui.osc777[0]).toBe('notify;corral: claude done;claude in w1:p2 is done');
      expect(tui.bells).toBe(1);
      await tui.waitFor(() => agentRow(tui!).startsWith('*'), 'the sidebar mark');

      // A burst of flicker ending in blocked notifies once.
      agent.write('working\nblocked\nworking\nblocked\n');
      await tui.until(() => tui!.osc9.length === 2, 'a notification for blocked');
      expect(tui.osc9[1]).toContain('claude in w1:p2 is blocked');

      await tui.until(() => existsSync(log) && readFileSync(log, 'utf8').trim().split('\n').length === 2, 'the command to run twice');
      const events = readFileSync(log, 'utf8').trim().split('\n').map((line) => JSON.parse(line));
      expect(events.map((e) => e.agent_status)).toEqual(['done', 'blocked']);
      expect(events[0]).toMatchObject({ type: 'notification', pane_id: 'w1:p2', tool: 'claude', previous_status: 'working' });

      // Looking at the pane clears the mark; a turn finishing in view does not notify.
      tui.type(`${CTRL_B}2`);
      await tui.waitForText('w1:p2');
      await tui.waitFor(() => !agentRow(tui!).startsWith('*'), 'the mark to clear');
      agent.write('working\n');
      await tui.waitFor(() => agentRow(tui!).includes('working'), 'working in view');
      agent.write('idle\n');
      await tui.waitFor(() => agentRow(tui!).includes('idle'), 'idle (seen) in view');

      // Muted: a turn finishing out of view does not notify either.
      tui.type(`${CTRL_B}m`);
      await tui.waitForText('notifications from w1:p2 muted');
      expect(tui.text()).toMatch(/w1:p2 · claude \w+ · muted/);
      tui.type(`${CTRL_B}1`);
      await tui.waitFor((s) => !s.includes('w1:p2'), 'tab 1 in view');
      agent.write('working\n');
      await tui.waitFor(() => agentRow(tui!).includes('working'), 'working out of view');
      agent.write('idle\n');
      await tui.waitFor(() => agentRow(tui!).includes('done'), 'done out of view');
      // Longer than the settle time a notification waits for.
      await new Promise((r) => setTimeout(r, 1000));
      expect(tui.osc9).toHaveLength(2);
      expect(tui.osc777).toHaveLength(2);
      expect(tui.bells).toBe(2);

      // Detaching ends nothing, so it asks nothing: the agent keeps running in the server.
      tui.type(`${CTRL_B}d`);
      expect(await tui.waitExit()).toBe(0);
      expect((await tui.json(['agent', 'list'])).result.agents).toHaveLength(1);
    } finally {
      agent.destroy();
      rmSync(logDir, { recursive: true, force: true });
    }
  }, 90_000);
});
