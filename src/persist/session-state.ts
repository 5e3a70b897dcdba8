/**
 * The saved session (SPEC §13) as data: the shape of `<session>.json`, the pure conversion
 * of a SessionModel (plus what the core knows of each pane's process) into it, and the
 * checks that decide whether a file read back can be restored at all. No I/O here, so the
 * round trip model → state → model is property-tested on its own (test/unit/persist-*).
 */
import type { SplitDirection } from '../contract/protocol.js';
import type { IdCounters } from '../session/ids.js';
import { isPaneId, isTabId, isWorkspaceId, workspaceOf } from '../session/ids.js';
import type { LayoutNode } from '../session/layout.js';
import { leaves } from '../session/layout.js';
import type { PaneRecord, SessionModel, TabRecord, WorkspaceRecord } from '../session/model.js';

/** Bumped when a field changes meaning; a file with a higher version is never read (nor overwritten). */
export const STATE_VERSION = 1;

/** An agent that ran in a pane: enough to resume its own session (SPEC §13). */
export interface SavedAgent {
  kind: string;
  name: string | null;
  /** The agent's command line as it was started (model, permission mode…). */
  argv: string[];
  /** The agent's own session id (hooks' `session_id`); null when never reported. */
  session_id: string | null;
}

export interface SavedPane {
  id: string;
  surface_id: number;
  workspace: string;
  tab: string;
  name: string | null;
  aliases: string[];
  /** The directory the pane's shell started in. */
  start_cwd: string;
  /** The live cwd when saved (the foreground process's, else the shell's). */
  cwd: string;
  /** The foreground command line when saved; '' when the shell sat at its prompt. */
  command: string;
  /** Variables given at creation (an `up` file's `env`), re-applied to the fresh shell. */
  env: Record<string, string>;
  /** A command the pane re-runs on restore (`up` file `restore = true`); null for none. */
  restore_command: string | null;
  agent: SavedAgent | null;
}

export interface SavedWorkspace {
  id: string;
  label: string;
  cwd: string;
  tabs: string[];
  focused_tab: string;
}

export interface SavedTab {
  id: string;
  workspace: string;
  label: string;
  layout: LayoutNode;
  focused_pane: string;
  zoomed_pane: string | null;
}

export interface SessionState {
  version: number;
  session: string;
  saved_at: string;
  focused_workspace: string | null;
  counters: IdCounters;
  workspaces: SavedWorkspace[];
  tabs: SavedTab[];
  panes: SavedPane[];
}

/** What the model does not hold about a pane: its process, as the core sees it when saving. */
export type PaneFacts = Pick<SavedPane, 'cwd' | 'command' | 'env' | 'restore_command' | 'agent'>;

export const NO_FACTS: PaneFacts = { cwd: '', command: '', env: {}, restore_command: null, agent: null };

/** The model (plus each pane's facts) as a saved session. Pure. */
export function modelToState(
  model: SessionModel,
  facts: (pane: PaneRecord) => PaneFacts,
  meta: { session: string; savedAt: Date },
): SessionState {
  return {
    version: STATE_VERSION,
    session: meta.session,
    saved_at: meta.savedAt.toISOString(),
    focused_workspace: model.focusedWorkspace,
    counters: model.idCounters(),
    workspaces: [...model.workspaces.values()].map((w) => ({ id: w.id, label: w.label, cwd: w.cwd, tabs: [...w.tabs], focused_tab: w.focusedTab })),
    tabs: [...model.tabs.values()].map((t) => ({
      id: t.id,
      workspace: t.workspaceId,
      label: t.label,
      layout: t.layout,
      focused_pane: t.focusedPane,
      zoomed_pane: t.zoomedPane,
    })),
    panes: [...model.panes.values()].map((p) => {
      const f = facts(p);
      return {
        id: p.id,
        surface_id: p.surfaceId,
        workspace: p.workspaceId,
        tab: p.tabId,
        name: p.name,
        aliases: [...p.aliases],
        start_cwd: p.startCwd,
        cwd: f.cwd || p.startCwd,
        command: f.command,
        env: { ...f.env },
        restore_command: f.restore_command,
        agent: f.agent,
      };
    }),
  };
}

/** The records `SessionModel.load` takes, rebuilt from a checked state. Pure. */
export function stateToRecords(state: SessionState): Parameters<SessionModel['load']>[0] {
  const workspaces: WorkspaceRecord[] = state.workspaces.map((w) => ({ id: w.id, label: w.label, cwd: w.cwd, tabs: [...w.tabs], focusedTab: w.focused_tab }));
  const tabs: TabRecord[] = state.tabs.map((t) => ({
    id: t.id,
    workspaceId: t.workspace,
    label: t.label,
    layout: t.layout,
    focusedPane: t.focused_pane,
    zoomedPane: t.zoomed_pane,
  }));
  const panes: PaneRecord[] = state.panes.map((p) => ({
    id: p.id,
    surfaceId: p.surface_id,
    workspaceId: p.workspace,
    tabId: p.tab,
    name: p.name,
    startCwd: p.start_cwd,
    aliases: [...p.aliases],
  }));
  return { workspaces, tabs, panes, focusedWorkspace: state.focused_workspace, counters: state.counters };
}

// ---------------------------------------------------------------------------
// Reading a file back: every field checked, every cross-reference resolved, or a reason.

/** Why a saved file cannot be restored; `newer` when it comes from a later corral. */
export class StateProblem extends Error {
  constructor(
    message: string,
    readonly newer = false,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function need(ok: boolean, what: string): void {
  if (!ok) throw new StateProblem(what);
}

function str(o: Json, key: string, where: string): string {
  need(typeof o[key] === 'string', `${where}: "${key}" must be a string`);
  return o[key] as string;
}

function strOrNull(o: Json, key: string, where: string): string | null {
  need(o[key] === null || typeof o[key] === 'string', `${where}: "${key}" must be a string or null`);
  return o[key] as string | null;
}

function strList(o: Json, key: string, where: string): string[] {
  const v = o[key];
  need(Array.isArray(v) && v.every((x) => typeof x === 'string'), `${where}: "${key}" must be a list of strings`);
  return [...(v as string[])];
}

function positiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
}

function counterMap(v: unknown, where: string): Record<string, number> {
  need(isObject(v) && Object.entries(v).every(([k, n]) => isWorkspaceId(k) && positiveInt(n)), `${where} must map workspace ids to counts`);
  return { ...(v as Record<string, number>) };
}

function parseLayout(v: unknown, where: string, depth = 0): LayoutNode {
  need(depth < 64 && isObject(v), `${where}: bad layout node`);
  const node = v as Json;
  if (node.kind === 'leaf') {
    need(typeof node.paneId === 'string' && isPaneId(node.paneId), `${where}: bad layout leaf`);
    return { kind: 'leaf', paneId: node.paneId as string };
  }
  need(node.kind === 'split', `${where}: layout node kind must be leaf or split`);
  need(node.direction === 'right' || node.direction === 'down', `${where}: split direction must be right or down`);
  const ratio = node.ratio;
  need(typeof ratio === 'number' && ratio > 0 && ratio < 1, `${where}: split ratio must be between 0 and 1`);
  return {
    kind: 'split',
    direction: node.direction as SplitDirection,
    ratio: ratio as number,
    first: parseLayout(node.first, where, depth + 1),
    second: parseLayout(node.second, where, depth + 1),
  };
}

function parseAgent(v: unknown, where: string): SavedAgent | null {
  if (v === null || v === undefined) return null;
  need(isObject(v), `${where}: "agent" must be an object or null`);
  const a = v as Json;
  return { kind: str(a, 'kind', where), name: strOrNull(a, 'name', where), argv: strList(a, 'argv', where), session_id: strOrNull(a, 'session_id', where) };
}

function parseEnv(v: unknown, where: string): Record<string, string> {
  if (v === undefined) return {};
  need(isObject(v) && Object.values(v).every((x) => typeof x === 'string'), `${where}: "env" must map names to strings`);
  return { ...(v as Record<string, string>) };
}

/**
 * Parses and checks a saved session. Throws StateProblem (never anything else) when the text
 * is not JSON, has the wrong shape, comes from a newer version, or does not hang together
 * (a layout naming a pane of another tab, a focus on a missing tab, a surface id twice…).
 */
export function parseState(text: string): SessionState {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new StateProblem(`not JSON (${(error as Error).message}); the file is corrupt or was cut short`);
  }
  need(isObject(raw), 'not a saved corral session (not a JSON object)');
  const o = raw as Json;
  need(positiveInt(o.version) && (o.version as number) >= 1, 'no valid "version"');
  if ((o.version as number) > STATE_VERSION) {
    throw new StateProblem(`written by a newer corral (version ${o.version as number}; this one reads version ${STATE_VERSION})`, true);
  }
  need(isObject(o.counters), '"counters" must be an object');
  const c = o.counters as Json;
  need(positiveInt(c.workspaces) && positiveInt(c.surfaces), 'counters: workspaces and surfaces must be counts');
  const counters: IdCounters = {
    workspaces: c.workspaces as number,
    surfaces: c.surfaces as number,
    tabs: counterMap(c.tabs, 'counters.tabs'),
    panes: counterMap(c.panes, 'counters.panes'),
  };
  need(Array.isArray(o.workspaces) && Array.isArray(o.tabs) && Array.isArray(o.panes), '"workspaces", "tabs" and "panes" must be lists');

  const workspaces = (o.workspaces as unknown[]).map((v, i): SavedWorkspace => {
    const where = `workspaces[${i}]`;
    need(isObject(v), `${where} must be an object`);
    const w = v as Json;
    const id = str(w, 'id', where);
    need(isWorkspaceId(id), `${where}: bad id`);
    return { id, label: str(w, 'label', where), cwd: str(w, 'cwd', where), tabs: strList(w, 'tabs', where), focused_tab: str(w, 'focused_tab', where) };
  });
  const tabs = (o.tabs as unknown[]).map((v, i): SavedTab => {
    const where = `tabs[${i}]`;
    need(isObject(v), `${where} must be an object`);
    const t = v as Json;
    const id = str(t, 'id', where);
    need(isTabId(id), `${where}: bad id`);
    return {
      id,
      workspace: str(t, 'workspace', where),
      label: str(t, 'label', where),
      layout: parseLayout(t.layout, where),
      focused_pane: str(t, 'focused_pane', where),
      zoomed_pane: strOrNull(t, 'zoomed_pane', where),
    };
  });
  const panes = (o.panes as unknown[]).map((v, i): SavedPane => {
    const where = `panes[${i}]`;
    need(isObject(v), `${where} must be an object`);
    const p = v as Json;
    const id = str(p, 'id', where);
    need(isPaneId(id), `${where}: bad id`);
    need(positiveInt(p.surface_id) && (p.surface_id as number) >= 1, `${where}: bad surface_id`);
    const aliases = strList(p, 'aliases', where);
    need(aliases.every(isPaneId), `${where}: bad alias`);
    return {
      id,
      surface_id: p.surface_id as number,
      workspace: str(p, 'workspace', where),
      tab: str(p, 'tab', where),
      name: strOrNull(p, 'name', where),
      aliases,
      start_cwd: str(p, 'start_cwd', where),
      cwd: str(p, 'cwd', where),
      command: str(p, 'command', where),
      env: parseEnv(p.env, where),
      restore_command: p.restore_command === undefined ? null : strOrNull(p, 'restore_command', where),
      agent: parseAgent(p.agent, where),
    };
  });
  const state: SessionState = {
    version: o.version as number,
    session: typeof o.session === 'string' ? o.session : '',
    saved_at: typeof o.saved_at === 'string' ? o.saved_at : '',
    focused_workspace: o.focused_workspace === null || o.focused_workspace === undefined ? null : String(o.focused_workspace),
    counters,
    workspaces,
    tabs,
    panes,
  };
  checkConsistent(state);
  return state;
}

function numberAfter(id: string, marker: string): number {
  return Number(id.slice(id.lastIndexOf(marker) + marker.length));
}

/** Every reference resolves, every pane sits in exactly one layout, no id is above its counter. */
function checkConsistent(state: SessionState): void {
  const ws = new Map(state.workspaces.map((w) => [w.id, w]));
  const tabs = new Map(state.tabs.map((t) => [t.id, t]));
  const panes = new Map(state.panes.map((p) => [p.id, p]));
  need(ws.size === state.workspaces.length && tabs.size === state.tabs.length && panes.size === state.panes.length, 'an id appears twice');
  need(new Set(state.panes.map((p) => p.surface_id)).size === panes.size, 'a surface id appears twice');
  const aliases = state.panes.flatMap((p) => p.aliases);
  need(new Set(aliases).size === aliases.length && aliases.every((a) => !panes.has(a)), 'a pane alias appears twice or names a live pane');
  need(state.focused_workspace === null ? ws.size === 0 : ws.has(state.focused_workspace), 'focused_workspace is not a workspace');
  need(state.counters.workspaces >= Math.max(0, ...[...ws.keys()].map((id) => numberAfter(id, 'w'))), 'counters.workspaces is below a workspace id');
  need(state.counters.surfaces >= Math.max(0, ...state.panes.map((p) => p.surface_id)), 'counters.surfaces is below a surface id');
  const tabsSeen = new Set<string>();
  for (const w of state.workspaces) {
    need(w.tabs.length > 0 && w.tabs.includes(w.focused_tab), `workspace ${w.id} has no tabs or focuses a tab it lacks`);
    for (const tabId of w.tabs) {
      const tab = tabs.get(tabId);
      need(tab !== undefined && tab.workspace === w.id && !tabsSeen.has(tabId), `workspace ${w.id} lists tab ${tabId} wrongly`);
      tabsSeen.add(tabId);
      need((state.counters.tabs[w.id] ?? 0) >= numberAfter(tabId, ':t'), `counters.tabs is below tab ${tabId}`);
    }
  }
  need(tabsSeen.size === tabs.size, 'a tab belongs to no workspace');
  const panesSeen = new Set<string>();
  for (const tab of state.tabs) {
    need(workspaceOf(tab.id) === tab.workspace, `tab ${tab.id} is in the wrong workspace`);
    const ids = leaves(tab.layout);
    for (const id of ids) {
      const pane = panes.get(id);
      need(pane !== undefined && pane.tab === tab.id && pane.workspace === tab.workspace && !panesSeen.has(id), `tab ${tab.id}'s layout holds pane ${id} wrongly`);
      panesSeen.add(id);
      need((state.counters.panes[tab.workspace] ?? 0) >= numberAfter(id, ':p'), `counters.panes is below pane ${id}`);
    }
    need(ids.includes(tab.focused_pane), `tab ${tab.id} focuses a pane it lacks`);
    need(tab.zoomed_pane === null || ids.includes(tab.zoomed_pane), `tab ${tab.id} zooms a pane it lacks`);
  }
  need(panesSeen.size === panes.size, 'a pane is in no layout');
}
