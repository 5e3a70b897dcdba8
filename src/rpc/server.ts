/**
 * The socket server (SPEC §3): newline-delimited JSON-RPC 2.0 on a unix socket, dispatched
 * with json-rpc-2.0. It enforces the transport limits — line size, connection count, idle
 * partial lines — and turns every thrown error into a JSON-RPC error with a stable
 * `data.code`, so nothing a client sends can take the server down.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { JSONRPCErrorException, JSONRPCServer, type JSONRPCResponse } from 'json-rpc-2.0';
import { LineSplitter } from './ndjson.js';
import { CorralError, ERROR_CODES, EVENT_NOTIFICATION, LIMITS, RPC_CODES, errorCodeForRpc, rpcCodeFor, type ErrorCode } from '../contract/protocol.js';
import { asParams } from './params.js';
import { requestShapeProblem } from './request-shape.js';
import type { CorralCore } from '../core/corral-core.js';
import type { Frame, FrameSink } from '../core/event-bus.js';
import type { ClientService, HandlerTable, RequestContext } from './handlers/context.js';
import { HANDLERS as UNGATED, checkHandlerTable } from './handlers/table.js';
import { withGate } from './gate.js';
import { RequestTimings } from './request-timings.js';
import { peerOf, type PeerCaller } from './peer.js';
import { machineRoute, tagRows } from './machine-routing.js';
import type { MachineService, NotificationStream } from './handlers/context.js';

/** A subscriber socket with more than this many unsent bytes counts as backed up. */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024;

// A handler for every method of the table and none without an entry, checked once at start-up;
// every handler then sits behind the scripting gate, as the table declares it (SPEC §8).
checkHandlerTable(UNGATED);
const HANDLERS: HandlerTable = withGate(UNGATED);

/** Converts anything thrown by a handler into a JSON-RPC error with a `data.code`. */
function toRpcError(error: unknown): JSONRPCErrorException {
  if (error instanceof CorralError) {
    return new JSONRPCErrorException(error.message, rpcCodeFor(error.code), { ...error.data, code: error.code });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new JSONRPCErrorException(`internal error: ${message}`, RPC_CODES.internalError, { code: 'internal_error' });
}

/** json-rpc-2.0 answers some errors itself (parse, unknown method); give those a data.code too. */
function withDataCode(response: JSONRPCResponse | JSONRPCResponse[] | null) {
  const list = Array.isArray(response) ? response : response ? [response] : [];
  for (const item of list) {
    if (item.error) {
      const data = (item.error.data ?? {}) as Record<string, unknown>;
      if (typeof data.code !== 'string' || !(ERROR_CODES as readonly string[]).includes(data.code)) {
        item.error.data = { ...data, code: errorCodeForRpc(item.error.code) ?? 'internal_error' };
      }
    }
  }
  return response;
}

/** The JSON-RPC dispatcher with every corral method registered. */
function buildDispatcher(): JSONRPCServer<RequestContext> {
  // errorListener: json-rpc-2.0 logs every handler error to the console by default.
  const server = new JSONRPCServer<RequestContext>({ errorListener: () => {} });
  for (const [method, handler] of Object.entries(HANDLERS)) {
    server.addMethod(method, async (params, ctx) => {
      try {
        return await handler(asParams(params), ctx);
      } catch (error) {
        throw toRpcError(error);
      }
    });
  }
  return server;
}

function errorLine(id: unknown, code: ErrorCode, message: string): string {
  return JSON.stringify(errorResponse(id, code, message)) + '\n';
}

function errorResponse(id: unknown, code: ErrorCode, message: string): JSONRPCResponse {
  return { jsonrpc: '2.0', id: (id ?? null) as never, error: { code: rpcCodeFor(code), message, data: { code } } };
}

/** Transport timings a test may shorten (the defaults are SPEC §3's). */
export interface TransportOptions {
  /** Close a connection that sent nothing for this long and holds no stream or wait. */
  idleConnectionMs: number;
  /** Close a connection that left half a line unfinished for this long. */
  partialLineMs: number;
}

/**
 * The defaults, with `CORRAL_TEST_IDLE_CONNECTION_MS` and `CORRAL_TEST_PARTIAL_LINE_MS`
 * honoured so an integration test can watch those closes without waiting a minute or half of
 * one. Whoever sets a server's environment already controls it; a shorter time only closes
 * connections sooner.
 */
export function transportOptions(env: NodeJS.ProcessEnv = process.env): TransportOptions {
  const shortened = (name: string, fallback: number) => {
    const ms = Number(env[name]);
    return Number.isInteger(ms) && ms > 0 ? ms : fallback;
  };
  return {
    idleConnectionMs: shortened('CORRAL_TEST_IDLE_CONNECTION_MS', LIMITS.idleConnectionMs),
    partialLineMs: shortened('CORRAL_TEST_PARTIAL_LINE_MS', LIMITS.partialLineTimeoutMs),
  };
}

/**
 * One event goes to every subscriber as the same frame object: serialise and encode it once,
 * not once per subscriber, and hand every socket the same bytes (a string would be encoded to
 * UTF-8 again by each socket's write).
 */
const notificationLines = new WeakMap<Frame, Buffer>();
const CONTROL_FRAMES: ReadonlySet<string> = new Set(['subscribed', 'heartbeat', 'dropped']);
function notificationLine(frame: Frame): Buffer {
  let line = notificationLines.get(frame);
  if (line === undefined) {
    // Every event says which machine it is about (SPEC §14): a remote one carries its name, this one's null.
    const params = 'machine' in frame || CONTROL_FRAMES.has(frame.type) ? frame : { ...frame, machine: null };
    line = Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: EVENT_NOTIFICATION, params }) + '\n');
    notificationLines.set(frame, line);
  }
  return line;
}

/**
 * One client connection: framing, dispatch, its subscriptions and waits.
 *
 * Nothing a client does here may freeze or bloat the server (SPEC §3). Requests are taken off
 * a queue one per event-loop turn, so a pipelined read's reply is already in the socket's
 * write queue before the next read runs, and other connections get turns in between. While
 * more than `maxQueuedReplyBytes` of replies wait unread, no further request is started and
 * the socket is paused (also while a MiB of requests waits), so the kernel's buffer, not the
 * server's heap, holds whatever else the client sends. At most `maxRequestsInFlight` requests
 * of one connection run at once; the rest wait their turn. A connection that sent nothing
 * for `idleConnectionMs` and holds no stream or running request is closed.
 */
class Connection {
  private readonly abort = new AbortController();
  private readonly closeCallbacks: Array<() => void> = [];
  private readonly drainListeners: Array<() => void> = [];
  private partialTimer: NodeJS.Timeout | null = null;
  private readonly idleTimer: NodeJS.Timeout;
  private readonly splitter: LineSplitter;
  /** Complete request lines not started yet (bounded: the socket pauses while they wait). */
  private readonly queue: string[] = [];
  private queuedChars = 0;
  private pumpScheduled = false;
  private inFlight = 0;
  /** Streams (event subscriptions, which last until the connection closes); never idle with one. */
  private streams = 0;
  private paused = false;
  private closed = false;
  /** Who connected, from the kernel (SPEC §8), read once at accept. */
  private readonly peer: PeerCaller & { release(): void };

  constructor(
    private readonly socket: Socket,
    private readonly core: CorralCore,
    private readonly dispatcher: JSONRPCServer<RequestContext>,
    private readonly options: TransportOptions,
    private readonly clients: ClientService | null,
    private readonly timings: RequestTimings,
    /** Runs as each request starts. */
    private readonly onRequest: () => void,
    private readonly machines: MachineService | null,
  ) {
    // At accept, before the peer can exit: its pid (and pidfd) as of connect().
    this.peer = peerOf(socket, core);
    this.splitter = new LineSplitter({
      maxLineBytes: LIMITS.maxLineBytes,
      onOverflow: () => {
        this.write(errorLine(null, 'invalid_request', `request line exceeds ${LIMITS.maxLineBytes} bytes; closing the connection`));
        this.socket.end();
        this.close();
      },
    });
    this.idleTimer = setTimeout(() => this.onIdle(), options.idleConnectionMs);
    this.idleTimer.unref();
    socket.on('data', this.onDataListener);
    socket.on('drain', this.onDrainListener);
    socket.on('close', this.onCloseListener);
    socket.on('error', this.onCloseListener);
  }

  private readonly onDataListener = (chunk: Buffer) => this.onData(chunk);
  private readonly onDrainListener = () => {
    // A client that reads its backlog is not idle, even if it sends nothing meanwhile.
    this.idleTimer.refresh();
    this.drainListeners.forEach((listener) => listener());
    this.pump();
  };
  private readonly onCloseListener = () => this.close();

  /** Stops speaking JSON-RPC and gives the socket to `receive` (client.attach). */
  private handOver(receive: (socket: Socket) => void): void {
    if (this.closed || this.socket.destroyed) return;
    this.close();
    this.socket.off('data', this.onDataListener);
    this.socket.off('drain', this.onDrainListener);
    this.socket.off('close', this.onCloseListener);
    this.socket.off('error', this.onCloseListener);
    if (this.paused) this.socket.resume();
    receive(this.socket);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    this.idleTimer.refresh();
    for (const line of this.splitter.push(chunk)) {
      this.queue.push(line);
      this.queuedChars += line.length;
    }
    this.armPartialTimer();
    this.pump();
  }

  /** Drops a client that left half a line hanging (SPEC §3). */
  private armPartialTimer(): void {
    if (this.partialTimer) clearTimeout(this.partialTimer);
    this.partialTimer = null;
    if (this.splitter.pendingBytes === 0 || this.closed) return;
    this.partialTimer = setTimeout(() => this.socket.destroy(), this.options.partialLineMs);
    this.partialTimer.unref();
  }

  /** Closes a connection that is only holding a slot; one with a stream or a running request stays. */
  private onIdle(): void {
    if (this.closed) return;
    if (this.streams > 0 || this.inFlight > 0) this.idleTimer.refresh();
    else this.socket.destroy();
  }

  /** Replies wait unread past the bound: the client is not reading. */
  private get repliesBackedUp(): boolean {
    return this.socket.writableLength >= LIMITS.maxQueuedReplyBytes;
  }

  /** Starts the next queued request if the connection has room, then pauses or resumes reading. */
  private pump(): void {
    if (this.closed || this.pumpScheduled) return;
    if (this.queue.length > 0 && !this.repliesBackedUp && this.inFlight < LIMITS.maxRequestsInFlight) {
      const line = this.queue.shift()!;
      this.queuedChars -= line.length;
      this.handleLine(line);
      if (this.queue.length > 0) {
        // One request per turn: the reply of a quick one is queued (and counted) before the next starts.
        this.pumpScheduled = true;
        setImmediate(() => {
          this.pumpScheduled = false;
          this.pump();
        });
      }
    }
    // Stop reading while replies pile up unread, or while a MiB of requests waits its turn
    // (behind 64 running waits, say); the kernel's socket buffer then holds the rest.
    const shouldPause = (this.queue.length > 0 && this.repliesBackedUp) || this.queuedChars >= LIMITS.maxLineBytes;
    if (shouldPause !== this.paused) {
      this.paused = shouldPause;
      if (shouldPause) this.socket.pause();
      else this.socket.resume();
    }
  }

  private handleLine(line: string): void {
    const start = performance.now();
    const cpuStart = process.cpuUsage();
    let request: unknown;
    try {
      request = JSON.parse(line);
    } catch (error) {
      this.write(errorLine(null, 'parse_error', `parse error: ${(error as Error).message}`));
      return;
    }
    const after: Array<() => void> = [];
    const ctx: RequestContext = {
      core: this.core,
      signal: this.abort.signal,
      sink: this.sink,
      stream: this.stream,
      afterResponse: (callback) => after.push(callback),
      onClose: (callback) => this.closeCallbacks.push(callback),
      holdStream: () => {
        this.streams++;
      },
      clients: this.clients,
      timings: this.timings,
      peer: this.peer,
      machines: this.machines,
      takeOver: (receive) => after.push(() => this.handOver(receive)),
    };
    this.inFlight++;
    this.onRequest();
    this.dispatch(request, ctx)
      .then((response) => {
        if (response) this.write(JSON.stringify(response) + '\n');
        // Parse to reply written, the server's own time (a batch is not one method's time).
        if (!Array.isArray(request)) {
          const cpu = process.cpuUsage(cpuStart);
          this.timings.record((request as { method?: unknown } | null)?.method, performance.now() - start, (cpu.user + cpu.system) / 1000);
        }
        after.forEach((callback) => callback());
      })
      .catch((error: unknown) => {
        this.write(errorLine(null, 'internal_error', `internal error: ${(error as Error)?.message ?? error}`));
      })
      .finally(() => {
        this.inFlight--;
        if (this.closed) return; // closed, or handed over to an attached client
        this.idleTimer.refresh();
        this.pump();
      });
  }

  /**
   * Answers one parsed message: a request, a notification, or a batch. Malformed messages are
   * -32600 before json-rpc-2.0 sees them. A batch runs its requests one after another and stops
   * at `maxQueuedReplyBytes` of replies (the rest answer `server_busy`), because its reply is
   * one line that must be built whole.
   */
  private async dispatch(message: unknown, ctx: RequestContext): Promise<JSONRPCResponse | JSONRPCResponse[] | null> {
    if (!Array.isArray(message) || message.length === 0) {
      const problem = Array.isArray(message) ? null : requestShapeProblem(message);
      if (problem !== null) return errorResponse(null, 'invalid_request', problem);
      return this.receive(message, ctx);
    }
    const responses: JSONRPCResponse[] = [];
    let bytes = 0;
    for (const item of message) {
      const problem = requestShapeProblem(item);
      if (problem !== null) {
        responses.push(errorResponse(null, 'invalid_request', problem));
        continue;
      }
      const id = (item as { id?: unknown }).id;
      if (bytes >= LIMITS.maxQueuedReplyBytes) {
        if (id !== undefined) responses.push(errorResponse(id, 'server_busy', `server busy: this batch's replies passed ${LIMITS.maxQueuedReplyBytes} bytes; send the rest again`));
        continue;
      }
      const response = (await this.receive(item, ctx)) as JSONRPCResponse | null;
      if (response) {
        responses.push(response);
        bytes += JSON.stringify(response).length;
      }
    }
    return responses.length > 0 ? responses : null;
  }

  /**
   * One request: answered here, or — when it names another machine (`machine` param, a
   * `NAME/` selector) — forwarded to that machine's server and its answer returned (SPEC §14).
   */
  private async receive(message: unknown, ctx: RequestContext): Promise<JSONRPCResponse | JSONRPCResponse[] | null> {
    const { id, method, params } = message as { id?: unknown; method: string; params?: unknown };
    let route;
    try {
      route = machineRoute(method, params, this.machines);
    } catch (error) {
      return id === undefined ? null : { jsonrpc: '2.0', id: id as never, error: toRpcError(error).toObject() };
    }
    if (route === null) return withDataCode(await this.dispatcher.receive(message as never, ctx)) as JSONRPCResponse | JSONRPCResponse[] | null;
    try {
      const result = tagRows(method, route.machine, await this.machines!.forward(route.machine, method, route.params, route.timeoutMs));
      return id === undefined ? null : { jsonrpc: '2.0', id: id as never, result };
    } catch (error) {
      return id === undefined ? null : { jsonrpc: '2.0', id: id as never, error: toRpcError(error).toObject() };
    }
  }

  /** A streaming method's own notifications (the mirror), with the socket's backlog for its bound. */
  private readonly stream: NotificationStream = {
    send: (method, params) => {
      this.write(JSON.stringify({ jsonrpc: '2.0', method, params }) + '\n');
      return this.socket.writableLength < SOCKET_HIGH_WATER_BYTES;
    },
    backlog: () => this.socket.writableLength,
    onDrain: (listener) => this.drainListeners.push(listener),
  };

  /** Event frames go out as JSON-RPC notifications on this connection. */
  private readonly sink: FrameSink = {
    write: (frame: Frame) => {
      this.write(notificationLine(frame));
      return this.socket.writableLength < SOCKET_HIGH_WATER_BYTES;
    },
    onDrain: (listener) => this.drainListeners.push(listener),
  };

  private write(data: string | Buffer): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(data);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.partialTimer) clearTimeout(this.partialTimer);
    clearTimeout(this.idleTimer);
    this.queue.length = 0;
    this.queuedChars = 0;
    this.abort.abort();
    this.peer.release();
    for (const callback of this.closeCallbacks.splice(0)) {
      try {
        callback();
      } catch {
        // Cleanup of one resource must not block the rest.
      }
    }
  }
}

/** How long a refused (server_busy) client gets to read its error before its socket is destroyed. */
const REFUSED_LINGER_MS = 1000;

/** Listens on `socketPath` and serves the core until `close()`. */
export class RpcServer {
  private server: Server;
  private readonly dispatcher = buildDispatcher();
  private readonly timings = new RequestTimings();
  private requestListener: () => void = () => {};
  /** Served connections; they count against `maxConnections`. */
  private readonly connections = new Set<Socket>();
  /** Every open socket, refused ones included, so `close()` can end them all. */
  private readonly sockets = new Set<Socket>();

  constructor(
    private readonly core: CorralCore,
    private readonly options: TransportOptions = transportOptions(),
    private readonly clients: ClientService | null = null,
    private readonly machines: MachineService | null = null,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  listen(socketPath: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(socketPath, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
  }

  /**
   * Listens on `socketPath` with a new listener, leaving every open connection as it is: how a
   * server whose socket file was deleted is reached again. Returns the old listener's close,
   * to call once the new socket is in place — closing unlinks the name the old one was bound
   * to, which bindSocket reuses for the new one until it is linked into place.
   */
  async listenAgain(socketPath: string): Promise<() => void> {
    const old = this.server;
    this.server = createServer((socket) => this.accept(socket));
    try {
      await this.listen(socketPath);
    } catch (error) {
      this.server = old;
      throw error;
    }
    return () => old.close();
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.connections.delete(socket);
    });
    if (this.connections.size >= LIMITS.maxConnections) {
      socket.on('error', () => socket.destroy());
      socket.end(errorLine(null, 'server_busy', `server busy: more than ${LIMITS.maxConnections} connections`));
      // A client that never closes its side must not keep the socket (or shutdown) waiting.
      setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
      return;
    }
    this.connections.add(socket);
    new Connection(socket, this.core, this.dispatcher, this.options, this.clients, this.timings, () => this.requestListener(), this.machines);
  }

  /** `listener` runs as each request starts (the idle trim's sign of activity). */
  onRequest(listener: () => void): void {
    this.requestListener = listener;
  }

  /** Stops accepting and destroys every open socket, so shutdown never waits on a client. */
  close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    return closed;
  }
}
