import { describe, expect, it } from 'vitest';
import { SessionModel } from '../../src/session/model.js';
import { leaves } from '../../src/session/layout.js';

describe('SessionModel', () => {
  it('creates a workspace with its first tab and root pane, ids never reused', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/tmp/proj' });
    expect(a.workspace.id).toBe('w1');
    expect(a.workspace.label).toBe('proj');
    expect(a.tab.id).toBe('w1:t1');
    expect(a.pane.id).toBe('w1:p1');
    expect(a.pane.surfaceId).toBe(1);
    model.closeWorkspace('w1');
    const b = model.createWorkspace({ cwd: '/tmp' });
    expect(b.workspace.id).toBe('w2');
    expect(b.pane.id).toBe('w2:p1');
    expect(b.pane.surfaceId).toBe(2);
  });

  it('gives default-labelled workspaces a numeric suffix when the cwd name is taken', () => {
    const model = new SessionModel();
    expect(model.createWorkspace({ cwd: '/src/api' }).workspace.label).toBe('api');
    expect(model.createWorkspace({ cwd: '/other/api' }).workspace.label).toBe('api-2');
    expect(model.createWorkspace({ cwd: '/src/api' }).workspace.label).toBe('api-3');
    // An explicit label is the caller's choice and is kept as given.
    expect(model.createWorkspace({ cwd: '/src/api', label: 'api' }).workspace.label).toBe('api');
    model.closeWorkspace('w2');
    expect(model.createWorkspace({ cwd: '/x/api' }).workspace.label).toBe('api-2');
  });

  it('numbers panes per workspace and surfaces globally', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    const b = model.createWorkspace({ cwd: '/' });
    const a2 = model.splitPane(a.pane.id, 'right');
    const b2 = model.splitPane(b.pane.id, 'down');
    expect([a2.id, b2.id]).toEqual(['w1:p2', 'w2:p2']);
    expect([a2.surfaceId, b2.surfaceId]).toEqual([3, 4]);
    model.closePane(a2.id);
    expect(model.splitPane(a.pane.id, 'right').id).toBe('w1:p3');
  });

  it('respects focus: false and keeps one focused pane', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    model.createWorkspace({ cwd: '/', focus: false });
    expect(model.focusedWorkspace).toBe('w1');
    const split = model.splitPane(a.pane.id, 'right', { focus: false });
    expect(model.focusedPane()?.id).toBe(a.pane.id);
    model.focusPane(split.id);
    expect(model.focusedPane()?.id).toBe(split.id);
  });

  it('closing the last pane closes the tab and the workspace', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    const result = model.closePane(a.pane.id);
    expect(result.tabs.map((t) => t.id)).toEqual(['w1:t1']);
    expect(result.workspaces.map((w) => w.id)).toEqual(['w1']);
    expect(model.workspaces.size).toBe(0);
    expect(model.focusedWorkspace).toBeNull();
  });

  it('closing a focused pane moves focus to a sibling', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    const b = model.splitPane(a.pane.id, 'right');
    expect(model.focusedPane()?.id).toBe(b.id);
    model.closePane(b.id);
    expect(model.focusedPane()?.id).toBe(a.pane.id);
  });

  it('moves a pane across workspaces with a new id and keeps the old one as an alias', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    const b = model.createWorkspace({ cwd: '/' });
    const moving = model.splitPane(a.pane.id, 'right');
    const surface = moving.surfaceId;
    const result = model.movePane(moving.id, { workspace: b.workspace.id });
    expect(result.changed).toBe(true);
    expect(result.previousPaneId).toBe('w1:p2');
    expect(result.pane.id).toBe('w2:p2');
    expect(result.pane.surfaceId).toBe(surface);
    expect(model.pane('w1:p2').id).toBe('w2:p2');
    expect(leaves(model.tab(b.tab.id).layout)).toEqual(['w2:p1', 'w2:p2']);
    // Moving again keeps every earlier id resolving.
    const c = model.createWorkspace({ cwd: '/' });
    const again = model.movePane('w1:p2', { newTab: true, workspace: c.workspace.id });
    expect(again.pane.id).toBe('w3:p2');
    expect(model.pane('w1:p2').id).toBe('w3:p2');
    expect(model.pane('w2:p2').id).toBe('w3:p2');
  });

  it('moving the only pane of a tab closes that tab; into a new workspace creates one', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/srv' });
    const second = model.createTab({ workspaceId: a.workspace.id });
    const result = model.movePane(second.pane.id, { newWorkspace: true });
    expect(result.closed.tabs.map((t) => t.id)).toEqual([second.tab.id]);
    expect(result.createdWorkspace?.id).toBe('w2');
    expect(result.pane.id).toBe('w2:p1');
    expect(model.workspace('w2').tabs).toHaveLength(1);
  });

  it('refuses a move without a destination and leaves the model unchanged', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    expect(() => model.movePane(a.pane.id, {})).toThrow(/needs one of/);
    expect(model.panes.size).toBe(1);
  });

  it('zoom toggles and swap exchanges places', () => {
    const model = new SessionModel();
    const a = model.createWorkspace({ cwd: '/' });
    const b = model.splitPane(a.pane.id, 'right');
    expect(model.zoomPane(b.id).zoomedPane).toBe(b.id);
    expect(model.zoomPane(b.id).zoomedPane).toBeNull();
    model.swapPanes(a.pane.id, b.id);
    expect(leaves(model.tab(a.tab.id).layout)).toEqual([b.id, a.pane.id]);
  });

  it('throws typed not-found errors', () => {
    const model = new SessionModel();
    expect(() => model.pane('w1:p1')).toThrow(expect.objectContaining({ code: 'pane_not_found' }));
    expect(() => model.tab('w1:t1')).toThrow(expect.objectContaining({ code: 'tab_not_found' }));
    expect(() => model.workspace('w1')).toThrow(expect.objectContaining({ code: 'workspace_not_found' }));
  });
});
