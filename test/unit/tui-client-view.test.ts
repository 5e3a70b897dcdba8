/** A client's own workspace and tab over the one session model (src/tui/client-view.ts, SPEC §1). */
import { describe, expect, it } from 'vitest';
import { SessionModel } from '../../src/session/model.js';
import { ClientModelView, currentPlace, resolvePlace, type ClientPlace } from '../../src/tui/client-view.js';

/** w1 with tabs t1 (p1) and t2 (p2 split into p2|p3), w2 with w2:t1; the model's focus on w1:t1. */
function session() {
  const model = new SessionModel();
  model.createWorkspace({ cwd: '/tmp' });
  const t2 = model.createTab({ workspaceId: 'w1' }).tab;
  model.splitPane(t2.focusedPane, 'right');
  model.createWorkspace({ cwd: '/tmp' });
  model.focusTab('w1:t1');
  return model;
}

describe('ClientModelView', () => {
  it('shows its own tab of the same workspace while the model is elsewhere', () => {
    const model = session();
    let place: ClientPlace | null = { workspace: 'w1', tab: 'w1:t2' };
    const view = new ClientModelView(model, () => place);
    expect(view.focusedWorkspace).toBe('w1');
    expect(view.focusedPane()?.tabId).toBe('w1:t2');
    expect(view.isTabFocused(model.tab('w1:t2'))).toBe(true);
    expect(view.isTabFocused(model.tab('w1:t1'))).toBe(false);
    // The model itself still focuses t1: the active client's tab, and what scripts see.
    expect(model.isTabFocused(model.tab('w1:t1'))).toBe(true);
    expect(model.focusedPane()?.id).toBe('w1:p1');
    // No place (this client is the active one): the model's own focus.
    place = null;
    expect(view.focusedPane()?.id).toBe('w1:p1');
    expect(view.isTabFocused(model.tab('w1:t1'))).toBe(true);
  });

  it('shares the focused pane inside a tab with everyone', () => {
    const model = session();
    const view = new ClientModelView(model, () => ({ workspace: 'w1', tab: 'w1:t2' }));
    const [left, right] = model.tabPanes('w1:t2');
    expect(view.focusedPane()?.id).toBe(right!.id);
    // Someone focuses the left pane of t2 (and with it t2, in the model).
    model.focusPane(left!.id);
    expect(view.focusedPane()?.id).toBe(left!.id);
    expect(view.isPaneFocused(left!)).toBe(true);
    expect(view.isPaneFocused(right!)).toBe(false);
  });

  it("falls back to the workspace's current tab when its tab closed, and to the model's focus when its workspace closed", () => {
    const model = session();
    const view = new ClientModelView(model, () => ({ workspace: 'w1', tab: 'w1:t2' }));
    model.closeTab('w1:t2');
    expect(view.focusedPane()?.id).toBe('w1:p1');
    expect(resolvePlace(model, { workspace: 'w1', tab: 'w1:t2' })).toEqual({ workspace: 'w1', tab: 'w1:t1' });

    const gone = new ClientModelView(model, () => ({ workspace: 'w2', tab: 'w2:t1' }));
    model.closeWorkspace('w2');
    expect(gone.focusedWorkspace).toBe('w1');
    expect(gone.focusedPane()?.id).toBe('w1:p1');
  });

  it("reads the model's place as the active client leaves it", () => {
    const model = session();
    expect(currentPlace(model)).toEqual({ workspace: 'w1', tab: 'w1:t1' });
    model.focusTab('w2:t1');
    expect(currentPlace(model)).toEqual({ workspace: 'w2', tab: 'w2:t1' });
    expect(currentPlace(new SessionModel())).toBeNull();
  });
});
