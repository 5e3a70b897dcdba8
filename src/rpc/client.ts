/**
 * A small NDJSON JSON-RPC 2.0 client over the server's unix socket (SPEC §3).
 *
 * Hand-rolled rather than json-rpc-2.0's JSONRPCClient: the CLI runs this on every
 * invocation, importing json-rpc-2.0 costs ~3 ms of startup (its CJS index drags in the
 * server half too), and the client side of the protocol is a map of pending ids.
 */
import { connect as netConnect } from 'node:net';
import type { Duplex } from 'node:stream';
import { dirname } from 'node:path';
import { assertPrivateDir } from '../socket-dir.js';
import { orphanHint } from '../orphan-servers.js';
import { CorralError, errorCodeForRpc, type ErrorCode, type MethodCaller, type MethodName, type MethodParams, type MethodResults, type MethodWithoutRequiredParams } from '../contract/protocol.js';
import { LineSplitter, encodeLine } from './ndjson.js';

/** Limits on what the client accepts from the server. */
const CLIENT_LIMITS = {
  /** Replies can be large (10,000 lines of ANSI scrollback); this only stops a runaway peer. */
  maxLineBytes: 256 * 1024 * 1024,
} as const;

/** The `error` member of a JSON-RPC response. */
export interface RpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** Builds a CorralError from a JSON-RPC error, preferring the stable `data.code`. */
export function errorFromRpc(error: RpcErrorObject): CorralError {
  const data = isRecord(error.data) ? error.data : {};
  const code =
    typeof data.code === 'string' ? (data.code as ErrorCode) : (errorCodeForRpc(error.code) ?? 'internal_error');
  const { code: _ignored, ...rest } = data;
  return new CorralError(code, String(error.message ?? code), rest);
}

export type NotificationHandler = (method: string, params: unknown) => void;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/** One connection to a corral server; many requests may be in flight at once. */
export class RpcClient implements MethodCaller {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly notificationHandlers = new Set<NotificationHandler>();
  private readonly closeHandlers = new Set<(error?: CorralError) => void>();
  private closed = false;
  /** Params every request carries (`machine`, from `corral --machine NAME`). */
  private defaults: Record<string, unknown> = {};

  private constructor(
    private readonly socket: Duplex,
    readonly socketPath: string,
  ) {
    const splitter = new LineSplitter({
      maxLineBytes: CLIENT_LIMITS.maxLineBytes,
      onOverflow: () => this.fail(new CorralError('internal_error', 'reply from server exceeds the client line limit')),
    });
    socket.on('data', (chunk: Buffer) => {
      for (const line of splitter.push(chunk)) this.handleLine(line);
    });
    socket.on('error', (err) => this.fail(new CorralError('internal_error', `socket error: ${err.message}`)));
    socket.on('close', () => this.fail(new CorralError('internal_error', 'the corral server closed the connection')));
  }

  /**
   * Speaks to a server over any byte stream: a machine link's ssh child (SPEC §14), whose
   * stdio carries the socket's protocol through `corral bridge`. `label` names it in errors.
   */
  static over(stream: Duplex, label: string): RpcClient {
    return new RpcClient(stream, label);
  }

  /** Connects to the server at `socketPath`; a missing or dead socket is `server_not_running`. */
  static connect(socketPath: string): Promise<RpcClient> {
    return new Promise((resolve, reject) => {
      const socket = netConnect(socketPath);
      const onError = (err: NodeJS.ErrnoException): void => {
        socket.destroy();
        reject(connectError(socketPath, err));
      };
      socket.once('error', onError);
      socket.once('connect', () => {
        socket.off('error', onError);
        // Checked once something answers, before a byte is sent: a missing server stays
        // server_not_running, a socket another user could have planted is refused (SPEC §8).
        try {
          assertPrivateDir(dirname(socketPath));
        } catch (error) {
          socket.destroy();
          reject(error);
          return;
        }
        resolve(new RpcClient(socket, socketPath));
      });
    });
  }

  /**
   * Calls a method of the table (src/contract/methods.ts) with its params and resolves with
   * its result shape; a JSON-RPC error rejects as a CorralError. Params may be left out where
   * the method takes none that are required.
   */
  call<M extends MethodName>(method: M, params: MethodParams[M]): Promise<MethodResults[M]>;
  call<M extends MethodWithoutRequiredParams>(method: M): Promise<MethodResults[M]>;
  call<M extends MethodName>(method: M, params: object = {}): Promise<MethodResults[M]> {
    // The server checks every param and answers with the method's result shape.
    return this.request(method, params) as Promise<MethodResults[M]>;
  }

  /** Sends any request by name, untyped (`call` is the typed way for the table's methods). */
  request(method: string, params: object = {}): Promise<unknown> {
    if (this.closed) return Promise.reject(new CorralError('internal_error', 'connection is closed'));
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.socket.write(encodeLine({ jsonrpc: '2.0', id, method, params: stripUndefined({ ...this.defaults, ...params }) }));
    });
  }

  /** Sends a notification: no id, no answer (a mirrored pane's keystrokes: one packet each way, not two). */
  notify(method: string, params: object = {}): void {
    if (!this.closed) this.socket.write(encodeLine({ jsonrpc: '2.0', method, params: stripUndefined({ ...this.defaults, ...params }) }));
  }

  /** Every later request goes to machine `name` (SPEC §14: `corral --machine NAME <verb>`). */
  forMachine(name: string): this {
    this.defaults = { ...this.defaults, machine: name };
    return this;
  }

  /** Registers a handler for server notifications (e.g. events); returns a disposer. */
  onNotification(handler: NotificationHandler): () => void {
    this.notificationHandlers.add(handler);
    return () => this.notificationHandlers.delete(handler);
  }

  /** Registers a handler for the end of the connection (error set unless `close()` ended it). */
  onClose(handler: (error?: CorralError) => void): () => void {
    this.closeHandlers.add(handler);
    return () => this.closeHandlers.delete(handler);
  }

  /** Closes the connection; pending calls reject. */
  close(): void {
    if (this.closed) return;
    this.fail(undefined);
    this.socket.end();
  }

  private handleLine(line: string): void {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.fail(new CorralError('parse_error', 'the server sent malformed JSON'));
    }
    if (!isRecord(message)) return;
    if (typeof message.method === 'string' && message.id === undefined) {
      for (const handler of this.notificationHandlers) handler(message.method, message.params);
      return;
    }
    const error = isRecord(message.error) ? errorFromRpc(message.error as unknown as RpcErrorObject) : undefined;
    if (typeof message.id !== 'number' || !this.pending.has(message.id)) {
      // An error with id null answers no request in particular (server_busy, parse errors): it ends them all.
      if (error && message.id === null) this.fail(error);
      return;
    }
    const pending = this.pending.get(message.id)!;
    this.pending.delete(message.id);
    if (error) pending.reject(error);
    else pending.resolve(message.result);
  }

  private fail(error: CorralError | undefined): void {
    if (this.closed) return;
    this.closed = true;
    const reason = error ?? new CorralError('internal_error', 'connection closed');
    for (const { reject } of this.pending.values()) reject(reason);
    this.pending.clear();
    for (const handler of this.closeHandlers) handler(error);
    this.socket.destroy();
  }
}

/** Connects to the server at `socketPath` (see RpcClient.connect). */
export function connect(socketPath: string): Promise<RpcClient> {
  return RpcClient.connect(socketPath);
}

function connectError(socketPath: string, err: NodeJS.ErrnoException): CorralError {
  if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ENOTSOCK') {
    return new CorralError(
      'server_not_running',
      `no corral server at ${socketPath}; start one with \`corral server\` or \`corral\`${err.code === 'ENOENT' ? orphanHint(dirname(socketPath)) : ''}`,
      { socket: socketPath },
    );
  }
  return new CorralError('internal_error', `cannot connect to ${socketPath}: ${err.message}`, { socket: socketPath });
}

function stripUndefined(params: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(params)) if (value !== undefined) out[key] = value;
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
