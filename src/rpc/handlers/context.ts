/** What every RPC handler gets besides its params. */
import type { CorralCore } from '../../core/corral-core.js';
import type { FrameSink } from '../../core/event-bus.js';
import type { ClientInfo, FleetRow, HookMethod, MachineInfo, MethodName, MethodResults, PaneRead, SurfaceRow } from '../../contract/protocol.js';
import type { ReadOptions } from '../../actions/pane-io.js';
import type { Params } from '../params.js';
import type { RequestTimings } from '../request-timings.js';
import type { Socket } from 'node:net';
import type { ClientHello } from '../../contract/frame-protocol.js';
import type { PeerCaller } from '../peer.js';
import type { PeerPlace } from '../../pty/peer-place.js';
import type { PaneView } from '../../terminal/pane-view.js';

/** The server's attached clients, as the RPC layer sees them (implemented in src/tui/client-hub.ts). */
export interface ClientService {
  /** Checks the hello and gets ready to draw; resolves with the new client's id. */
  prepare(hello: ClientHello): Promise<string>;
  /**
   * Hands the connection over after the attach reply was written. `place`: where the
   * attaching process stands (SPEC §8), which decides whether its keys may reach a pane.
   */
  attach(id: string, socket: Socket, hello: ClientHello, place: PeerPlace): Promise<void>;
  list(): ClientInfo[];
  /** `caller`: where the process asking stands; from inside a pane it reaches only its own clients. */
  detach(target: { clientId?: string; all?: boolean; current?: boolean }, caller: PeerPlace): string[];
  /**
   * Lays tabs out for a mirroring server's screen (SPEC §14) unless a client attached here
   * decides the layout; returns whether it applied.
   */
  layOutForLink(cols: number, rows: number): boolean;
}

/** An event of a remote machine's server, tagged with the machine's name (SPEC §14). */
export type RemoteFrame = Record<string, unknown> & { type: string; machine: string };

/** The server's machine links, as the RPC layer sees them (implemented in src/machines/machine-hub.ts). */
export interface MachineService {
  has(name: string): boolean;
  names(): string[];
  list(): MachineInfo[];
  /** Reads machines.toml again and brings the links in line with it. */
  reload(): MachineInfo[];
  /** The machines file, and what is wrong with it (null: nothing). */
  readonly file: string;
  readonly fileProblem: string | null;
  /** One request to a machine's server; its result, or its error. */
  forward(machine: string, method: string, params: Record<string, unknown>, timeoutMs?: number): Promise<unknown>;
  fleetRows(): Promise<FleetRow[]>;
  surfaceRows(): Promise<SurfaceRow[]>;
  /** What this server's mirror of a remote pane (`build/w1:p2`) shows. */
  readMirror(paneId: string, options: ReadOptions): PaneRead;
  /** This server's mirror of a remote pane, to follow it (the web view's `pane.watch`); throws when unknown. */
  mirrorView(paneId: string): PaneView;
  /** A person's keys for a remote pane, through its link (the web view's `web.input`); refused while the link is down. */
  typeInto(paneId: string, data: string): void;
  /** Remote events as they arrive; returns the disposer. */
  onEvent(listener: (frame: RemoteFrame) => void): () => void;
}

/** Notifications a streaming method sends on the caller's connection, with its backlog. */
export interface NotificationStream {
  /** Sends one notification; false once the connection is backed up (wait for `onDrain`). */
  send(method: string, params: unknown): boolean;
  /** Bytes written and not yet taken by the peer. */
  backlog(): number;
  onDrain(listener: () => void): void;
}

export interface RequestContext {
  core: CorralCore;
  /** Aborted when the client's connection closes, ending its waits. */
  signal: AbortSignal;
  /** Where a subscription on this connection writes its frames. */
  sink: FrameSink;
  /** Raw notifications on this connection (the mirror's stream). */
  stream: NotificationStream;
  /** Runs after this request's response was written (subscriptions start there). */
  afterResponse(callback: () => void): void;
  /** Ties a resource's life to the connection. */
  onClose(callback: () => void): void;
  /** Marks the connection as holding a stream until it closes, so it is never closed as idle. */
  holdStream(): void;
  /** Server-side request times per method, for `system.stats`. */
  timings: RequestTimings;
  /** The attached clients, or null on a server that serves none. */
  clients: ClientService | null;
  /** The process that sent this request, as the kernel knows it (SPEC §8). */
  peer: PeerCaller;
  /** The machine links (SPEC §14), or null on a server without them (tests). */
  machines: MachineService | null;
  /**
   * Ends JSON-RPC on this connection after this request's response: the socket goes to
   * `receive` (an attaching client's frames). The peer must wait for the response before it
   * sends anything else; bytes it sent earlier are dropped with the JSON-RPC state.
   */
  takeOver(receive: (socket: Socket) => void): void;
}

/**
 * A handler reads its params as sent (each checks its own, src/rpc/params.ts) and returns its
 * method's result shape from the method table (src/contract/methods.ts).
 */
export type Handler<Result = unknown> = (params: Params, ctx: RequestContext) => Result | Promise<Result>;

/** One handler per method of the table, each typed by the method's result. */
export type MethodHandlers = { [M in MethodName]: Handler<MethodResults[M]> };

/** A group of handlers (one module's share of the table). */
export type HandlerGroup = Partial<MethodHandlers>;

/** The hook notifications' handlers (`ai.*`). */
export type HookHandlers = { [M in HookMethod]: Handler<{ ok: true }> };

/** Handlers as the dispatcher registers them, by method name. */
export type HandlerTable = Record<string, Handler>;
