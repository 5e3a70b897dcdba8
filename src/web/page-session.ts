/**
 * One page's WebSocket (SPEC §16): the fleet as it changes, the pane it opened as a stream,
 * and what the person types or taps, handed to the server as a person's input.
 *
 * The page is a browser someone else may script, so what it sends is held to a small,
 * checked vocabulary: JSON objects of known shapes only (anything else closes the socket with
 * 1007), frames of at most `PAGE_LIMITS.maxFrameBytes` (the ws library closes with 1009), and
 * a rate: keys are merged per pane into one server call at a time, so a flood of messages
 * becomes a few calls and the server's other clients never wait behind it.
 */
import { DEFAULT_PREDICT, type PredictMode } from '../screen/remote-prediction.js';
import type WebSocket from 'ws';
import type { PaneWatchMessage, WebFleet } from '../contract/protocol.js';
import type { ServerLink } from './server-link.js';

export const PAGE_LIMITS = {
  /** A frame a page may send: a pasted screenful, not a file. */
  maxFrameBytes: 64 * 1024,
  /** Keys waiting for the server, per page, past which the page is cut off (it is not a person typing). */
  maxPendingInputChars: 1024 * 1024,
  /** Messages other than keys (watch, answer) a page may send per second before it is cut off. */
  maxControlPerSecond: 50,
  /** Unsent bytes to a page past which fleet updates wait for the next one (a slow phone). */
  maxBufferedBytes: 4 * 1024 * 1024,
  /** How often an open page's session is checked against the store (a revocation ends it within this). */
  sessionCheckMs: 1000,
} as const;

/** WebSocket close codes (RFC 6455). */
const CLOSE = { invalidData: 1007, policy: 1008 } as const;

type PageMessage =
  | { t: 'watch'; pane: string }
  | { t: 'unwatch' }
  | { t: 'input'; pane: string; data: string }
  | { t: 'answer'; pane: string; label: string }
  | { t: 'ping'; id: number };

const PANE_ID_RE = /^[A-Za-z0-9_./:-]{1,160}$/;

/** The message, if it is one of the page's known shapes. */
export function parsePageMessage(text: string): PageMessage | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const m = value as Record<string, unknown>;
  const pane = typeof m.pane === 'string' && PANE_ID_RE.test(m.pane) ? m.pane : null;
  switch (m.t) {
    case 'watch':
      return pane ? { t: 'watch', pane } : null;
    case 'unwatch':
      return { t: 'unwatch' };
    case 'input':
      return pane && typeof m.data === 'string' && m.data.length > 0 ? { t: 'input', pane, data: m.data } : null;
    case 'answer':
      return pane && typeof m.label === 'string' && m.label.length <= 40 ? { t: 'answer', pane, label: m.label } : null;
    case 'ping':
      return typeof m.id === 'number' && Number.isFinite(m.id) ? { t: 'ping', id: m.id } : null;
    default:
      return null;
  }
}

export class PageSession {
  private stopWatch: (() => void) | null = null;
  /** The watch asked for last: a stream that opens after another was asked for is closed at once. */
  private watchSeq = 0;
  private readonly pending = new Map<string, string>();
  private pendingChars = 0;
  private sending = false;
  private controlCount = 0;
  private controlWindow = 0;
  private readonly stopFleet: () => void;
  private readonly sessionTimer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    private readonly link: ServerLink,
    /** `--read-only`: nothing the page sends reaches a pane. */
    private readonly readOnlyFlag: boolean,
    private readonly log: (line: string) => void,
    /** Whether the page's session is still live (`corral web --revoke-all` ends it). */
    private readonly sessionLive: () => boolean,
    /** `corral web --predict`: how the page draws keys before their echo. */
    predict: PredictMode = DEFAULT_PREDICT,
  ) {
    this.send({ t: 'hello', client_id: link.hello.client_id, predict, ...this.access(link.fleet) });
    this.send({ t: 'fleet', fleet: link.fleet });
    this.stopFleet = link.onFleet((fleet, change) => {
      if (ws.bufferedAmount > PAGE_LIMITS.maxBufferedBytes) return;
      // A status change travels alone (the page lays it over its fleet); a read goes whole.
      if (change) this.send({ t: 'status', change: { type: change.type, pane_id: change.pane_id, agent_status: change.agent_status, state: change.state, message: change.message } });
      else this.send({ t: 'fleet', fleet, ...this.access(fleet) });
    });
    // A revocation is a file another process rewrites: looked at once a second (a stat), so an
    // open page is cut off within that even while it sends and receives nothing.
    this.sessionTimer = setInterval(() => this.checkSession(), PAGE_LIMITS.sessionCheckMs);
    this.sessionTimer.unref();
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('close', () => this.dispose());
    ws.on('error', () => this.dispose());
  }

  /** Whether this page may type now, and why not. */
  private access(fleet: WebFleet): { read_only: boolean; why: string | null } {
    if (this.readOnlyFlag) return { read_only: true, why: 'corral web was started with --read-only' };
    if (!this.link.hello.person && !fleet.scripting) return { read_only: true, why: `read-only: ${this.link.hello.why ?? 'not a person at a terminal'} while the scripting gate is closed` };
    return { read_only: false, why: null };
  }

  /** Closes the socket once its session was revoked or expired. */
  private checkSession(): void {
    if (!this.sessionLive()) this.ws.close(CLOSE.policy, 'session revoked');
  }

  private send(message: object): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify(message));
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    const message = isBinary ? null : parsePageMessage(data.toString('utf8'));
    if (!message) {
      this.ws.close(CLOSE.invalidData, 'not a message this server knows');
      return;
    }
    if (message.t !== 'input' && !this.withinControlRate()) {
      this.ws.close(CLOSE.policy, 'too many messages');
      return;
    }
    switch (message.t) {
      case 'ping':
        return this.send({ t: 'pong', id: message.id });
      case 'watch':
        return void this.watch(message.pane);
      case 'unwatch':
        this.watchSeq++;
        this.stopWatch?.();
        this.stopWatch = null;
        return;
      case 'input':
        return this.queueInput(message.pane, message.data);
      case 'answer':
        return void this.answer(message.pane, message.label);
    }
  }

  private withinControlRate(): boolean {
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.controlWindow) {
      this.controlWindow = second;
      this.controlCount = 0;
    }
    return ++this.controlCount <= PAGE_LIMITS.maxControlPerSecond;
  }

  private readOnlyNow(): string | null {
    return this.access(this.link.fleet).why;
  }

  private async watch(paneId: string): Promise<void> {
    const seq = ++this.watchSeq;
    this.stopWatch?.();
    this.stopWatch = null;
    try {
      const stop = await this.link.watch(paneId, (message: PaneWatchMessage) => this.send({ t: 'screen', ...message }));
      if (seq !== this.watchSeq || this.ws.readyState !== this.ws.OPEN) stop();
      else this.stopWatch = stop;
    } catch (error) {
      this.send({ t: 'error', message: (error as Error).message });
    }
  }

  private queueInput(paneId: string, data: string): void {
    const why = this.readOnlyNow();
    if (why) return this.send({ t: 'error', message: why });
    this.pendingChars += data.length;
    if (this.pendingChars > PAGE_LIMITS.maxPendingInputChars) {
      this.ws.close(CLOSE.policy, 'too much input waiting');
      return;
    }
    this.pending.set(paneId, (this.pending.get(paneId) ?? '') + data);
    void this.flushInput();
  }

  /** One server call in flight per page: what arrives meanwhile is merged into the next. */
  private async flushInput(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.pending.size > 0) {
        const [paneId, queued] = this.pending.entries().next().value as [string, string];
        this.pending.delete(paneId);
        // A call carries at most what the server takes in one; the rest goes next, in order.
        let cut = Math.min(queued.length, PAGE_LIMITS.maxFrameBytes);
        if (cut < queued.length && /[\uDC00-\uDFFF]/.test(queued[cut]!)) cut--;
        const data = queued.slice(0, cut);
        if (cut < queued.length) this.pending.set(paneId, queued.slice(cut) + (this.pending.get(paneId) ?? ''));
        this.pendingChars -= data.length;
        try {
          await this.link.input(paneId, data);
        } catch (error) {
          this.send({ t: 'error', message: (error as Error).message });
        }
      }
    } finally {
      this.sending = false;
    }
  }

  private async answer(paneId: string, label: string): Promise<void> {
    const why = this.readOnlyNow();
    if (why) return this.send({ t: 'error', message: why });
    try {
      await this.link.answer(paneId, label);
      this.log(`answered ${JSON.stringify(label)} in ${paneId}`);
    } catch (error) {
      this.send({ t: 'error', message: (error as Error).message });
    }
  }

  dispose(): void {
    clearInterval(this.sessionTimer);
    this.watchSeq++;
    this.stopWatch?.();
    this.stopWatch = null;
    this.stopFleet();
    this.pending.clear();
  }
}
