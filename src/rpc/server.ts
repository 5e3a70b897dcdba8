/**
 * The socket server (SPEC §3): newline-delimited JSON-RPC 2.0 on a unix socket, dispatched
 * with json-rpc-2.0. It enforces the transport limits — line size, connection count, idle
 * partial lines — and turns every thrown error into a JSON-RPC error with a stable
 * `data.code`, so nothing a client sends can take the server down.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { JSONRPCErrorException, JSONRPCServer, type JSONRPCResponse } from 'json-rpc-2.0';
import { LineSplitter } from './ndjson.js';
import { CorralError, ERROR_CODES, EVENT_NOTIFICATION, LIMITS, RPC_CODES, errorCodeForRpc, rpcCodeFor, type ErrorCode } from './protocol.js';
import { asParams } from './params.js';
import type { CorralCore } from '../core/corral-core.js';
import type { Frame, FrameSink } from '../core/event-bus.js';
import type { HandlerTable, RequestContext } from './handlers/context.js';
import { systemHandlers } from './handlers/system.js';
import { structureHandlers } from './handlers/structure.js';
import { paneIoHandlers } from './handlers/pane-io.js';
import { surfaceHandlers } from './handlers/surface.js';
import { eventHandlers } from './handlers/events.js';
import { agentHandlers } from './handlers/agents.js';
import { upHandlers } from './handlers/up.js';
import { withGate } from './gate.js';

/** A subscriber socket with more than this many unsent bytes counts as backed up. */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024;

// Every handler behind the scripting gate, as the method table declares it (SPEC §8).
const HANDLERS: HandlerTable = withGate({
  ...systemHandlers,
  ...structureHandlers,
  ...paneIoHandlers,
  ...surfaceHandlers,
  ...eventHandlers,
  ...agentHandlers,
  ...upHandlers,
});

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
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: { code: rpcCodeFor(code), message, data: { code } } }) + '\n';
}

/** One client connection: framing, dispatch, its subscriptions and waits. */

/**
 * One event goes to every subscriber as the same frame object: serialise it once, not once per
 * subscriber (fan-out to 20 subscribers cost 20 stringifications per event).
 */
const notificationLines = new WeakMap<Frame, string>();
function notificationLine(frame: Frame): string {
  let line = notificationLines.get(frame);
  if (line === undefined) {
    line = JSON.stringify({ jsonrpc: '2.0', method: EVENT_NOTIFICATION, params: frame }) + '\n';
    notificationLines.set(frame, line);
  }
  return line;
}

class Connection {
  private readonly abort = new AbortController();
  private readonly closeCallbacks: Array<() => void> = [];
  private readonly drainListeners: Array<() => void> = [];
  private partialTimer: NodeJS.Timeout | null = null;
  private readonly splitter: LineSplitter;
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly core: CorralCore,
    private readonly dispatcher: JSONRPCServer<RequestContext>,
  ) {
    this.splitter = new LineSplitter({
      maxLineBytes: LIMITS.maxLineBytes,
      onOverflow: () => {
        this.write(errorLine(null, 'invalid_request', `request line exceeds ${LIMITS.maxLineBytes} bytes; closing the connection`));
        this.socket.end();
        this.close();
      },
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('drain', () => this.drainListeners.forEach((listener) => listener()));
    socket.on('close', () => this.close());
    socket.on('error', () => this.close());
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    for (const line of this.splitter.push(chunk)) this.handleLine(line);
    this.armPartialTimer();
  }

  /** Drops a client that left half a line hanging (SPEC §3). */
  private armPartialTimer(): void {
    if (this.partialTimer) clearTimeout(this.partialTimer);
    this.partialTimer = null;
    if (this.splitter.pendingBytes === 0 || this.closed) return;
    this.partialTimer = setTimeout(() => this.socket.destroy(), LIMITS.partialLineTimeoutMs);
    this.partialTimer.unref();
  }

  private handleLine(line: string): void {
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
      afterResponse: (callback) => after.push(callback),
      onClose: (callback) => this.closeCallbacks.push(callback),
    };
    Promise.resolve(this.dispatcher.receive(request as never, ctx))
      .then((response) => {
        const fixed = withDataCode(response);
        if (fixed) this.write(JSON.stringify(fixed) + '\n');
        after.forEach((callback) => callback());
      })
      .catch((error: unknown) => {
        this.write(errorLine(null, 'internal_error', `internal error: ${(error as Error)?.message ?? error}`));
      });
  }

  /** Event frames go out as JSON-RPC notifications on this connection. */
  private readonly sink: FrameSink = {
    write: (frame: Frame) => {
      this.write(notificationLine(frame));
      return this.socket.writableLength < SOCKET_HIGH_WATER_BYTES;
    },
    onDrain: (listener) => this.drainListeners.push(listener),
  };

  private write(data: string): void {
    if (this.closed || this.socket.destroyed) return;
    this.socket.write(data);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.partialTimer) clearTimeout(this.partialTimer);
    this.abort.abort();
    for (const callback of this.closeCallbacks.splice(0)) {
      try {
        callback();
      } catch {
        // Cleanup of one resource must not block the rest.
      }
    }
  }
}

/** Listens on `socketPath` and serves the core until `close()`. */
export class RpcServer {
  private readonly server: Server;
  private readonly dispatcher = buildDispatcher();
  private readonly connections = new Set<Socket>();

  constructor(private readonly core: CorralCore) {
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

  private accept(socket: Socket): void {
    if (this.connections.size >= LIMITS.maxConnections) {
      socket.end(errorLine(null, 'server_busy', `server busy: more than ${LIMITS.maxConnections} connections`));
      return;
    }
    this.connections.add(socket);
    socket.on('close', () => this.connections.delete(socket));
    new Connection(socket, this.core, this.dispatcher);
  }

  /** Stops accepting and ends every connection. */
  close(): Promise<void> {
    for (const socket of this.connections) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}
