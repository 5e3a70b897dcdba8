/**
 * The thin client (SPEC §1, docs/clients.md): `corral` and `corral attach`. It connects to
 * the session's server — starting one in the background first for `corral` when none
 * answers — sends its hello as an NDJSON `client.attach`, then relays: raw terminal bytes
 * and size changes in, frame bytes out. It puts its own terminal in raw mode and restores it
 * however it ends. Node builtins and lean modules only: never Ink, React or xterm (the build
 * checks the CLI bundles), so it starts about as fast as a CLI verb.
 */
import { readlinkSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { CorralError } from '../contract/protocol.js';
import { dirname } from 'node:path';
import { resolveSocketPath } from '../paths.js';
import { orphanHint } from '../orphan-servers.js';
import { assertPrivateDir } from '../socket-dir.js';
import { startBackgroundServer } from '../server/background.js';
import { enterTerminalMode, type TerminalMode } from '../tui/terminal-mode.js';
import { detectCapabilities } from './capabilities.js';
import { directClaim } from './direct-claim.js';
import { CLIENT_PROTOCOL_VERSION, MSG, MessageReader, message, readExit, resizePayload, writeMessage, type ClientHello, type DirectClaim } from '../contract/frame-protocol.js';

export interface ClientOptions {
  socket?: string;
  session?: string;
  /** `corral`: start a background server when none answers. `corral attach`: do not. */
  startServer: boolean;
  /** `corral --fresh`: the server started now does not restore the saved session (SPEC §13). */
  fresh?: boolean;
}

/** Size used when stdout is not a terminal (tests pipe it). */
const DEFAULT_SIZE = { cols: 120, rows: 40 } as const;

/** How long the attach handshake may take before the server counts as not answering. */
const HANDSHAKE_TIMEOUT_MS = 10_000;

/** The reply line to `client.attach` is small; anything longer is not a corral server. */
const MAX_REPLY_BYTES = 64 * 1024;

function connectTo(socketPath: string): Promise<Socket | null> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    socket.once('connect', () => {
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', () => resolve(null));
  });
}

/** Sends the hello and waits for the reply line; what came after it (binary) is returned too. */
function handshake(socket: Socket, hello: ClientHello): Promise<{ clientId: string; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => fail(new CorralError('internal_error', 'the server did not answer the attach request')), HANDSHAKE_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.destroy();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const newline = received.indexOf(0x0a);
      if (newline === -1) {
        if (received.length > MAX_REPLY_BYTES) fail(new CorralError('internal_error', 'the server sent no attach reply'));
        return;
      }
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      let reply: { result?: { client_id?: string }; error?: { message?: string; data?: { code?: string } } };
      try {
        reply = JSON.parse(received.subarray(0, newline).toString('utf8'));
      } catch {
        return fail(new CorralError('internal_error', 'the server sent an unreadable attach reply'));
      }
      if (reply.error || typeof reply.result?.client_id !== 'string') {
        const code = reply.error?.data?.code ?? 'internal_error';
        return fail(new CorralError(code as never, reply.error?.message ?? 'attach refused'));
      }
      resolve({ clientId: reply.result.client_id, rest: received.subarray(newline + 1) });
    };
    const onClose = () => fail(new CorralError('server_not_running', 'the server closed the connection while attaching'));
    socket.on('data', onData);
    socket.once('close', onClose);
    socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'client.attach', params: hello }) + '\n');
  });
}

function terminalSize(stdout: NodeJS.WriteStream): { cols: number; rows: number } {
  return { cols: stdout.columns || DEFAULT_SIZE.cols, rows: stdout.rows || DEFAULT_SIZE.rows };
}

function ttyName(): string {
  // /proc/self/fd/0 names the terminal on Linux; elsewhere the tty is reported unknown.
  try {
    return process.stdin.isTTY ? readlinkSync('/proc/self/fd/0') : '';
  } catch {
    return '';
  }
}

/** Finds or starts the server, attaches, relays until detached; resolves with the exit code. */
export async function runClient(opts: ClientOptions): Promise<number> {
  const env = process.env;
  const socketPath = resolveSocketPath({ socket: opts.socket, session: opts.session });
  const pane = env.CORRAL_PANE_ID;
  if (pane && !opts.socket && env.CORRAL_SOCKET && resolveSocketPath({}, { CORRAL_SOCKET: env.CORRAL_SOCKET }) === socketPath) {
    // Like tmux refusing to nest: the client would show itself inside itself.
    throw new CorralError('internal_error', `a corral server is already running on ${socketPath}; you are inside corral pane ${pane} — to run a nested corral, give it its own --socket PATH (or unset CORRAL_SOCKET)`);
  }
  let socket = await connectTo(socketPath);
  if (!socket) {
    if (!opts.startServer) throw new CorralError('server_not_running', `no corral server is running on ${socketPath}; start one with \`corral\`${orphanHint(dirname(socketPath))}`);
    await startBackgroundServer(socketPath, { exitEmpty: true, fresh: opts.fresh, session: opts.session });
    socket = await connectTo(socketPath);
    if (!socket) throw new CorralError('server_not_running', `the server on ${socketPath} stopped answering`);
  }
  // Keystrokes go where the socket leads: only through a directory nobody else controls (SPEC §8).
  try {
    assertPrivateDir(dirname(socketPath));
  } catch (error) {
    socket.destroy();
    throw error;
  }
  const stdin = process.stdin;
  const stdout = process.stdout;
  const capabilities = detectCapabilities(env);
  const hello: ClientHello = {
    protocol: CLIENT_PROTOCOL_VERSION,
    ...terminalSize(stdout),
    pid: process.pid,
    tty: ttyName(),
    cwd: process.cwd(),
    term: env.TERM ?? '',
    colorterm: env.COLORTERM ?? '',
    capabilities,
  };
  const { rest } = await handshake(socket, hello);
  const mode = enterTerminalMode(stdin, stdout, capabilities);
  return relay(socket, rest, mode, directClaim(socketPath, env));
}

/** How long a client whose tty the server holds waits for the server to hand it back before restoring anyway. */
const HANDBACK_TIMEOUT_MS = 1500;

/**
 * Stops this process reading its terminal, so the server (which holds it now) gets every key.
 * `pause()` alone leaves libuv reading into the stream's buffer; the handle's `readStop` is
 * what stops the reads. Whatever was already read is returned, to go over the socket first.
 */
function stopReading(stdin: NodeJS.ReadStream): Buffer[] {
  stdin.pause();
  const pending: Buffer[] = [];
  while (stdin.readableLength > 0) {
    const chunk = stdin.read() as Buffer | null;
    if (chunk === null) break;
    pending.push(chunk);
  }
  (stdin as unknown as { _handle?: { readStop?(): number } })._handle?.readStop?.();
  return pending;
}

/**
 * Relays between the terminal and the server until either side ends. With a `claim`, offers
 * the terminal to the server first; once the server says `ready`, this process stops reading
 * the terminal and the server reads and writes it itself (docs/clients.md, "Direct tty").
 */
function relay(socket: Socket, first: Buffer, mode: TerminalMode, claim: DirectClaim | null): Promise<number> {
  const stdin = process.stdin;
  const stdout = process.stdout;
  return new Promise<number>((resolve) => {
    let finished = false;
    /** The server holds the terminal: it must hand it back (flushed, closed) before the restore. */
    let direct = false;
    let exitNote: { code: number; text: string } | null = null;
    const finish = (code: number, text: string) => {
      if (finished) return;
      finished = true;
      mode.restore();
      stdin.off('data', onInput);
      stdin.pause();
      socket.destroy();
      if (text) {
        try {
          (code === 0 ? stdout : process.stderr).write(`${text}\n`);
        } catch {
          // No terminal left to tell.
        }
      }
      resolve(code);
    };
    const send = (type: number, payload?: Buffer) => {
      if (!socket.destroyed) socket.write(message(type, payload));
    };
    const onInput = (chunk: Buffer) => {
      if (!socket.destroyed) writeMessage(socket, MSG.input, chunk);
    };
    const reader = new MessageReader();
    const onData = (chunk: Buffer) => {
      let messages;
      try {
        messages = reader.push(chunk);
      } catch (error) {
        return finish(1, `corral: lost the server: ${(error as Error).message}`);
      }
      for (const { type, payload } of messages) {
        if (type === MSG.output) {
          // Backpressure: a slow terminal (ssh over a thin link) stops the socket, the server holds frames.
          if (!stdout.write(payload)) {
            socket.pause();
            stdout.once('drain', () => socket.resume());
          }
        } else if (type === MSG.hold && !direct) {
          // A pane this client pastes into is not reading: the terminal keeps the rest, in order.
          stdin.pause();
        } else if (type === MSG.resume && !direct) {
          stdin.resume();
        } else if (type === MSG.exit) {
          exitNote = readExit(payload);
        } else if (type === MSG.ready && claim && !direct) {
          // Everything the server sent before `ready` is on the terminal already (a tty stdout
          // writes synchronously); keys read so far go over the socket ahead of `handed`.
          direct = true;
          stdin.off('data', onInput);
          for (const chunk of stopReading(stdin)) onInput(chunk);
          send(MSG.handed);
        }
      }
    };
    socket.on('data', onData);
    socket.on('error', () => {});
    socket.on('close', () => {
      if (exitNote) finish(exitNote.code, exitNote.text);
      else finish(1, 'corral: the server went away (it was stopped or crashed); your panes may be gone — see `corral sessions`');
    });
    if (first.length > 0) onData(first);
    stdin.on('data', onInput);
    stdin.resume();
    if (claim) send(MSG.claim, Buffer.from(JSON.stringify(claim), 'utf8'));
    const onResize = () => {
      const size = terminalSize(stdout);
      send(MSG.resize, resizePayload(size.cols, size.rows));
    };
    stdout.on('resize', onResize);
    // Leaving on a signal detaches: the server drops this client, panes keep running.
    for (const signal of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
      process.once(signal, () => {
        send(MSG.detach);
        // The server is writing to this terminal: restoring now could be followed by a late
        // frame. It hands the terminal back and then closes; the timer covers a server that cannot.
        if (direct && !socket.destroyed) setTimeout(() => finish(0, ''), HANDBACK_TIMEOUT_MS).unref();
        else finish(0, '');
      });
    }
    // The terminal went away (its window closed): writes fail with EIO. That is a hang-up.
    for (const stream of [stdin, stdout]) stream.on('error', () => finish(0, ''));
  });
}
