/**
 * Every saved machine's link, owned by the server (SPEC §14): started from machines.toml,
 * restarted when the file changes (`machine.reload`), listed with their states, and the
 * one way the RPC layer reaches a remote server — a forwarded request, the remote fleet for
 * `fleet.list`/`ls`, and the remote events for `events.subscribe`, each tagged with the
 * machine's name. A remote that is slow or gone costs a local caller at most a deadline; an
 * unreachable machine costs nothing (it is simply left out, its state says why).
 */
import type { PredictMode } from '../screen/remote-prediction.js';
import type { PaneView } from '../terminal/pane-view.js';
import { CorralError, type PaneRead, type EventInput, type FleetRow, type MachineInfo, type MachineState, type SurfaceRow } from '../contract/protocol.js';
import type { RpcClient } from '../rpc/client.js';
import type { ReadOptions } from '../actions/pane-io.js';
import { PARAM_DEFAULTS } from '../contract/bounds.js';
import type { MachineService, RemoteFrame } from '../rpc/handlers/context.js';
import { machinesPath, readMachines, type MachineEntry } from './machine-config.js';
import { MachineLink, withDeadline, type LinkStatus } from './machine-link.js';
import { sshProgram } from './ssh-command.js';
import { MachineMirror } from './machine-mirror.js';

/** What the TUI reads of the machines: their mirrors, their states, and when to look again (SPEC §14). */
export interface MirrorDirectory {
  /** The mirrors, in the order of machines.toml. */
  mirrors(): readonly MachineMirror[];
  /** A machine's label, state and round trip, for the sidebar. */
  status(machine: string): { label: string; state: MachineState; latencyMs: number | null } | null;
  /** The structure of some mirror or some machine's state changed. */
  onChange(listener: () => void): () => void;
  /** The local main area: mirrored servers lay their tabs out for it while nobody is attached there. */
  setViewport(cols: number, rows: number): void;
}

/** How long an aggregated listing waits for a remote before it answers without it. */
const LISTING_DEADLINE_MS = 2000;

/** What the hub needs of the server. */
export interface MachineHubOptions {
  env: NodeJS.ProcessEnv;
  /** corral's private runtime directory (the ControlMaster sockets go there). */
  runtimeDir: string;
  /** `[machines] ssh` from config.toml (null: not set). */
  sshConfig: readonly string[] | null;
  /** Puts an event on the server's bus (`machine.state_changed`). */
  emit(event: EventInput): void;
  /** The server log. */
  log(message: string): void;
  /** Scrollback of a mirrored pane's terminal (the local scrollback_lines). */
  scrollback: number;
  /** `[machines] predict`: keys typed into remote panes drawn before their echo (default 'always'). */
  predict?: PredictMode;
}

interface Machine {
  entry: MachineEntry;
  link: MachineLink;
  mirror: MachineMirror;
  /** Live agents there, from the last fleet it sent. */
  agents: number;
}

export class MachineHub implements MachineService, MirrorDirectory {
  private readonly machines = new Map<string, Machine>();
  private readonly listeners = new Set<(frame: RemoteFrame) => void>();
  private readonly changeListeners = new Set<() => void>();
  private problem: string | null = null;
  /** Surface-id ranges handed out so far (a machine keeps its range while the server runs). */
  private nextIndex = 0;
  private viewport: { cols: number; rows: number } | null = null;

  constructor(private readonly options: MachineHubOptions) {}

  /** The machines file this hub reads. */
  get file(): string {
    return machinesPath(this.options.env);
  }

  /** Reads machines.toml and brings the links in line with it: new ones start, removed or changed ones stop. */
  reload(): MachineInfo[] {
    let entries: MachineEntry[];
    try {
      entries = readMachines(this.file);
      this.problem = null;
    } catch (error) {
      // A bad file leaves the links as they were and says why (as a bad config.toml does).
      this.problem = (error as Error).message;
      this.options.log(`machines: ${this.problem}`);
      return this.list();
    }
    const wanted = new Map(entries.map((entry) => [entry.name, entry]));
    for (const [name, machine] of this.machines) {
      const next = wanted.get(name);
      if (!next || JSON.stringify(next) !== JSON.stringify(machine.entry)) {
        machine.link.stop();
        machine.mirror.dispose();
        this.machines.delete(name);
      }
    }
    for (const entry of entries) {
      if (this.machines.has(entry.name)) continue;
      const mirror = new MachineMirror(entry.name, this.nextIndex++, { scrollback: this.options.scrollback, predict: this.options.predict, onChange: () => this.changed() });
      const machine: Machine = { entry, agents: 0, link: this.makeLink(entry), mirror };
      this.machines.set(entry.name, machine);
      if (entry.enabled) machine.link.start();
    }
    this.changed();
    return this.list();
  }

  private makeLink(entry: MachineEntry): MachineLink {
    const program = sshProgram(this.options.env, this.options.sshConfig);
    return new MachineLink(entry, { program, runtimeDir: this.options.runtimeDir }, {
      onStatus: (status, previous) => this.onStatus(entry.name, status, previous),
      onUp: (client) => this.onUp(entry.name, client),
      onDown: () => this.machines.get(entry.name)?.mirror.detach(),
    });
  }

  private onStatus(name: string, status: LinkStatus, previous: MachineState): void {
    if (status.state !== previous) {
      this.options.log(`machine ${name}: ${previous} → ${status.state}${status.lastError ? ` (${status.lastError})` : ''}`);
    }
    const machine = this.machines.get(name);
    if (machine) {
      if (status.state !== 'connected') machine.agents = 0;
      machine.mirror.state = status.state;
      machine.mirror.linkRtt(status.latencyMs);
    }
    this.changed();
    this.options.emit({
      type: 'machine.state_changed',
      machine: name,
      state: status.state,
      previous_state: previous,
      latency_ms: status.latencyMs,
      remote_version: status.remoteVersion,
      last_error: status.lastError,
    });
  }

  private onUp(name: string, client: RpcClient): void {
    // The remote's events, tagged with the machine, for every local subscriber.
    client.onNotification((method, params) => {
      if (method !== 'events.event' || typeof params !== 'object' || params === null) return;
      const frame = params as Record<string, unknown>;
      if (frame.type === 'subscribed' || frame.type === 'heartbeat') return;
      if (typeof frame.type === 'string' && (frame.type.startsWith('agent.') || frame.type.startsWith('ai.'))) this.refreshAgents(name);
      const tagged = { ...frame, machine: name } as RemoteFrame;
      for (const listener of this.listeners) listener(tagged);
    });
    void client.request('events.subscribe', {}).catch(() => {});
    this.refreshAgents(name);
    const machine = this.machines.get(name);
    if (!machine) return;
    machine.mirror.state = 'connected';
    machine.mirror.attach(client);
    if (this.viewport) void client.request('mirror.viewport', this.viewport).catch(() => {});
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  mirrors(): readonly MachineMirror[] {
    return [...this.machines.values()].filter((m) => m.entry.enabled).map((m) => m.mirror);
  }

  status(machine: string): { label: string; state: MachineState; latencyMs: number | null } | null {
    const found = this.machines.get(machine);
    return found ? { label: found.entry.label, state: found.link.state.state, latencyMs: found.link.state.latencyMs } : null;
  }

  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  setViewport(cols: number, rows: number): void {
    if (this.viewport && this.viewport.cols === cols && this.viewport.rows === rows) return;
    this.viewport = { cols, rows };
    for (const { link } of this.machines.values()) void link.connection?.request('mirror.viewport', { cols, rows }).catch(() => {});
  }

  /** Counts the machine's live agents again (after an agent event). */
  private refreshAgents(name: string): void {
    const machine = this.machines.get(name);
    if (!machine) return;
    void machine.link
      .call('fleet.list', {}, LISTING_DEADLINE_MS)
      .then((result) => {
        machine.agents = ((result as { agents?: unknown[] }).agents ?? []).length;
      })
      .catch(() => {});
  }

  names(): string[] {
    return [...this.machines.keys()];
  }

  has(name: string): boolean {
    return this.machines.has(name);
  }

  list(): MachineInfo[] {
    return [...this.machines.values()].map(({ entry, link, agents }) => ({
      name: entry.name,
      label: entry.label,
      target: entry.target,
      session: entry.session,
      enabled: entry.enabled,
      state: link.state.state,
      latency_ms: link.state.latencyMs,
      remote_version: link.state.remoteVersion,
      agents,
      last_error: link.state.lastError ?? (this.problem && !entry.enabled ? this.problem : null),
    }));
  }

  /** A problem reading machines.toml, or null. */
  get fileProblem(): string | null {
    return this.problem;
  }

  /**
   * Sends one request to `machine`'s server and returns its result. The remote's own gate
   * decides (a local open gate opens nothing there). `timeoutMs`: how long the caller may
   * wait (a forwarded wait asks for its own timeout plus a margin).
   */
  forward(machine: string, method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<unknown> {
    const found = this.machines.get(machine);
    if (!found) throw new CorralError('machine_not_found', `no machine named ${JSON.stringify(machine)}; \`corral machine list\` shows the saved ones`, { machine });
    return found.link.call(method, params, timeoutMs);
  }

  /** `fleet.list` rows of every connected machine, each tagged; a slow machine is left out. */
  async fleetRows(): Promise<FleetRow[]> {
    return this.gather<FleetRow>('fleet.list', 'agents');
  }

  /** `surface.list` rows of every connected machine, each tagged. */
  async surfaceRows(): Promise<SurfaceRow[]> {
    return this.gather<SurfaceRow>('surface.list', 'surfaces');
  }

  private async gather<T extends { machine: string | null }>(method: string, key: string): Promise<T[]> {
    const connected = [...this.machines.values()].filter((m) => m.link.connection !== null);
    const results = await Promise.all(
      connected.map(async ({ entry, link }) => {
        try {
          const result = (await withDeadline(link.call(method, {}), LISTING_DEADLINE_MS, `${entry.name}: no answer`)) as Record<string, T[]>;
          return (result[key] ?? []).map((row) => ({ ...row, machine: entry.name }));
        } catch {
          return [];
        }
      }),
    );
    return results.flat();
  }

  /** The machine and mirrored pane `paneId` (`build/w1:p2`) names; throws when either is unknown. */
  private mirrored(paneId: string) {
    const slash = paneId.indexOf('/');
    const machine = slash > 0 ? this.machines.get(paneId.slice(0, slash)) : undefined;
    if (!machine) throw new CorralError('machine_not_found', `${JSON.stringify(paneId)} names no saved machine: give NAME/<pane id>`, { pane_id: paneId });
    const pane = machine.mirror.panes.get(paneId);
    if (!pane) throw new CorralError('pane_not_found', `machine ${machine.entry.name} has no pane ${paneId.slice(slash + 1)} (or its mirror has not arrived yet)`, { pane_id: paneId });
    return { machine, pane };
  }

  mirrorView(paneId: string): PaneView {
    const { machine, pane } = this.mirrored(paneId);
    return machine.mirror.view(pane);
  }

  typeInto(paneId: string, data: string): void {
    const { machine, pane } = this.mirrored(paneId);
    machine.mirror.input(pane, data);
  }

  /** What this server's mirror of `paneId` (`build/w1:p2`) shows, read here with no round trip. */
  readMirror(paneId: string, options: ReadOptions): PaneRead {
    const { machine, pane } = this.mirrored(paneId);
    const source = options.source ?? 'recent';
    const format = source === 'detection' ? 'text' : (options.format ?? 'text');
    const view = machine.mirror.view(pane);
    const result = view.read({ source, format, lines: options.lines ?? (source === 'recent' || source === 'recent-unwrapped' ? PARAM_DEFAULTS.recentLines : undefined) });
    return { pane_id: paneId, workspace_id: pane.workspaceId, tab_id: pane.tabId, source, format, text: result.text, revision: view.revision, truncated: result.truncated };
  }

  /** Every remote event, tagged with its machine; returns the disposer. */
  onEvent(listener: (frame: RemoteFrame) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends every link (the server is stopping). */
  close(): void {
    for (const { link, mirror } of this.machines.values()) {
      link.stop();
      mirror.dispose();
    }
    this.machines.clear();
  }
}

