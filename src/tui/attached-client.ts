/**
 * One attached client on the server side (SPEC §1, docs/clients.md): its own Compositor and
 * TuiController, fed by the binary messages of its connection and writing its frames back.
 * The controller does not know it is remote — it gets `write`/`writeTerminal` as before.
 *
 * Output path: each frame the compositor makes is one string; it becomes one Buffer (the
 * UTF-8 encode a local `stdout.write` would do anyway) and goes out as a 5-byte header plus
 * that buffer in one writev, at once (a keystroke's echo must not wait for the rest of the tick).
 * No JSON, no concatenation.
 */
import type { Socket } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { Compositor } from '../screen/compositor.js';
import type { CorralCore } from '../core/corral-core.js';
import type { Notifier } from '../notify/notifier.js';
import { MSG, MessageReader, exitPayload, readClaim, readResize, writeMessage, type ClientHello } from '../contract/frame-protocol.js';
import { DirectTty, openClaim, type ClaimContext } from './direct-tty.js';
import { visibleControls } from '../terminal/control-chars.js';
import { ECHO_TRACE, HOP } from '../screen/echo-trace.js';
import { TuiController, type ChromeRenderer } from './controller.js';
import { ClientCoreView, type ClientPlace } from './client-view.js';
import type { ClientRights } from '../pty/client-rights.js';
import type { MirrorDirectory } from '../machines/machine-hub.js';
import { InputHold } from './input-hold.js';

/** The terminal's focus-out report (DECSET 1004), as one input message. */
const FOCUS_OUT = Buffer.from('\x1b[O');
const isFocusOut = (payload: Buffer): boolean => payload.equals(FOCUS_OUT);

/** More unsent bytes than this and the compositor holds frames (the next one carries the latest screen). */
const SOCKET_HIGH_WATER_BYTES = 256 * 1024;

export interface AttachedClientOptions {
  id: string;
  socket: Socket;
  hello: ClientHello;
  core: CorralCore;
  /** What this client may do (SPEC §8), decided when it was accepted. */
  rights: ClientRights;
  /** Other machines' sessions, shown after this one's (SPEC §14). */
  mirrors: MirrorDirectory;
  notifier: Notifier;
  renderer: ChromeRenderer;
  startupMessage: { text: string; error: boolean } | null;
  /** Input arrived from this client (it becomes the most recently active one). */
  onActive(client: AttachedClient): void;
  /** Whether this client is the most recently active one (its size lays tabs out). */
  isActive(client: AttachedClient): boolean;
  /** `prefix d`, or the client said it is leaving. */
  onDetach(client: AttachedClient): void;
  /** The connection closed or broke. */
  onGone(client: AttachedClient): void;
  /** The session's last workspace closed. */
  onEmpty(): void;
  /** What this client shows, or its terminal's focus, may have changed. */
  onViewChanged(): void;
  /** What a direct-tty claim is checked against (docs/clients.md, "Direct tty"). */
  claimContext: ClaimContext;
  /** The server log (a refused claim says why there). */
  log(message: string): void;
}

export class AttachedClient {
  readonly id: string;
  readonly hello: ClientHello;
  readonly attachedAt = Date.now();
  lastActive = Date.now();
  cols: number;
  rows: number;
  readonly controller: TuiController;
  /**
   * The core as this client sees it: the same core, except that while another client is
   * active it shows the workspace and tab this client was on (`savedPlace`). Every action
   * comes with input, which makes its client active first, so actions act on the real focus.
   */
  readonly view: ClientCoreView;
  /** The workspace and tab this client shows while another client is active. */
  savedPlace: ClientPlace | null = null;
  private readonly compositor: Compositor;
  private readonly socket: Socket;
  private readonly reader = new MessageReader();
  private readonly decoder = new StringDecoder('utf8');
  /** The decoder holds no part of a character (the typing express bypasses it only then). */
  private decoderIdle = true;
  private closed = false;
  /** The client's terminal, opened by the server; `direct` once the client handed it over. */
  private tty: DirectTty | null = null;
  private direct = false;
  /** Input held while a pane this client pastes into is not reading (src/tui/input-hold.ts). */
  private readonly hold: InputHold;

  constructor(private readonly options: AttachedClientOptions) {
    this.id = options.id;
    this.hello = options.hello;
    this.socket = options.socket;
    this.cols = options.hello.cols;
    this.rows = options.hello.rows;
    this.view = new ClientCoreView(options.core, () => (options.isActive(this) ? null : this.savedPlace), options.rights, options.mirrors);
    this.hold = new InputHold(
      {
        pause: () => (this.tty && this.direct ? this.tty.pauseInput() : this.sendSocket(MSG.hold, Buffer.alloc(0))),
        resume: () => {
          this.tty?.resumeInput();
          this.sendSocket(MSG.resume, Buffer.alloc(0));
          this.socket.resume();
        },
        stop: () => this.socket.pause(),
      },
      (chunk) => this.onInput(chunk),
    );
    const caps = options.hello.capabilities;
    this.compositor = new Compositor({
      cols: this.cols,
      rows: this.rows,
      write: (bytes) => this.send(MSG.output, bytes),
      synchronized: caps.synchronizedOutput,
      colors: caps.colors,
    });
    this.socket.on('drain', () => this.compositor.outputDrained());
    this.controller = new TuiController({
      core: this.view,
      compositor: this.compositor,
      renderer: options.renderer,
      cols: this.cols,
      rows: this.rows,
      onQuit: () => options.onEmpty(),
      onDetach: () => options.onDetach(this),
      startupMessage: options.startupMessage,
      notifier: options.notifier,
      writeTerminal: caps.notifications ? (bytes) => void this.send(MSG.output, bytes) : undefined,
      clipboard: caps.osc52,
      onViewReported: () => options.onViewChanged(),
      onDeferredInput: () => options.onActive(this),
      ownsLayout: () => options.isActive(this),
      inputRefusal: () => this.view.rights.refusal(options.core.scripting),
      holdInput: () => this.hold.hold(),
      resumeInput: () => this.hold.release(),
    });
    this.view.onRemoteError = (message) => this.controller.showMessage(message, true);
    this.view.onLocalChange = () => this.controller.refreshView();
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('close', () => options.onGone(this));
    this.socket.on('error', () => this.socket.destroy());
  }

  private onData(chunk: Buffer): void {
    ECHO_TRACE?.mark(HOP.arrived);
    if (this.closed) return;
    let messages;
    try {
      messages = this.reader.push(chunk);
    } catch {
      // Not our protocol (or a broken client): drop it, nothing else changes.
      this.socket.destroy();
      return;
    }
    for (const { type, payload } of messages) {
      try {
        this.onMessage(type, payload);
      } catch (error) {
        this.logFailure(error);
      }
    }
  }

  /** What a client's message or keys made fail goes to the server log; the server and the client go on. */
  private logFailure(error: unknown): void {
    this.options.log(`client ${this.id}: ${(error as Error).stack ?? error}`);
  }

  /** Whether the server reads and writes this client's terminal itself. */
  get isDirect(): boolean {
    return this.direct;
  }

  /** Raw bytes from the client's terminal, through the socket or read from the tty directly. */
  private onInput(payload: Buffer): void {
    if (this.closed || this.hold.keep(payload)) return;
    // Typing into the pane of the active client: the key goes out before anything else.
    if (this.decoderIdle && this.options.isActive(this) && this.controller.typeExpress(payload)) {
      this.lastActive = Date.now();
      return;
    }
    // A focus-out report alone is the user leaving this terminal, not using it: it does not
    // make this client the active one (the terminal they went to may not report focus).
    if (!isFocusOut(payload)) {
      this.lastActive = Date.now();
      this.options.onActive(this);
    }
    const text = this.decoder.write(payload);
    // An ASCII byte ends any sequence the decoder held: nothing of a character is pending.
    this.decoderIdle = (payload[payload.length - 1] ?? 0) < 0x80;
    if (text !== '') this.controller.handleInput(text);
  }

  /** The client offers its terminal: open it if every check passes, else keep relaying and log why. */
  private onClaim(payload: Buffer): void {
    if (this.tty || this.closed) return;
    const claim = readClaim(payload);
    const result = claim ? openClaim(claim, this.options.claimContext) : { ok: false as const, reason: 'the claim is malformed' };
    if (!result.ok) {
      this.options.log(`client ${this.id}: direct tty refused, relaying: ${result.reason}`);
      return;
    }
    try {
      this.tty = new DirectTty(
        result.fds,
        (chunk) => {
          ECHO_TRACE?.mark(HOP.arrived);
          try {
            this.onInput(chunk);
          } catch (error) {
            this.logFailure(error);
          }
        },
        () => this.compositor.outputDrained(),
      );
    } catch (error) {
      this.options.log(`client ${this.id}: direct tty refused, relaying: ${String(error)}`);
      return;
    }
    // Keys and frames keep going through the socket until the client says it stopped reading
    // and wrote what it had (`handed`): nothing lost, nothing out of order.
    this.sendSocket(MSG.ready, Buffer.alloc(0));
  }

  private onMessage(type: number, payload: Buffer): void {
    switch (type) {
      case MSG.input:
        this.onInput(payload);
        return;
      case MSG.claim:
        this.onClaim(payload);
        return;
      case MSG.handed:
        if (this.tty && !this.direct) {
          this.direct = true;
          // The tty name is the client's word: one line, whatever it holds.
          this.options.log(`client ${this.id}: direct tty ${visibleControls(this.hello.tty)}`);
        }
        return;
      case MSG.resize: {
        const size = readResize(payload);
        if (!size || (size.cols === this.cols && size.rows === this.rows)) return;
        this.cols = size.cols;
        this.rows = size.rows;
        this.lastActive = Date.now();
        this.options.onActive(this);
        this.controller.resize(size.cols, size.rows);
        return;
      }
      case MSG.detach:
        this.options.onDetach(this);
        return;
      default:
        // An unknown message from a newer client is ignored, not fatal.
        return;
    }
  }

  /**
   * One message to the client, handed to the kernel before this returns (`writeMessage`).
   * Several messages in one tick cost one writev each; frames are paced to ~60 a second, so
   * that is a few syscalls, never a copy per byte. Returns false when the socket is backed up
   * (the compositor then waits for drain).
   */
  private send(type: number, data: string | Buffer): boolean {
    if (this.closed) return false;
    if (this.direct && this.tty && type === MSG.output) {
      // Straight to the terminal: no client process between the server and the screen.
      this.tty.write(data);
      return this.tty.backlog < SOCKET_HIGH_WATER_BYTES;
    }
    return this.sendSocket(type, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
  }

  private sendSocket(type: number, bytes: Buffer): boolean {
    if (this.socket.destroyed) return false;
    writeMessage(this.socket, type, bytes);
    return this.socket.writableLength < SOCKET_HIGH_WATER_BYTES;
  }

  /**
   * Ends this client: tells it why (printed after its terminal is restored) and closes. A
   * terminal the server holds is handed back first (reading stopped, frames flushed, closed),
   * and only then goes `exit`: the client restores the terminal after the last frame.
   */
  end(code: number, text: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const tty = this.tty;
    this.tty = null;
    this.dispose();
    const finish = () => {
      this.sendSocket(MSG.exit, exitPayload(code, text));
      this.socket.end();
      // A client that does not read its last message must not hold the server (or its shutdown).
      setTimeout(() => this.socket.destroy(), 1000).unref();
    };
    if (!tty) {
      finish();
      return Promise.resolve();
    }
    return tty.close().then(finish, finish);
  }

  /** Drops the controller and compositor (the connection is gone or ending) and any held terminal. */
  dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.tty?.destroy();
    this.tty = null;
    this.controller.dispose();
    this.compositor.dispose();
  }
}
