/**
 * The server's attached clients (SPEC §1): attach, list, detach, and the events about them.
 * Each client has its own compositor and controller ({@link AttachedClient}); the tab layout
 * follows the client that was active last (input or resize), the others see it clipped or
 * padded. The chrome's Ink views are loaded at the first attach, never by a server that only
 * serves scripts.
 */
import type { Socket } from 'node:net';
import { CorralError, type ClientInfo } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { Notifier } from '../notify/notifier.js';
import type { ConfigError } from '../config/load-config.js';
import { CLIENT_PROTOCOL_VERSION, type ClientHello } from '../contract/frame-protocol.js';
import { AttachedClient } from './attached-client.js';
import { bootId } from '../boot-id.js';
import { visibleControls } from '../terminal/control-chars.js';
import { controllingTty, ownTtys, type ClaimContext } from './direct-tty.js';
import { currentPlace, resolvePlace } from './client-view.js';
import { PaneFocusReports } from './pane-focus-reports.js';
import { ClientRights } from '../pty/client-rights.js';
import { frameInterior } from '../../components/geometry.js';
import type { MirrorDirectory } from '../machines/machine-hub.js';
import { NO_MIRRORS } from './foreign-model.js';
import type { PeerPlace } from '../pty/peer-place.js';
import type { ChromeRenderer } from './controller.js';


/** What a client that detached with `prefix d` sees after its terminal is restored. */
export const DETACH_NOTE = '[detached from corral: the panes keep running — `corral` or `corral attach` comes back]';

export interface ClientHubOptions {
  core: CorralCore;
  notifier: Notifier;
  configError: ConfigError | null;
  /** What the saved session could not do (SPEC §13), shown on each client's status line at attach. */
  problems?: () => readonly string[];
  /** The session's last workspace closed while clients were attached. */
  onEmpty(): void;
  /** The inode of the socket file the server listens on, once bound (a direct-tty claim must name it). */
  socketIno?: () => number | null;
  /** Other machines' sessions (SPEC §14); none without machine links. */
  mirrors?: MirrorDirectory;
}

/**
 * The Ink views, imported in production mode (development mode is ~1 s to import). React
 * reads NODE_ENV when it is loaded; it is put back afterwards so panes started later do not
 * inherit a NODE_ENV the user never set.
 */
async function loadViews(): Promise<typeof import('../../components/index.js')> {
  const before = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    return await import('../../components/index.js');
  } finally {
    if (before === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = before;
  }
}

export class ClientHub {
  private readonly clients = new Map<string, AttachedClient>();
  private nextId = 1;
  private renderers: Promise<() => ChromeRenderer> | null = null;
  /** The client whose size the tabs are laid out for. */
  private active: AttachedClient | null = null;
  private readonly focusReports: PaneFocusReports;

  /** A config error and the saved session's problems, for the status line of a client attaching. */
  private startupMessage(): { text: string; error: boolean } | null {
    const problems = [...(this.options.configError ? [this.options.configError.message] : []), ...(this.options.problems?.() ?? [])];
    return problems.length === 0 ? null : { text: problems.join('; '), error: true };
  }

  constructor(private readonly options: ClientHubOptions) {
    this.focusReports = new PaneFocusReports(options.core);
    // A machine's structure or state changed: every client looks again.
    options.mirrors?.onChange(() => {
      for (const client of this.clients.values()) client.controller.refreshView();
    });
    const core = options.core;
    this.claimContext = {
      bootId: bootId(),
      get socketIno() {
        return options.socketIno?.() ?? null;
      },
      uid: process.getuid?.() ?? -1,
      // Read at each claim: panes come and go, and a client in one of them must not be taken.
      *forbiddenRdevs() {
        yield* ownTtys();
        for (const pid of core.panePids()) {
          const rdev = controllingTty(pid);
          if (rdev) yield rdev;
        }
      },
    };
  }

  /** What a client's direct-tty claim is checked against (src/tui/direct-tty.ts). */
  private readonly claimContext: ClaimContext;
  /**
   * Clients being ended whose terminal the server is still handing back (≤ 0.5 s): a stop
   * (the last workspace closed under `--exit-empty`) waits for them before closing sockets.
   */
  private readonly ending = new Set<Promise<void>>();

  get size(): number {
    return this.clients.size;
  }

  /**
   * Starts loading the chrome's views now: a server `corral` started for itself has a client
   * on its way, and the import (~0.3 s) then overlaps the client's connecting.
   */
  preload(): void {
    this.renderers ??= loadViews().then((views) => () => ({
      // Per client: the memoising renderer keeps what it drew last.
      renderChrome: views.createChromeRenderer(),
      renderOverlay: views.renderOverlay,
      hitTest: views.hitTest,
    }));
  }

  /** Checks a hello and loads the chrome's views; returns the id the client will have. */
  async prepare(hello: ClientHello): Promise<string> {
    if (hello.protocol !== CLIENT_PROTOCOL_VERSION) {
      throw new CorralError('invalid_params', `client protocol ${hello.protocol} is not this server's (${CLIENT_PROTOCOL_VERSION}); use the same corral version for client and server`);
    }
    this.preload();
    await this.renderers;
    return `c${this.nextId++}`;
  }

  /**
   * Takes over `socket` (the handshake is done) and shows the session on it. `place` (where
   * the attaching process stands) decides, here and once, whether its input reaches panes.
   */
  async attach(id: string, socket: Socket, hello: ClientHello, place: PeerPlace): Promise<void> {
    const renderer = (await this.renderers!)();
    const core = this.options.core;
    const rights = new ClientRights(place, (surfaceId) => core.paneBySurface(surfaceId)?.id ?? `(closed, surface ${surfaceId})`);
    if (!rights.isPerson) this.log(`client ${id}: ${rights.why()}; view-only while the scripting gate is closed`);
    if (core.model.workspaces.size === 0) {
      try {
        core.createWorkspace({ cwd: hello.cwd });
      } catch {
        // The client's directory is not one the server can use (another machine's path).
        core.createWorkspace({ cwd: process.cwd() });
      }
    }
    const client = new AttachedClient({
      id,
      socket,
      hello,
      core,
      rights,
      mirrors: this.options.mirrors ?? NO_MIRRORS,
      notifier: this.options.notifier,
      renderer,
      startupMessage: this.startupMessage(),
      onActive: (c) => this.makeActive(c),
      isActive: (c) => this.active === c,
      onDetach: (c) => this.drop(c, 0, DETACH_NOTE),
      onGone: (c) => this.drop(c, null, ''),
      onEmpty: () => this.options.onEmpty(),
      onViewChanged: () => this.reportPaneFocus(),
      claimContext: this.claimContext,
      log: (message) => this.log(message),
    });
    this.clients.set(id, client);
    this.makeActive(client);
    core.bus.emit({ type: 'client.attached', client_id: id, cols: client.cols, rows: client.rows, tty: hello.tty });
  }

  /** What a peer sent (its tty name, text in an error) reaches the log: no escape sequence from it runs in the terminal of whoever reads the log. */
  private log(message: string): void {
    process.stderr.write(`corral server: ${visibleControls(message, { keepNewlines: true })}\n`);
  }

  /**
   * Input (or a resize) came from `client`: the session's focus moves to the workspace and
   * tab it shows, the one active before keeps showing its own, and tabs are laid out for its
   * size (SPEC §1: the others see that layout clipped or padded).
   */
  private makeActive(client: AttachedClient): void {
    if (this.active === client) return;
    const core = this.options.core;
    const previous = this.active;
    if (previous) previous.savedPlace = currentPlace(core.model);
    this.active = client;
    const wanted = resolvePlace(core.model, client.savedPlace);
    if (wanted !== null && !core.model.isTabFocused(core.model.tab(wanted.tab))) core.focusTab(wanted.tab);
    // The active client first: its controller sets the viewport; the others then draw that layout.
    client.controller.resize(client.cols, client.rows);
    for (const other of this.clients.values()) if (other !== client) other.controller.resize(other.cols, other.rows);
  }

  /** Ends a client: `code` null when its connection is already gone. */
  private drop(client: AttachedClient, code: number | null, note: string): Promise<void> {
    if (!this.clients.delete(client.id)) return Promise.resolve();
    let ended = Promise.resolve();
    if (code === null) client.dispose();
    else {
      ended = client.end(code, note);
      this.ending.add(ended);
      void ended.then(() => this.ending.delete(ended));
    }
    if (this.active === client) {
      this.active = null;
      const next = this.mostRecent();
      if (next) this.makeActive(next);
    }
    this.reportPaneFocus();
    this.options.core.bus.emit({ type: 'client.detached', client_id: client.id });
    return ended;
  }

  /**
   * The panes that have focus: each client's focused pane, while its terminal has focus (a
   * terminal that cannot report focus counts as focused). Their apps hear of each change.
   */
  private reportPaneFocus(): void {
    const focused = new Set<number>();
    for (const client of this.clients.values()) {
      if (!client.controller.terminalFocused) continue;
      const pane = client.view.model.focusedPane();
      if (pane) focused.add(pane.surfaceId);
    }
    this.focusReports.update(focused);
  }

  private mostRecent(among: (client: AttachedClient) => boolean = () => true): AttachedClient | null {
    let best: AttachedClient | null = null;
    for (const client of this.clients.values()) if (among(client) && (!best || client.lastActive > best.lastActive)) best = client;
    return best;
  }

  /** The clients a caller may detach, or null for any (the gate open, or a caller outside every pane). */
  private reachableBy(caller: PeerPlace): ((client: AttachedClient) => boolean) | null {
    if (this.options.core.scripting || caller.kind === 'outside') return null;
    const surface = caller.kind === 'pane' ? caller.surfaceId : null;
    return (client) => surface !== null && client.view.rights.paneSurface === surface;
  }

  list(): ClientInfo[] {
    const now = Date.now();
    return [...this.clients.values()].map((client) => {
      const focus = client.view.model.focusedPane();
      return {
        client_id: client.id,
        active: this.active === client,
        pid: client.hello.pid,
        tty: client.hello.tty,
        cols: client.cols,
        rows: client.rows,
        workspace_id: focus?.workspaceId ?? null,
        tab_id: focus?.tabId ?? null,
        term: client.hello.term,
        colors: client.hello.capabilities.colors,
        attached_at: client.attachedAt,
        idle_ms: now - client.lastActive,
        direct: client.isDirect,
        view_only: client.view.rights.refusal(this.options.core.scripting),
      };
    });
  }

  /**
   * Detaches the named clients (or all); returns the ids detached. Unknown id → client_not_found.
   * `caller` is where the asking process stands: from inside a pane (or unplaced) while the gate
   * is closed, it may detach only clients attached from that same pane (SPEC §8) — another
   * client named is `scripting_disabled` and nothing is detached.
   */
  detach(target: { clientId?: string; all?: boolean; current?: boolean }, caller: PeerPlace = { kind: 'outside', terminal: false }): string[] {
    const reachable = this.reachableBy(caller);
    let chosen: AttachedClient[];
    if (target.clientId !== undefined) {
      const client = this.clients.get(target.clientId);
      if (!client) throw new CorralError('client_not_found', `no attached client ${target.clientId}`, { client_id: target.clientId });
      chosen = [client];
    } else if (target.all) {
      chosen = [...this.clients.values()].filter(reachable ?? (() => true));
    } else {
      // From inside a pane: the client last used, whose user most likely typed the command.
      const current = target.current ? this.mostRecent(reachable ?? undefined) : null;
      chosen = current ? [current] : [...this.clients.values()].filter(reachable ?? (() => true));
    }
    const refused = reachable ? chosen.filter((client) => !reachable(client)) : [];
    if (refused.length > 0 || (reachable && chosen.length === 0)) {
      const names = refused.map((c) => c.id).join(', ');
      throw new CorralError(
        'scripting_disabled',
        `${names ? `client ${names} was not attached from this pane` : 'no client was attached from this pane'}: from inside a pane, ` +
          'detach reaches only the clients attached from that pane while the scripting gate is closed (a terminal detaches itself with prefix d)',
      );
    }
    for (const client of chosen) void this.drop(client, 0, '[detached from corral by `corral detach`: the panes keep running]');
    return chosen.map((c) => c.id);
  }

  /**
   * A mirroring server's screen (SPEC §14): while no client is attached here, this server's
   * tabs are laid out for that screen's main area, framed as its TUI frames panes, so each
   * mirrored pane has the size it is shown at there. An attached client decides otherwise.
   */
  layOutForLink(cols: number, rows: number): boolean {
    if (this.clients.size > 0) return false;
    this.options.core.setViewport(cols, rows, frameInterior);
    return true;
  }

  /** The server is stopping: every client is told why and let go. */
  closeAll(text: string, code = 0): Promise<void> {
    // Resolves when every terminal the server held is handed back and each client told (≤ 0.5 s).
    for (const client of [...this.clients.values()]) void this.drop(client, code, text);
    return Promise.all([...this.ending]).then(() => {});
  }
}
