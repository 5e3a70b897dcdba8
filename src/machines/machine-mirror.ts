/**
 * The local mirror of one machine's session (SPEC §14): its workspaces, tabs and panes as
 * records under ids qualified with the machine's name (`build/w1:p2`), and for each pane a
 * headless terminal fed the remote's snapshot and then its numbered output batches, in order.
 * The TUI draws, scrolls, searches and copies these terminals through the same read interface
 * as local panes (`PaneView`); keys typed into one go back through the link as a person's input.
 *
 * The mirror outlives a connection: when the link drops, the panes stay on screen as they were
 * (the TUI says the machine is reconnecting and refuses keys); when it returns, each pane
 * resumes from the last batch it has, or takes a fresh snapshot when the remote no longer
 * holds those batches.
 */
import type { AgentStatus, MirrorMessage, MirrorPane, MirrorTab, MirrorWorkspace, MirrorLayout, MachineState } from '../contract/protocol.js';
import { CorralError, MIRROR_NOTIFICATION } from '../contract/protocol.js';
import type { LayoutNode } from '../session/layout.js';
import type { PaneRecord, TabRecord, WorkspaceRecord } from '../session/model.js';
import { PaneTerminal } from '../terminal/pane-terminal.js';
import type { RpcClient } from '../rpc/client.js';
import type { PasteSink } from '../pty/paste-stream.js';
import { PasteEncoder } from '../terminal/paste.js';
import { DEFAULT_PREDICT, type PredictMode } from '../screen/remote-prediction.js';
import { PanePrediction } from './pane-prediction.js';
import { ECHO_TRACE, HOP } from '../screen/echo-trace.js';

/** Full terminal reset and scrollback erase: a snapshot starts from nothing. */
const RESET = '\x1bc\x1b[3J';

/** The size of a pane's terminal before its first snapshot says the real one. */
const BLANK = { cols: 80, rows: 24 } as const;

/** Local surface ids of mirrored panes start here, per machine, far above any local pane's. */
const SURFACE_BASE = 1_000_000;

/** A workspace, tab or pane record of a machine, with the machine's name. */
export type ForeignWorkspace = WorkspaceRecord & { machine: string };
export type ForeignTab = TabRecord & { machine: string };
export type ForeignPane = PaneRecord & { machine: string; remote: MirrorPane };

/** What a mirror says of a remote pane's agent, shaped as a local one is read (the TUI, the notifier). */
export function foreignAgent(pane: ForeignPane): { kind: string; name: string | null; state: { status: AgentStatus; seen: boolean; snapshot(): { message: string | null } } } | null {
  const agent = pane.remote.agent;
  if (!agent) return null;
  return { kind: agent.kind, name: agent.name, state: { status: agent.status, seen: agent.seen, snapshot: () => ({ message: agent.message }) } };
}

/** One mirrored pane: its terminal and where its stream is. */
interface PaneMirror {
  terminal: PaneTerminal;
  /** The last batch applied; -1 before the first snapshot. */
  seq: number;
  /** Batches were missed (the remote dropped them): wait for the snapshot that follows. */
  gap: boolean;
  /** Keys typed here drawn before their echo returns (docs/machines.md "Predicted echo"). */
  prediction: PanePrediction;
}

export interface MirrorOptions {
  /** Scrollback of a mirrored pane's terminal (the local scrollback_lines). */
  scrollback: number;
  /** The structure or a screen changed: the TUI looks again. */
  onChange(): void;
  /** `[machines] predict` (default 'always'). */
  predict?: PredictMode;
}

export class MachineMirror {
  readonly workspaces = new Map<string, ForeignWorkspace>();
  readonly tabs = new Map<string, ForeignTab>();
  readonly panes = new Map<string, ForeignPane>();
  private readonly bySurface = new Map<number, ForeignPane>();
  private readonly screens = new Map<number, PaneMirror>();
  private client: RpcClient | null = null;
  private stopNotifications: (() => void) | null = null;
  /** The remote's own focused workspace, qualified. */
  focusedWorkspace: string | null = null;
  state: MachineState = 'connecting';
  /** Keys sent to this machine, numbered so its acknowledgements say which (the predicted echo). */
  private inputSeq = 0;
  /** The link's last measured round trip (ms), handed to each pane's prediction. */
  private rttMs: number | null = null;

  constructor(
    readonly machine: string,
    /** This machine's place among the hub's machines: its surface id range. */
    private readonly index: number,
    private readonly options: MirrorOptions,
  ) {}

  /** `w1:p2` on this machine, as a local id. */
  qualify(id: string): string {
    return `${this.machine}/${id}`;
  }

  /** The remote id of a local one (`build/w1:p2` → `w1:p2`). */
  remoteId(id: string): string {
    return id.startsWith(`${this.machine}/`) ? id.slice(this.machine.length + 1) : id;
  }

  /** The local surface id of a remote one. */
  localSurface(remote: number): number {
    return SURFACE_BASE * (this.index + 1) + remote;
  }

  /** The link is up: subscribe, resuming each pane from its last batch. */
  attach(client: RpcClient): void {
    this.detach();
    this.client = client;
    this.stopNotifications = client.onNotification((method, params) => {
      if (method === MIRROR_NOTIFICATION) this.apply(params as MirrorMessage);
    });
    void client.request('mirror.subscribe', { resume: this.resumePoints() }).catch(() => {});
  }

  /** Per remote surface id, the last batch this mirror applied (where a new stream may resume). */
  resumePoints(): Record<string, number> {
    const resume: Record<string, number> = {};
    for (const [remote, screen] of this.screens) if (screen.seq >= 0 && !screen.gap) resume[String(remote)] = screen.seq;
    return resume;
  }

  /** The link went down: the panes stay as they were until it returns. */
  detach(): void {
    for (const screen of this.screens.values()) screen.prediction.reset();
    this.stopNotifications?.();
    this.stopNotifications = null;
    this.client = null;
  }

  /** A pane's terminal, as the TUI reads it (blank until its first snapshot arrives). */
  view(pane: ForeignPane): PaneTerminal {
    return this.screen(pane.remote.surface_id, BLANK.cols, BLANK.rows).terminal;
  }

  /** A pane's predicted echo: the screen the TUI draws (the mirror with predictions over it). */
  prediction(pane: ForeignPane): PanePrediction {
    return this.screen(pane.remote.surface_id, BLANK.cols, BLANK.rows).prediction;
  }

  /** The link measured its round trip: predictions show (or stop) by it. */
  linkRtt(ms: number | null): void {
    this.rttMs = ms;
    if (ms !== null) for (const screen of this.screens.values()) screen.prediction.linkRtt(ms);
  }

  paneBySurface(local: number): ForeignPane | undefined {
    return this.bySurface.get(local);
  }

  /** Sends a person's keys to the remote pane; refused while the link is not up (never queued). */
  input(pane: ForeignPane, data: string, predict = true): void {
    const client = this.state === 'connected' ? this.client : null;
    if (!client) throw new CorralError('machine_unreachable', `machine ${this.machine} is ${this.state}: keys are not sent (they would arrive late)`, { machine: this.machine });
    const seq = ++this.inputSeq;
    this.screens.get(pane.remote.surface_id)?.prediction.typed(data, seq, predict);
    // A notification: the echo is the answer; the remote acknowledges `seq` behind the output
    // that followed it (a mirror message), which is what judges a predicted echo. A remote
    // that refuses it (its gate, a process it cannot place) logs why there.
    client.notify('pane.input', { pane_id: pane.remote.id, data, seq });
    // The echo trace's pty hops, for a remote pane: the key handed to the link, its echo off it.
    ECHO_TRACE?.mark(HOP.ptyWritten);
  }

  /**
   * A person's paste into the remote pane, sent piece by piece as it arrives (encoded here,
   * with the markers when the remote program asked for them). The remote queues each piece
   * as a unit of its own: another writer there may come between two pieces, unlike a local
   * paste (docs/machines.md).
   */
  openPaste(pane: ForeignPane, bracketed: boolean): PasteSink {
    const encoder = new PasteEncoder(bracketed);
    let open = true;
    const send = (text: string): void => {
      if (text === '' || !open) return;
      try {
        this.input(pane, text, false);
      } catch {
        // The link went down mid-paste: the rest is not sent (it would arrive late, as keys would).
        open = false;
      }
    };
    if (this.state !== 'connected') throw new CorralError('machine_unreachable', `machine ${this.machine} is ${this.state}: the paste is not sent`, { machine: this.machine });
    send(encoder.start());
    return {
      write: (text) => {
        if (open) send(encoder.push(text));
        return true;
      },
      end: () => {
        if (open) send(encoder.end());
        open = false;
      },
      whenRoom: (fn) => {
        fn();
        return { dispose: () => {} };
      },
    };
  }

  /** Forwards an action to the remote server (a split, a close, a rename typed in the TUI). */
  call(method: string, params: Record<string, unknown>): Promise<unknown> {
    const client = this.state === 'connected' ? this.client : null;
    if (!client) return Promise.reject(new CorralError('machine_unreachable', `machine ${this.machine} is ${this.state}`, { machine: this.machine }));
    return client.request(method, params);
  }

  /** Applies one message of the remote's stream. */
  apply(message: MirrorMessage): void {
    switch (message.kind) {
      case 'structure':
        this.applyStructure(message.workspaces, message.tabs, message.panes, message.focused_workspace);
        this.options.onChange();
        return;
      case 'snapshot': {
        const first = !this.screens.has(message.surface_id);
        const screen = this.screen(message.surface_id, message.cols, message.rows);
        void screen.terminal.write(RESET);
        screen.terminal.resize(message.cols, message.rows);
        void screen.terminal.write(message.data);
        screen.seq = message.seq;
        screen.gap = false;
        screen.prediction.reset();
        // A pane's first screen: the TUI puts it on its layers (later ones redraw by revision).
        if (first) this.options.onChange();
        return;
      }
      case 'output': {
        const screen = this.screens.get(message.surface_id);
        if (!screen || !this.inOrder(screen, message.seq)) return;
        ECHO_TRACE?.mark(HOP.ptyRead);
        void screen.terminal.write(Buffer.from(message.data, 'base64'));
        return;
      }
      case 'resize': {
        const screen = this.screens.get(message.surface_id);
        if (!screen || !this.inOrder(screen, message.seq)) return;
        screen.terminal.resize(message.cols, message.rows);
        screen.prediction.reset();
        return;
      }
      case 'ack':
        this.screens.get(message.surface_id)?.prediction.ack(message.input, message.quiet === true);
        return;
    }
  }

  /** Whether batch `seq` is the next one; a repeat is skipped, a gap waits for a snapshot. */
  private inOrder(screen: PaneMirror, seq: number): boolean {
    if (screen.gap || seq <= screen.seq) return false;
    if (seq !== screen.seq + 1) {
      screen.gap = true;
      return false;
    }
    screen.seq = seq;
    return true;
  }

  private screen(remote: number, cols: number, rows: number): PaneMirror {
    let screen = this.screens.get(remote);
    if (!screen) {
      const terminal = new PaneTerminal({ cols, rows, scrollback: this.options.scrollback });
      screen = { terminal, seq: -1, gap: false, prediction: new PanePrediction(terminal, this.options.predict ?? DEFAULT_PREDICT) };
      screen.prediction.linkRtt(this.rttMs);
      screen.terminal.log.label = `${this.machine} surface ${remote}`;
      this.screens.set(remote, screen);
    }
    return screen;
  }

  private applyStructure(workspaces: MirrorWorkspace[], tabs: MirrorTab[], panes: MirrorPane[], focused: string | null): void {
    const q = (id: string) => this.qualify(id);
    this.workspaces.clear();
    for (const w of workspaces) this.workspaces.set(q(w.id), { id: q(w.id), label: w.label, cwd: w.cwd, tabs: w.tabs.map(q), focusedTab: q(w.focused_tab), machine: this.machine });
    this.tabs.clear();
    for (const t of tabs) {
      this.tabs.set(q(t.id), { id: q(t.id), workspaceId: q(t.workspace_id), label: t.label, layout: layoutOf(t.layout, q), focusedPane: q(t.focused_pane), zoomedPane: t.zoomed_pane === null ? null : q(t.zoomed_pane), machine: this.machine });
    }
    this.panes.clear();
    this.bySurface.clear();
    const alive = new Set<number>();
    for (const p of panes) {
      const pane: ForeignPane = { id: q(p.id), surfaceId: this.localSurface(p.surface_id), workspaceId: q(p.workspace_id), tabId: q(p.tab_id), name: p.name, startCwd: p.cwd, aliases: [], machine: this.machine, remote: p };
      this.panes.set(pane.id, pane);
      this.bySurface.set(pane.surfaceId, pane);
      alive.add(p.surface_id);
    }
    for (const [remote, screen] of this.screens) {
      if (alive.has(remote)) continue;
      screen.prediction.dispose();
      screen.terminal.dispose();
      this.screens.delete(remote);
    }
    this.focusedWorkspace = focused === null ? null : q(focused);
  }

  /** Whether the pane has a screen to draw (its first snapshot arrived). */
  hasScreen(pane: ForeignPane): boolean {
    return this.screens.has(pane.remote.surface_id);
  }

  dispose(): void {
    this.detach();
    for (const screen of this.screens.values()) {
      screen.prediction.dispose();
      screen.terminal.dispose();
    }
    this.screens.clear();
    this.workspaces.clear();
    this.tabs.clear();
    this.panes.clear();
    this.bySurface.clear();
  }
}

function layoutOf(node: MirrorLayout, q: (id: string) => string): LayoutNode {
  return node.kind === 'leaf' ? { kind: 'leaf', paneId: q(node.paneId) } : { kind: 'split', direction: node.direction, ratio: node.ratio, first: layoutOf(node.first, q), second: layoutOf(node.second, q) };
}
