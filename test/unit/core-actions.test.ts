/**
 * CorralCore's actions as a unit: the real core, session model, PaneHost and headless
 * terminal, with the pty child scripted (fakePanes), time moved by hand (FakeClock) and an
 * empty /proc (FakeProcessTable). What each action does to the panes, which events it
 * emits in which order, and the errors for targets that do not exist.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CorralCore, HEADLESS_VIEWPORT } from '../../src/core/corral-core.js';
import { defaultConfig } from '../../src/config/schema.js';
import { CorralError, type CorralEvent } from '../../src/contract/protocol.js';
import { leaves } from '../../src/session/layout.js';
import { unitCore } from './support/unit-core.js';

const cores: CorralCore[] = [];

afterEach(async () => {
  for (const core of cores.splice(0)) await core.shutdown();
});

function makeCore(config: Partial<ReturnType<typeof defaultConfig>> = {}) {
  const made = unitCore(config);
  const core = made.core;
  cores.push(core);
  const events: CorralEvent[] = [];
  core.listen((event) => events.push(event));
  /** The events since the last call, as `type target` strings. */
  const take = (): string[] => events.splice(0).map(describeEvent);
  return { ...made, events, take };
}

function describeEvent(event: CorralEvent): string {
  const e = event as unknown as Record<string, unknown>;
  return `${event.type} ${e.pane_id ?? e.tab ?? e.workspace ?? ''}`.trim();
}

function codeOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof CorralError) return error.code;
    throw error;
  }
  throw new Error('no error');
}

describe('CorralCore: creating panes', () => {
  it('a workspace starts one shell sized to the whole viewport, in its cwd, with the pane in its environment', () => {
    const { core, specs, take } = makeCore();
    const created = core.createWorkspace({ cwd: '/srv/project', label: 'api' });
    expect(created.pane.id).toBe('w1:p1');
    expect(specs).toHaveLength(1);
    expect(specs[0]).toMatchObject({ shell: '/bin/sh', cwd: '/srv/project', cols: HEADLESS_VIEWPORT.cols, rows: HEADLESS_VIEWPORT.rows });
    expect(specs[0]!.env).toMatchObject({ CORRAL_PANE_ID: 'w1:p1', CORRAL_WORKSPACE_ID: 'w1', CORRAL_SOCKET: '/tmp/corral-unit.sock' });
    expect(take()).toEqual(['workspace.created w1', 'tab.created w1:t1', 'pane.created w1:p1', 'pane.focused w1:p1']);
  });

  it('a split halves the pane: both children are resized to their slots, the new one is focused', () => {
    const { core, children, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    take();
    const pane = core.splitPane('w1:p1', 'right');
    expect(pane.id).toBe('w1:p2');
    const [left, right] = children;
    expect(left!.size.cols + right!.size.cols).toBeLessThanOrEqual(HEADLESS_VIEWPORT.cols);
    expect(left!.size.cols).toBeGreaterThanOrEqual(HEADLESS_VIEWPORT.cols / 2 - 1);
    expect(right!.spawned.cols).toBe(right!.size.cols);
    expect(left!.size.rows).toBe(HEADLESS_VIEWPORT.rows);
    expect(take()).toEqual(['pane.created w1:p2', 'pane.focused w1:p2']);
    expect(core.model.focusedPane()?.id).toBe('w1:p2');
  });

  it('a split with focus: false leaves focus and says nothing of it', () => {
    const { core, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    take();
    core.splitPane('w1:p1', 'down', { focus: false });
    expect(take()).toEqual(['pane.created w1:p2']);
    expect(core.model.focusedPane()?.id).toBe('w1:p1');
  });

  it('a new tab gets its own shell in the given cwd', () => {
    const { core, specs, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    take();
    const { tab, pane } = core.createTab({ workspaceId: 'w1', cwd: '/tmp/other' });
    expect(specs[1]!.cwd).toBe('/tmp/other');
    expect(take()).toEqual([`tab.created ${tab.id}`, `pane.created ${pane.id}`, `pane.focused ${pane.id}`]);
  });

  it('refuses past max_panes before anything is made', () => {
    const { core, specs, take } = makeCore({ max_panes: 2 });
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    take();
    expect(codeOf(() => core.splitPane('w1:p1', 'down'))).toBe('invalid_params');
    expect(codeOf(() => core.createTab({ workspaceId: 'w1' }))).toBe('invalid_params');
    expect(codeOf(() => core.createWorkspace({ cwd: '/srv' }))).toBe('invalid_params');
    expect(specs).toHaveLength(2);
    expect(core.model.panes.size).toBe(2);
    expect(take()).toEqual([]);
  });

  it('refuses a shell that cannot start, before anything is made', () => {
    const { core, specs } = makeCore({ shell: '/nonexistent/shell' });
    expect(codeOf(() => core.createWorkspace({ cwd: '/srv' }))).toBe('invalid_params');
    expect(specs).toHaveLength(0);
    expect(core.model.workspaces.size).toBe(0);
  });
});

describe('CorralCore: closing and moving', () => {
  it('closing a pane kills and frees its child, gives focus to a neighbour and lays the tab out again', async () => {
    const { core, children, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    take();
    const closing = core.model.pane('w1:p2');
    core.closePane('w1:p2');
    await new Promise((resolve) => setImmediate(resolve));
    expect(children[1]!.killed).toBe(true);
    expect(children[1]!.disposed).toBe(true);
    expect(take()).toEqual(['pane.closed w1:p2', 'pane.focused w1:p1']);
    expect(children[0]!.size.cols).toBe(HEADLESS_VIEWPORT.cols);
    expect(codeOf(() => core.host(closing))).toBe('pane_not_found');
    expect(core.paneExit(closing).exited).toBe(true);
  });

  it('closing the last pane closes its tab and workspace, in that order', () => {
    const { core, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    take();
    core.closePane('w1:p1');
    expect(take()).toEqual(['pane.closed w1:p1', 'tab.closed w1:t1', 'workspace.closed w1']);
    expect(core.model.workspaces.size).toBe(0);
  });

  it('a shell that exits takes its pane with it: pane.exited, then the close', async () => {
    const { core, children, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'down');
    take();
    children[1]!.end({ exitCode: 3, signal: null });
    await new Promise((resolve) => setImmediate(resolve));
    expect(take()).toEqual(['pane.exited w1:p2', 'pane.closed w1:p2', 'pane.focused w1:p1']);
    expect(core.model.findPane('w1:p2')).toBeUndefined();
  });

  it('moving a pane to a new tab keeps its process and says where it came from', () => {
    const { core, children, events, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    take();
    const result = core.movePane('w1:p2', { newTab: true });
    const moved = events.find((e) => e.type === 'pane.moved') as unknown as Record<string, unknown>;
    expect(moved).toMatchObject({ previous_pane_id: 'w1:p2', previous_tab_id: 'w1:t1', previous_workspace_id: 'w1' });
    expect(result.pane.tabId).not.toBe('w1:t1');
    expect(children[1]!.killed).toBe(false);
    // The moved pane now has a whole tab to itself; the one left behind takes its tab back.
    expect(children[1]!.size.cols).toBe(HEADLESS_VIEWPORT.cols);
    expect(children[0]!.size.cols).toBe(HEADLESS_VIEWPORT.cols);
  });

  it('never reuses an id, whatever is created and closed in between', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('split', 'close', 'tab', 'workspace'), { maxLength: 12 }), (ops) => {
        const { core } = makeCore();
        const seen = new Set<string>();
        const note = (id: string) => {
          expect(seen.has(id), `${id} issued twice`).toBe(false);
          seen.add(id);
        };
        const first = core.createWorkspace({ cwd: '/srv' });
        [first.workspace.id, first.tab.id, first.pane.id].forEach(note);
        for (const op of ops) {
          const focused = core.model.focusedPane();
          if (!focused) {
            const made = core.createWorkspace({ cwd: '/srv' });
            [made.workspace.id, made.tab.id, made.pane.id].forEach(note);
            continue;
          }
          if (op === 'split') note(core.splitPane(focused.id, 'right').id);
          else if (op === 'close') core.closePane(focused.id);
          else if (op === 'tab') {
            const made = core.createTab({ workspaceId: focused.workspaceId });
            [made.tab.id, made.pane.id].forEach(note);
          } else {
            const made = core.createWorkspace({ cwd: '/srv' });
            [made.workspace.id, made.tab.id, made.pane.id].forEach(note);
          }
        }
        void core.shutdown();
      }),
      { numRuns: 12 },
    );
  });
});

describe('CorralCore: focus, rename, zoom', () => {
  it('focusing a pane always announces it, even when it already had focus', () => {
    const { core, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    take();
    core.focusPane('w1:p1');
    core.focusPane('w1:p1');
    expect(take()).toEqual(['pane.focused w1:p1', 'pane.focused w1:p1']);
  });

  it('focusing a tab or workspace focuses its focused pane', () => {
    const { core, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    const second = core.createWorkspace({ cwd: '/srv' });
    take();
    core.focusWorkspace('w1');
    expect(take()).toEqual(['pane.focused w1:p1']);
    core.focusTab(second.tab.id);
    expect(take()).toEqual([`pane.focused ${second.pane.id}`]);
  });

  it('renames panes, tabs and workspaces; an empty pane name clears it', () => {
    const { core, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    take();
    expect(core.renamePane('w1:p1', 'build').name).toBe('build');
    expect(core.resolveOne('build').id).toBe('w1:p1');
    expect(core.renamePane('w1:p1', '').name).toBeNull();
    core.renameTab('w1:t1', 'logs');
    core.renameWorkspace('w1', 'api');
    expect(take()).toEqual(['pane.renamed w1:p1', 'pane.renamed w1:p1', 'tab.renamed w1:t1', 'workspace.renamed w1']);
    expect(core.model.tab('w1:t1').label).toBe('logs');
    expect(core.model.workspace('w1').label).toBe('api');
  });

  it('refuses a pane name that would read as a selector, and keeps the old one', () => {
    const { core, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.renamePane('w1:p1', 'keep');
    take();
    for (const name of ['42', 'w1:p9', 'cmdline:vim', 'cwd:/tmp']) expect(codeOf(() => core.renamePane('w1:p1', name)), name).toBe('invalid_params');
    expect(core.model.pane('w1:p1').name).toBe('keep');
    expect(take()).toEqual([]);
  });

  it('zoom gives the pane the whole tab and back; the layout change is announced', () => {
    const { core, children, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    const half = children[0]!.size.cols;
    take();
    core.zoomPane('w1:p1');
    expect(children[0]!.size.cols).toBe(HEADLESS_VIEWPORT.cols);
    expect(core.tabRects(core.model.tab('w1:t1')).size).toBe(1);
    core.zoomPane('w1:p1');
    expect(children[0]!.size.cols).toBe(half);
    expect(take()).toEqual(['pane.layout_changed w1:t1', 'pane.layout_changed w1:t1']);
  });

  it('resizing moves the border by the cells asked for', () => {
    const { core, children } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    const before = children[0]!.size.cols;
    core.resizePane('w1:p1', 'right', 5);
    expect(children[0]!.size.cols).toBe(before + 5);
    expect(children[1]!.size.cols).toBe(HEADLESS_VIEWPORT.cols - (before + 5));
  });

  it('a layout for a tab must hold exactly its panes', () => {
    const { core } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    const tab = core.model.tab('w1:t1');
    expect(codeOf(() => core.setTabLayout('w1:t1', { kind: 'leaf', paneId: 'w1:p1' }))).toBe('invalid_params');
    expect(leaves(tab.layout).sort()).toEqual(['w1:p1', 'w1:p2']);
  });
});

describe('CorralCore: unknown targets', () => {
  it('every action on a pane, tab or workspace that does not exist fails with its not-found code and emits nothing', () => {
    const { core, specs, take } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    take();
    const cases: [string, () => unknown, string][] = [
      ['split', () => core.splitPane('w1:p9', 'right'), 'pane_not_found'],
      ['close pane', () => core.closePane('w9:p1'), 'pane_not_found'],
      ['close tab', () => core.closeTab('w1:t9'), 'tab_not_found'],
      ['close workspace', () => core.closeWorkspace('w9'), 'workspace_not_found'],
      ['focus pane', () => core.focusPane('nope'), 'pane_not_found'],
      ['focus tab', () => core.focusTab('w1:t9'), 'tab_not_found'],
      ['focus workspace', () => core.focusWorkspace('w7'), 'workspace_not_found'],
      ['rename pane', () => core.renamePane('w1:p9', 'x'), 'pane_not_found'],
      ['rename tab', () => core.renameTab('w1:t9', 'x'), 'tab_not_found'],
      ['rename workspace', () => core.renameWorkspace('w9', 'x'), 'workspace_not_found'],
      ['zoom', () => core.zoomPane('w1:p9'), 'pane_not_found'],
      ['resize', () => core.resizePane('w1:p9', 'left', 1), 'pane_not_found'],
      ['move', () => core.movePane('w1:p9', { newTab: true }), 'pane_not_found'],
      ['new tab', () => core.createTab({ workspaceId: 'w9' }), 'workspace_not_found'],
      ['resolve', () => core.resolve('nothing-called-this'), 'target_not_found'],
    ];
    for (const [name, action, code] of cases) expect(codeOf(action), name).toBe(code);
    expect(take()).toEqual([]);
    expect(specs).toHaveLength(1);
  });

  it('writing to a pane whose process exited is refused', async () => {
    const { core, children } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right', { focus: false });
    const pane = core.model.pane('w1:p2');
    core.writeToPane(pane, 'echo hi\r');
    expect(children[1]!.writes).toEqual(['echo hi\r']);
    children[1]!.end();
    await new Promise((resolve) => setImmediate(resolve));
    expect(codeOf(() => core.writeToPane(pane, 'more'))).toBe('pane_not_found');
  });
});

describe('CorralCore: surface_changed pacing (fake clock)', () => {
  it('fires at once for the first output, then at most once per 50 ms however much arrives', () => {
    // PaneTerminal parses output as it arrives: each output() below is parsed when it returns.
    const { core, clock, children, events } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    const changes = () => events.filter((e) => e.type === 'surface_changed').length;
    children[0]!.output('one');
    expect(changes()).toBe(1);
    for (const text of ['two', 'three', 'four']) children[0]!.output(text);
    expect(changes()).toBe(1);
    clock.advance(49);
    expect(changes()).toBe(1);
    clock.advance(1);
    expect(changes()).toBe(2);
    const last = events.filter((e) => e.type === 'surface_changed').at(-1) as unknown as { output_generation: number };
    expect(last.output_generation).toBe(core.host(core.model.pane('w1:p1')).outputGeneration);
    clock.advance(1000);
    expect(changes()).toBe(2);
  });

  it('a closed pane leaves no pacing timer behind', async () => {
    const { core, clock, children, events } = makeCore();
    core.createWorkspace({ cwd: '/srv' });
    core.splitPane('w1:p1', 'right');
    children[1]!.output('a');
    children[1]!.output('b');
    core.closePane('w1:p2');
    await new Promise((resolve) => setImmediate(resolve));
    const before = events.filter((e) => e.type === 'surface_changed').length;
    clock.advance(100);
    expect(events.filter((e) => e.type === 'surface_changed').length).toBe(before);
  });
});
