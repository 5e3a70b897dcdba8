/**
 * The pure half of sessions that survive (SPEC §13): model → saved state → model, for random
 * histories of create/split/move/rename/zoom/focus/close; and what a read-back file must
 * satisfy before it is restored.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { SessionModel } from '../../src/session/model.js';
import { modelToState, NO_FACTS, parseState, stateToRecords, STATE_VERSION, StateProblem } from '../../src/persist/session-state.js';
import { onlySgr, restorePreamble } from '../../src/persist/saved-scrollback.js';

const SAVED_AT = new Date('2026-12-01T03:00:00Z');

type Op =
  | { op: 'workspace'; focus: boolean }
  | { op: 'tab'; ws: number; focus: boolean }
  | { op: 'split'; pane: number; direction: 'right' | 'down'; ratio: number; focus: boolean }
  | { op: 'move'; pane: number; to: 'workspace' | 'tab' | 'new_tab' | 'new_workspace'; target: number }
  | { op: 'rename'; pane: number; name: string | null }
  | { op: 'label'; ws: number; label: string }
  | { op: 'zoom'; pane: number }
  | { op: 'swap'; a: number; b: number }
  | { op: 'focus'; pane: number }
  | { op: 'close'; pane: number }
  | { op: 'closeTab'; tab: number };

const index = fc.nat(50);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('workspace' as const), focus: fc.boolean() }),
  fc.record({ op: fc.constant('tab' as const), ws: index, focus: fc.boolean() }),
  fc.record({
    op: fc.constant('split' as const),
    pane: index,
    direction: fc.constantFrom('right' as const, 'down' as const),
    ratio: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
    focus: fc.boolean(),
  }),
  fc.record({ op: fc.constant('move' as const), pane: index, to: fc.constantFrom('workspace' as const, 'tab' as const, 'new_tab' as const, 'new_workspace' as const), target: index }),
  fc.record({ op: fc.constant('rename' as const), pane: index, name: fc.option(fc.string({ minLength: 1, maxLength: 8 }), { nil: null }) }),
  fc.record({ op: fc.constant('label' as const), ws: index, label: fc.string({ minLength: 1, maxLength: 8 }) }),
  fc.record({ op: fc.constant('zoom' as const), pane: index }),
  fc.record({ op: fc.constant('swap' as const), a: index, b: index }),
  fc.record({ op: fc.constant('focus' as const), pane: index }),
  fc.record({ op: fc.constant('close' as const), pane: index }),
  fc.record({ op: fc.constant('closeTab' as const), tab: index }),
);

function pick<T>(items: T[], i: number): T | undefined {
  return items.length === 0 ? undefined : items[i % items.length];
}

/** Applies one op when it makes sense for the model as it is (a random op on nothing is skipped). */
function apply(model: SessionModel, op: Op): void {
  const panes = [...model.panes.values()];
  const workspaces = [...model.workspaces.values()];
  const tabs = [...model.tabs.values()];
  try {
    switch (op.op) {
      case 'workspace':
        model.createWorkspace({ cwd: `/home/u/w${workspaces.length}`, focus: op.focus });
        return;
      case 'tab': {
        const ws = pick(workspaces, op.ws);
        if (ws) model.createTab({ workspaceId: ws.id, focus: op.focus });
        return;
      }
      case 'split': {
        const pane = pick(panes, op.pane);
        if (pane) model.splitPane(pane.id, op.direction, { ratio: op.ratio, focus: op.focus });
        return;
      }
      case 'move': {
        const pane = pick(panes, op.pane);
        if (!pane) return;
        if (op.to === 'new_tab') model.movePane(pane.id, { newTab: true });
        else if (op.to === 'new_workspace') model.movePane(pane.id, { newWorkspace: true });
        else if (op.to === 'tab') {
          const tab = pick(tabs, op.target);
          if (tab) model.movePane(pane.id, { tab: tab.id });
        } else {
          const ws = pick(workspaces, op.target);
          if (ws) model.movePane(pane.id, { workspace: ws.id });
        }
        return;
      }
      case 'rename': {
        const pane = pick(panes, op.pane);
        if (pane) pane.name = op.name;
        return;
      }
      case 'label': {
        const ws = pick(workspaces, op.ws);
        if (ws) ws.label = op.label;
        return;
      }
      case 'zoom': {
        const pane = pick(panes, op.pane);
        if (pane) model.zoomPane(pane.id);
        return;
      }
      case 'swap': {
        const a = pick(panes, op.a);
        const b = pick(panes, op.b);
        if (a && b && a.tabId === b.tabId) model.swapPanes(a.id, b.id);
        return;
      }
      case 'focus': {
        const pane = pick(panes, op.pane);
        if (pane) model.focusPane(pane.id);
        return;
      }
      case 'close': {
        const pane = pick(panes, op.pane);
        if (pane) model.closePane(pane.id);
        return;
      }
      case 'closeTab': {
        const tab = pick(tabs, op.tab);
        if (tab) model.closeTab(tab.id);
        return;
      }
    }
  } catch (error) {
    // Only refusals the model is meant to make (e.g. moving a pane into its own tab's workspace).
    if (!(error instanceof Error) || !('code' in error)) throw error;
  }
}

/** Saves `model`, writes it as text, reads it back and loads it into a new model. */
function roundTrip(model: SessionModel): SessionModel {
  const text = JSON.stringify(modelToState(model, () => NO_FACTS, { session: 'default', savedAt: SAVED_AT }));
  const restored = new SessionModel();
  restored.load(stateToRecords(parseState(text)));
  return restored;
}

function snapshot(model: SessionModel) {
  return modelToState(model, () => NO_FACTS, { session: 'default', savedAt: SAVED_AT });
}

describe('model → saved state → model', () => {
  it('gives back the same model for random histories, and the same ids for what comes next', () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 60 }), (ops) => {
        const model = new SessionModel();
        model.createWorkspace({ cwd: '/home/u' });
        for (const op of ops) apply(model, op);
        const restored = roundTrip(model);
        expect(snapshot(restored)).toEqual(snapshot(model));
        // Lookups rebuilt: aliases and surface ids resolve in the restored model as before.
        for (const pane of model.panes.values()) {
          for (const alias of pane.aliases) expect(restored.findPane(alias)?.id).toBe(pane.id);
          expect(restored.paneBySurface(pane.surfaceId)?.id).toBe(pane.id);
        }
        expect(restored.focusedPane()?.id).toBe(model.focusedPane()?.id);
        // Counters continue: the next workspace, tab, pane and surface ids are the ones the original would hand out.
        const next = (m: SessionModel) => {
          const made = m.createWorkspace({ cwd: '/x' });
          const split = m.splitPane(made.pane.id, 'right');
          const first = [...m.workspaces.keys()][0]!;
          const tab = m.createTab({ workspaceId: first });
          return [made.workspace.id, made.pane.surfaceId, split.id, tab.tab.id, tab.pane.id];
        };
        expect(next(restored)).toEqual(next(model));
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseState refuses what cannot be restored', () => {
  const good = () => {
    const model = new SessionModel();
    const { pane } = model.createWorkspace({ cwd: '/home/u' });
    model.splitPane(pane.id, 'right', { ratio: 0.25 });
    return JSON.parse(JSON.stringify(snapshot(model)));
  };

  it('takes a good file', () => {
    expect(parseState(JSON.stringify(good())).panes).toHaveLength(2);
  });

  it.each([
    ['cut short', (text: string) => text.slice(0, text.length / 2), /not JSON/],
    ['not an object', () => '[1,2]', /not a saved corral session/],
    ['no version', (text: string) => JSON.stringify({ ...JSON.parse(text), version: undefined }), /version/],
    ['a newer version', (text: string) => JSON.stringify({ ...JSON.parse(text), version: STATE_VERSION + 1 }), /newer corral/],
  ])('%s', (_what, mangle, reason) => {
    expect(() => parseState(mangle(JSON.stringify(good())))).toThrow(reason);
  });

  it.each([
    ['a layout naming a missing pane', (s: any) => (s.tabs[0].layout.second.paneId = 'w1:p9'), /layout holds pane w1:p9/],
    ['a pane in no layout', (s: any) => s.panes.push({ ...s.panes[0], id: 'w1:p3', surface_id: 3 }), /./],
    ['a surface id twice', (s: any) => (s.panes[1].surface_id = s.panes[0].surface_id), /surface id appears twice/],
    ['a ratio of 1', (s: any) => (s.tabs[0].layout.ratio = 1), /ratio/],
    ['a counter below an id', (s: any) => (s.counters.surfaces = 1), /counters.surfaces/],
    ['a focus on a missing tab', (s: any) => (s.workspaces[0].focused_tab = 'w1:t7'), /focuses a tab/],
    ['a bad pane id', (s: any) => (s.panes[0].id = '../etc'), /bad id/],
  ])('%s', (_what, mangle, reason) => {
    const state = good();
    mangle(state);
    expect(() => parseState(JSON.stringify(state))).toThrow(reason);
  });

  it('marks a newer version as such', () => {
    try {
      parseState(JSON.stringify({ version: 99 }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(StateProblem);
      expect((error as StateProblem).newer).toBe(true);
    }
  });
});

describe('the restored pane text', () => {
  it('keeps SGR colours and drops every other control sequence', () => {
    expect(onlySgr('\x1b[1;38;2;1:2:3mok\x1b[0m')).toBe('\x1b[1;38;2;1:2:3mok\x1b[0m');
    expect(onlySgr('a\x1b]0;title\x07b\x1b[2Jc\x1b[6nd\x9b31me\rf')).toBe('a]0;titlebcd31mef');
  });

  it('puts the saved lines above a dim restored line and the notes, each line reset', () => {
    const text = restorePreamble('\x1b[31mred\x1b[0m\nplain', new Date(2026, 11, 1, 3, 4), ['was running: vim notes.md (not restarted)']);
    expect(text).toBe(
      '\x1b[31mred\x1b[0m\x1b[0m\r\nplain\x1b[0m\r\n\x1b[2m── restored 2026-12-01 03:04 ──\x1b[0m\r\n\x1b[2mwas running: vim notes.md (not restarted)\x1b[0m\r\n',
    );
  });
});
