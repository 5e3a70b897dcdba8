/**
 * The attached client's wire format (docs/clients.md). A client opens its own connection,
 * sends one NDJSON request `client.attach` with its hello, reads the one-line reply, and from
 * then on both sides speak length-prefixed binary messages on that connection:
 *
 *   type (1 byte) · length (4 bytes, unsigned big-endian) · payload (length bytes)
 *
 * Frame bytes are never JSON-encoded: the server writes a 5-byte header and the frame's own
 * buffer (one writev, at once: `writeMessage`), the client writes the payload slice it received
 * straight to its terminal. Pure module: node builtins only, shared by the thin client and
 * the server.
 */

/** Bumped when the framing or a message's payload changes incompatibly. */
export const CLIENT_PROTOCOL_VERSION = 1;

/** Message types. Client → server: input, resize, detach, claim, handed. Server → client: ready, hold, resume, output, exit. */
export const MSG = {
  /** Raw bytes the client's terminal sent (keys, mouse, paste, focus reports). */
  input: 1,
  /** The client's terminal size: cols u16 · rows u16. */
  resize: 2,
  /** The client asks to be detached (it is leaving). Empty payload. */
  detach: 3,
  /**
   * Direct tty (docs/clients.md, "Direct tty"): the client offers its terminal to the server.
   * JSON payload: {@link DirectClaim}. The server answers `ready` or keeps relaying.
   */
  claim: 5,
  /**
   * The client stopped reading its terminal and wrote every output message it had (answer to
   * `ready`): from here on the server reads keys from and writes frames to the tty itself.
   */
  handed: 6,
  /**
   * Server → client: the claim checked out and the server holds the tty open; stop reading it
   * and answer `handed`. Type 4 as in the prototype.
   */
  ready: 4,
  /**
   * Server → client: stop reading the terminal (a pane this client pastes into is not reading
   * its input, and its queue is full), until `resume`. The terminal holds the rest of the
   * paste and whatever is typed after it, in order. Empty payload. A client that does not
   * know it keeps sending, and the server stops reading its socket a little later instead.
   */
  hold: 7,
  /** Server → client: read the terminal again (after `hold`). Empty payload. */
  resume: 8,
  /** Bytes for the client's terminal (frames, notifications, OSC 52). */
  output: 16,
  /** The server ends this client: code u8 · UTF-8 message to print after the terminal is restored. */
  exit: 17,
} as const;

export const HEADER_BYTES = 5;

/**
 * Larger messages are a protocol error. A frame of a 500×200 screen with every cell styled is
 * well under 4 MiB; input arrives in chunks of at most 64 KiB.
 */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export function header(type: number, length: number): Buffer {
  const head = Buffer.allocUnsafe(HEADER_BYTES);
  head[0] = type;
  head.writeUInt32BE(length, 1);
  return head;
}

/** What `writeMessage` needs of a socket (a `net.Socket`, or any Writable). */
export interface MessageSink {
  cork(): void;
  uncork(): void;
  write(chunk: Buffer): boolean;
}

/**
 * Writes one message now: its header and the payload's own buffer (no copy) in one writev,
 * before this call returns. Never corked past the call — not to the end of the tick: a
 * keystroke's echo is sent from inside the pty read that carried it, and the rest of that tick
 * (xterm's parse, the revision listeners, agent detection) took ~0.25 ms of echo latency while
 * the echo waited in the cork (docs/bench.md, "Echo through an attached client").
 */
export function writeMessage(sink: MessageSink, type: number, payload: Buffer): void {
  sink.cork();
  sink.write(header(type, payload.length));
  if (payload.length > 0) sink.write(payload);
  sink.uncork();
}

/** One message as a single buffer (for small control messages; frames go as header + payload). */
export function message(type: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  return Buffer.concat([header(type, payload.length), payload]);
}

export function resizePayload(cols: number, rows: number): Buffer {
  const payload = Buffer.allocUnsafe(4);
  payload.writeUInt16BE(clampSize(cols), 0);
  payload.writeUInt16BE(clampSize(rows), 2);
  return payload;
}

export function readResize(payload: Buffer): { cols: number; rows: number } | null {
  if (payload.length !== 4) return null;
  const cols = payload.readUInt16BE(0);
  const rows = payload.readUInt16BE(2);
  return cols > 0 && rows > 0 ? fitTerminalSize(cols, rows) : null;
}

export function exitPayload(code: number, text: string): Buffer {
  return Buffer.concat([Buffer.from([code & 0xff]), Buffer.from(text, 'utf8')]);
}

export function readExit(payload: Buffer): { code: number; text: string } {
  return { code: payload.length > 0 ? payload[0]! : 1, text: payload.subarray(1).toString('utf8') };
}

/**
 * The largest terminal a client may claim, per side. The server allocates cell grids of the
 * client's size (two per client, plus the chrome's), so a client claiming 65535×65535 must
 * not make it allocate billions of cells; 2000 columns is wider than any real screen.
 */
export const MAX_TERMINAL_SIDE = 2000;

/** Terminal sizes are kept within 1 … MAX_TERMINAL_SIDE cells per side. */
export function clampSize(n: number): number {
  return Math.max(1, Math.min(MAX_TERMINAL_SIDE, Math.floor(Number.isFinite(n) ? n : 1)));
}

/**
 * The most cells corral draws for one client. Everything a client's size touches costs per
 * cell: its frame grids, the chrome, each shown pane's terminal (resized, reflowed, redrawn).
 * A 2000×2000 client took 4 s of the server's event loop and 680 MB that glibc kept after it
 * left; 500×500 takes 0.4 s. A 4K screen at an 8-pixel font is 480×135 (65k cells), an
 * 8K one at 6 pixels 1280×360, so this bounds what a client can cost, not what people see.
 */
export const MAX_TERMINAL_CELLS = 250_000;

/**
 * The size corral draws for a terminal that claims `cols`×`rows`: each side clamped, then,
 * past MAX_TERMINAL_CELLS, both sides scaled down by the same factor (the aspect kept). The
 * rest of a larger terminal stays blank (docs/clients.md, "Size").
 */
export function fitTerminalSize(cols: number, rows: number): { cols: number; rows: number } {
  const c = clampSize(cols);
  const r = clampSize(rows);
  if (c * r <= MAX_TERMINAL_CELLS) return { cols: c, rows: r };
  const scale = Math.sqrt(MAX_TERMINAL_CELLS / (c * r));
  const fitCols = Math.max(1, Math.floor(c * scale));
  return { cols: fitCols, rows: Math.max(1, Math.min(r, Math.floor(MAX_TERMINAL_CELLS / fitCols))) };
}

/**
 * What a client that offers its terminal claims about it (docs/clients.md, "Direct tty"). The
 * server opens `path` only if every field matches what it sees itself.
 */
export interface DirectClaim {
  /** The terminal's path, `/dev/pts/N`. */
  path: string;
  /** fstat of the client's fd 0: device, inode and the terminal's device number. */
  dev: number;
  ino: number;
  rdev: number;
  /** /proc/sys/kernel/random/boot_id as the client reads it: same machine, same boot. */
  bootId: string;
  /** The inode of the socket file the client connected to: same filesystem view as the server's. */
  socketIno: number;
}

/** The claim from a `claim` payload, or null when it is not one (a bad claim means relay). */
export function readClaim(payload: Buffer): DirectClaim | null {
  let value: unknown;
  try {
    value = JSON.parse(payload.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const v = value as Record<string, unknown>;
  const int = (x: unknown) => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
  if (typeof v.path !== 'string' || v.path.length > 4096 || typeof v.bootId !== 'string' || v.bootId.length > 100) return null;
  if (!int(v.dev) || !int(v.ino) || !int(v.rdev) || !int(v.socketIno)) return null;
  return { path: v.path, dev: v.dev as number, ino: v.ino as number, rdev: v.rdev as number, bootId: v.bootId, socketIno: v.socketIno as number };
}

export interface Message {
  type: number;
  /** A view into the received chunk when the message arrived whole (no copy). */
  payload: Buffer;
}

/**
 * Splits a byte stream into messages. A message inside one chunk is handed out as a subarray
 * of that chunk; only a message split across chunks is gathered (one copy, as the kernel split it).
 */
export class MessageReader {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  /** Feeds a chunk; returns the complete messages in it. Throws on a message over the limit. */
  push(chunk: Buffer): Message[] {
    let data = chunk;
    if (this.pendingBytes > 0) {
      this.pending.push(chunk);
      data = Buffer.concat(this.pending, this.pendingBytes + chunk.length);
      this.pending = [];
      this.pendingBytes = 0;
    }
    const out: Message[] = [];
    let at = 0;
    while (data.length - at >= HEADER_BYTES) {
      const length = data.readUInt32BE(at + 1);
      if (length > MAX_MESSAGE_BYTES) throw new Error(`message of ${length} bytes exceeds the ${MAX_MESSAGE_BYTES}-byte limit`);
      if (data.length - at - HEADER_BYTES < length) break;
      out.push({ type: data[at]!, payload: data.subarray(at + HEADER_BYTES, at + HEADER_BYTES + length) });
      at += HEADER_BYTES + length;
    }
    if (at < data.length) {
      const rest = data.subarray(at);
      this.pending.push(rest);
      this.pendingBytes = rest.length;
    }
    return out;
  }
}

/** What the client tells the server when it attaches (the `client.attach` params). */
export interface ClientHello {
  protocol: number;
  cols: number;
  rows: number;
  pid: number;
  /** The client's terminal device (`/dev/pts/3`), or '' when unknown. */
  tty: string;
  /** The client's working directory: a session with no workspace opens one there. */
  cwd: string;
  term: string;
  colorterm: string;
  capabilities: ClientCapabilities;
}

/** What the client's terminal can do, as far as the client can tell (docs/clients.md). */
export interface ClientCapabilities {
  truecolor: boolean;
  /**
   * Colours the terminal shows: 24-bit (16777216, `truecolor`), the xterm 256 palette, or 16.
   * The server writes every colour as the nearest this many hold (src/screen/color-depth.ts).
   */
  colors: 16 | 256 | 16777216;
  mouse: boolean;
  bracketedPaste: boolean;
  focusEvents: boolean;
  osc52: boolean;
  synchronizedOutput: boolean;
  /** Desktop notifications (OSC 9 / OSC 777) and the bell. */
  notifications: boolean;
}
