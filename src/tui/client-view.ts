/**
 * The session as one attached client sees it (SPEC §1: each client has its own current
 * workspace and tab; pane focus inside a tab is shared). The model keeps one focus — that of
 * the most recently active client, which every action and every script acts on. A client
 * that is not the active one keeps the place it last looked at (`ClientPlace`) and reads the
 * model through this view: the same records, with the focused workspace and that
 * workspace's current tab read from its place. Which pane of a tab has focus is the tab's
 * own (`TabRecord.focusedPane`), so it stays shared.
 */
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord, ReadonlyModel, TabRecord } from '../session/model.js';

/** Where a client looks: a workspace and the tab it shows there. */
export interface ClientPlace {
  workspace: string;
  tab: string;
}

/** The place the model's focus is at now (what the active client shows), or null with no workspace. */
export function currentPlace(model: ReadonlyModel): ClientPlace | null {
  const workspace = model.focusedWorkspace === null ? undefined : model.workspaces.get(model.focusedWorkspace);
  return workspace ? { workspace: workspace.id, tab: workspace.focusedTab } : null;
}

/**
 * `place` as it stands now: a closed tab gives way to its workspace's current tab; a closed
 * workspace gives null (the client then follows the model's focus).
 */
export function resolvePlace(model: ReadonlyModel, place: ClientPlace | null): ClientPlace | null {
  if (place === null) return null;
  const workspace = model.workspaces.get(place.workspace);
  if (!workspace) return null;
  return { workspace: workspace.id, tab: workspace.tabs.includes(place.tab) ? place.tab : workspace.focusedTab };
}

/** `model` with its focus read from `place()` whenever that gives a place (null: the model's own). */
export function clientModelView(model: ReadonlyModel, place: () => ClientPlace | null): ReadonlyModel {
  const here = () => resolvePlace(model, place());
  const focusedPane = (): Readonly<PaneRecord> | null => {
    const at = here();
    if (!at) return model.focusedPane();
    const tab = model.tabs.get(at.tab);
    return (tab && model.panes.get(tab.focusedPane)) ?? null;
  };
  const overrides: Partial<Record<keyof ReadonlyModel, unknown>> = {
    focusedPane,
    isPaneFocused: (pane: Readonly<PaneRecord>) => focusedPane()?.id === pane.id,
    isTabFocused: (tab: Readonly<TabRecord>) => {
      const at = here();
      return at ? at.tab === tab.id : model.isTabFocused(tab);
    },
  };
  return new Proxy(model, {
    get: (target, key, receiver) => {
      if (key === 'focusedWorkspace') return here()?.workspace ?? target.focusedWorkspace;
      if (Object.hasOwn(overrides, key)) return overrides[key as keyof ReadonlyModel];
      return Reflect.get(target, key, receiver);
    },
  });
}

/** `core` whose `model` is `clientModelView(core.model, place)`; every action still goes to the core. */
export function clientCoreView(core: CorralCore, place: () => ClientPlace | null): CorralCore {
  const model = clientModelView(core.model, place);
  return new Proxy(core, { get: (target, key, receiver) => (key === 'model' ? model : Reflect.get(target, key, receiver)) });
}
