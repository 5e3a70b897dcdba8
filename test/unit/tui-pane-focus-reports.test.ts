/**
 * Focus reports to the panes' apps (src/tui/pane-focus-reports.ts): the real core and
 * headless terminals, the pty children scripted (fakePanes) so what each app receives is read
 * back exactly.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CorralCore } from '../../src/core/corral-core.js';
import { PaneFocusReports } from '../../src/tui/pane-focus-reports.js';
import { unitCore } from './support/unit-core.js';

const cores: CorralCore[] = [];
afterEach(async () => {
  for (const core of cores.splice(0)) await core.shutdown();
});

function makeCore() {
  const made = unitCore();
  cores.push(made.core);
  return made;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('PaneFocusReports', () => {
  it('tells an app that asked (DECSET 1004) each time its pane gains or loses focus, and no other', async () => {
    const { core, children } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    const [asks, quiet] = [core.model.pane('w1:p1'), core.model.pane('w1:p2')];
    children[0]!.output('\x1b[?1004h');
    const reports = new PaneFocusReports(core);

    reports.update(new Set([asks.surfaceId]));
    reports.update(new Set([asks.surfaceId]));
    await settle();
    expect(children[0]!.writes).toEqual(['\x1b[I']);

    // Focus moves to the other pane (a key, a click, another client): out for the first; the
    // second never asked, so it hears nothing.
    reports.update(new Set([quiet.surfaceId]));
    // Both focused (two clients on two panes), then neither (every terminal lost focus).
    reports.update(new Set([quiet.surfaceId, asks.surfaceId]));
    reports.update(new Set());
    await settle();
    expect(children[0]!.writes).toEqual(['\x1b[I', '\x1b[O', '\x1b[I', '\x1b[O']);
    expect(children[1]!.writes).toEqual([]);

    // The app turns the reports off: nothing more.
    children[0]!.output('\x1b[?1004l');
    reports.update(new Set([asks.surfaceId]));
    await settle();
    expect(children[0]!.writes).toHaveLength(4);
  });

  it('passes over a pane that closed in between', async () => {
    const { core, children } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    const gone = core.model.pane('w1:p2');
    children[1]!.output('\x1b[?1004h');
    const reports = new PaneFocusReports(core);
    reports.update(new Set([gone.surfaceId]));
    core.closePane(gone.id);
    expect(() => reports.update(new Set())).not.toThrow();
  });
});
