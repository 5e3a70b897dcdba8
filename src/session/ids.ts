/**
 * Identifiers of the session model (SPEC §2): workspaces `w1`, tabs `w1:t1`, panes `w1:p1`
 * (numbered per workspace) and global numeric surface ids. None is ever reused in a
 * server's life, so a stale id in a script fails loudly instead of hitting a new pane.
 */
import { CorralError } from '../contract/protocol.js';

const WORKSPACE_RE = /^w[1-9][0-9]*$/;
const TAB_RE = /^(w[1-9][0-9]*):t[1-9][0-9]*$/;
const PANE_RE = /^(w[1-9][0-9]*):p[1-9][0-9]*$/;
const SURFACE_RE = /^[1-9][0-9]*$/;

/** Whether `s` is a workspace id (`w3`). */
export function isWorkspaceId(s: string): boolean {
  return WORKSPACE_RE.test(s);
}

/** Whether `s` is a tab id (`w3:t2`). */
export function isTabId(s: string): boolean {
  return TAB_RE.test(s);
}

/** Whether `s` is a pane id (`w3:p7`). */
export function isPaneId(s: string): boolean {
  return PANE_RE.test(s);
}

/** Whether `s` spells a surface id (`12`): a positive integer without leading zeros. */
export function isSurfaceIdText(s: string): boolean {
  return SURFACE_RE.test(s);
}

/** The workspace a workspace, tab or pane id belongs to; null for anything else. */
export function workspaceOf(id: string): string | null {
  if (WORKSPACE_RE.test(id)) return id;
  const m = TAB_RE.exec(id) ?? PANE_RE.exec(id);
  return m ? m[1] : null;
}

/** The allocator's counters, for a saved session (src/persist/): a restore continues above them. */
export interface IdCounters {
  workspaces: number;
  surfaces: number;
  tabs: Record<string, number>;
  panes: Record<string, number>;
}

/** Hands out ids; counters only go up. One instance per server. */
export class IdAllocator {
  private workspaces = 0;
  private surfaces = 0;
  private readonly tabs = new Map<string, number>();
  private readonly panes = new Map<string, number>();

  /** The next workspace id: w1, w2, … */
  nextWorkspace(): string {
    this.workspaces += 1;
    return `w${this.workspaces}`;
  }

  /** The next tab id in `workspaceId`: w1:t1, w1:t2, … */
  nextTab(workspaceId: string): string {
    return `${workspaceId}:t${this.bump(this.tabs, workspaceId)}`;
  }

  /** The next pane id in `workspaceId`: w1:p1, w1:p2, … (a moved pane gets one from its new workspace). */
  nextPane(workspaceId: string): string {
    return `${workspaceId}:p${this.bump(this.panes, workspaceId)}`;
  }

  /** The next global surface id: 1, 2, … */
  nextSurface(): number {
    this.surfaces += 1;
    return this.surfaces;
  }

  counters(): IdCounters {
    return {
      workspaces: this.workspaces,
      surfaces: this.surfaces,
      tabs: Object.fromEntries(this.tabs),
      panes: Object.fromEntries(this.panes),
    };
  }

  /** Raises the counters to at least `saved`'s: never lowers one, so no id is handed out twice. */
  raiseTo(saved: IdCounters): void {
    this.workspaces = Math.max(this.workspaces, saved.workspaces);
    this.surfaces = Math.max(this.surfaces, saved.surfaces);
    for (const [ws, n] of Object.entries(saved.tabs)) this.tabs.set(ws, Math.max(this.tabs.get(ws) ?? 0, n));
    for (const [ws, n] of Object.entries(saved.panes)) this.panes.set(ws, Math.max(this.panes.get(ws) ?? 0, n));
  }

  private bump(counters: Map<string, number>, workspaceId: string): number {
    if (!isWorkspaceId(workspaceId)) {
      throw new CorralError('invalid_params', `not a workspace id: "${workspaceId}"`, { workspace_id: workspaceId });
    }
    // Counters outlive the workspace's closing: ids are never reused in a server's life.
    const next = (counters.get(workspaceId) ?? 0) + 1;
    counters.set(workspaceId, next);
    return next;
  }
}
