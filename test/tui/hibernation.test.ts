/**
 * Idle panes give their terminal back (docs/terminal.md, "Hibernation"), seen by a person at
 * the real TUI: a pane no client shows goes to sleep, the pane on screen never does, and the
 * sleeper comes back exactly as it was — colours and title — and takes typing as before. CORRAL_HIBERNATE_MS shortens the 30 s idle time.
 */
import { describe, expect, it } from 'vitest';
import { closedAfterEach, pollUntil, rpc, TuiSession } from './tui-harness.js';

const close = closedAfterEach();
const IDLE_MS = 400;

interface TerminalStats {
  asleep: number;
  hibernations: number;
  wakes: number;
}

async function terminals(tui: TuiSession): Promise<TerminalStats> {
  return ((await rpc(tui.socketPath, 'system.stats')) as { terminals: TerminalStats }).terminals;
}

describe('hibernation at the TUI', () => {
  it('puts a hidden idle pane to sleep, keeps the shown one awake, and brings the sleeper back as it was', async () => {
    const tui = close(new TuiSession(120, 36, { CORRAL_HIBERNATE_MS: String(IDLE_MS) }));
    await tui.waitForText('w1:p1');
    // Colours and a title: state a replay must give back.
    tui.type(`printf '\\e]0;sleepy\\a\\e[1;31mred-%s\\e[0m\\n' one\r`);
    await tui.waitForText('red-one');
    const before = await rpc(tui.socketPath, 'pane.read', { pane_id: 'w1:p1', source: 'recent', format: 'ansi' });
    expect(before.read.text).toContain('\x1b[');
    const created = await tui.json(['workspace', 'create', '--cwd', tui.env.HOME!]);
    const shownPane: string = created.result.root_pane.pane_id;
    await tui.waitForText(`${shownPane}`);

    // w1:p1 is hidden now: it sleeps once idle. The shown pane never does.
    await pollUntil(() => terminals(tui), (t) => t.asleep >= 1, 'a hidden pane asleep', 30_000);
    const watchUntil = Date.now() + 6 * IDLE_MS;
    while (Date.now() < watchUntil) {
      expect((await terminals(tui)).asleep).toBeLessThanOrEqual(1);
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS / 2));
    }
    tui.type('echo shown-pane-$((6*7))\r');
    await tui.waitForText('shown-pane-42');

    // A read of the sleeper wakes it and sees what was there, colours included.
    const after = await rpc(tui.socketPath, 'pane.read', { pane_id: 'w1:p1', source: 'recent', format: 'ansi' });
    expect(after).toEqual(before);
    expect((await terminals(tui)).wakes).toBeGreaterThanOrEqual(1);

    // Back on screen, it is drawn from the rebuilt terminal, title and all, and takes typing.
    await tui.cli(['workspace', 'focus', 'w1']);
    await tui.waitForText('red-one');
    const { surfaces } = await rpc(tui.socketPath, 'surface.list');
    expect(surfaces.find((s: { pane_id: string }) => s.pane_id === 'w1:p1').title).toBe('sleepy');
    tui.type('echo woke-$((40+2))\r');
    await tui.waitForText('woke-42');
    const text = (await rpc(tui.socketPath, 'pane.read', { pane_id: 'w1:p1', source: 'recent' })).read.text as string;
    expect(text.indexOf('red-one')).toBeGreaterThanOrEqual(0);
    expect(text.indexOf('woke-42')).toBeGreaterThan(text.indexOf('red-one'));
  }, 60_000);
});
