/**
 * The far side of a machine link (SPEC §14): `mirror.subscribe` streams this server's panes to
 * the server that mirrors it, `mirror.viewport` lays this server's tabs out for that server's
 * screen while no client is attached here, and `pane.input` takes a person's keys typed into a
 * mirrored pane over there.
 */
import { CorralError, MIRROR_NOTIFICATION } from '../../contract/protocol.js';
import { MAX_TERMINAL_SIDE, fitTerminalSize } from '../../contract/frame-protocol.js';
import { optInt, str, type Params } from '../params.js';
import { mirrorLogOf } from '../mirror-log.js';
import { MirrorPublisher } from '../mirror-publisher.js';
import type { HandlerGroup, RequestContext } from './context.js';
import { OnceLog } from '../../core/once-log.js';

/** Keys refused from a caller that is no link (logged once per caller). */
const refusedInput = new OnceLog();

/** A mirrored pane's keys arrive as a person types: far below the RPC line limit per call. */
const MAX_INPUT_CHARS = 64 * 1024;

export const INPUT_ACK = {
  /**
   * Keys that make no output (echo off, a program not reading) are acknowledged after this
   * long: time enough for a program to echo, short against a round trip worth predicting.
   */
  quietMs: 30,
} as const;

/**
 * Acknowledges `pane.input` number `seq` on this connection's mirror stream, behind the pane's
 * first output batch after the keys (the mirror publisher sends that batch first: it listened
 * to the log before us), or after `quietMs` when none came. The far side of a predicted echo
 * judges its guesses by this (docs/machines.md "Predicted echo").
 */
function ackInput(ctx: RequestContext, surfaceId: number, seq: number): void {
  const log = mirrorLogOf(ctx.core);
  let timer: NodeJS.Timeout | null = null;
  const done = (quiet: boolean): void => {
    stop();
    if (timer) clearTimeout(timer);
    ctx.stream.send(MIRROR_NOTIFICATION, quiet ? { kind: 'ack', surface_id: surfaceId, input: seq, quiet: true } : { kind: 'ack', surface_id: surfaceId, input: seq });
  };
  const stop = log.onEntry((surface, entry) => {
    if (surface === surfaceId && entry.kind === 'output') done(false);
  });
  timer = setTimeout(() => done(true), INPUT_ACK.quietMs);
  timer.unref();
}

/** `resume`: the last batch number the mirror holds, per surface id. */
function resumeParam(p: Params): Record<string, number> {
  const value = p.resume;
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw new CorralError('invalid_params', 'param "resume" must be an object of surface id → batch number');
  const out: Record<string, number> = {};
  for (const [key, seq] of Object.entries(value)) {
    if (!/^\d+$/.test(key) || typeof seq !== 'number' || !Number.isInteger(seq) || seq < 0) throw new CorralError('invalid_params', `param "resume": ${JSON.stringify(key)} must map to a batch number`);
    out[key] = seq;
  }
  return out;
}

/**
 * A person's keys from a machine link: the caller must be a link (a process sshd started,
 * outside every pane here) — or the gate open. A script anywhere else is refused: for a script,
 * typing that submits goes through the gated methods.
 */
function assertPersonChannel(ctx: RequestContext): void {
  if (ctx.core.scripting) return;
  // sshd first (read once per connection); then the place, which a process started by sshd
  // outside every pane keeps for its life (a process never moves into a pane's tree).
  if (ctx.peer.startedBySsh() && ctx.peer.placeOnce(false).kind === 'outside') return;
  throw new CorralError('scripting_disabled', 'pane.input carries the keys of a person at another machine through its link (a process sshd started, outside every pane); other callers type with pane.send_text, or submit with the scripting gate open');
}

export const mirrorHandlers = {
  'mirror.subscribe': (p, ctx) => {
    const resume = resumeParam(p);
    const publisher = new MirrorPublisher(ctx.core, mirrorLogOf(ctx.core), ctx.stream, ctx.core.config.persist_scrollback_lines);
    ctx.afterResponse(() => publisher.start(resume));
    ctx.holdStream();
    ctx.onClose(() => publisher.dispose());
    return { subscribed: true };
  },
  'mirror.viewport': (p, ctx) => {
    const cols = optInt(p, 'cols', 1, MAX_TERMINAL_SIDE) ?? 0;
    const rows = optInt(p, 'rows', 1, MAX_TERMINAL_SIDE) ?? 0;
    if (cols === 0 || rows === 0) throw new CorralError('invalid_params', 'params "cols" and "rows" are required');
    // Laid out as a client of that size would be: no more cells than one client may cost.
    const fit = fitTerminalSize(cols, rows);
    return { applied: ctx.clients?.layOutForLink(fit.cols, fit.rows) ?? false };
  },
  'pane.input': (p, ctx) => {
    try {
      assertPersonChannel(ctx);
    } catch (error) {
      // Sent as a notification by a link, so nobody would hear the refusal: the log does, once.
      refusedInput.note(`${ctx.peer.pid}`, `pane.input refused from pid ${ctx.peer.pid ?? 'unknown'}: ${(error as Error).message}`);
      throw error;
    }
    const data = str(p, 'data');
    if (data.length > MAX_INPUT_CHARS) throw new CorralError('invalid_params', `param "data" is longer than ${MAX_INPUT_CHARS} characters`);
    const seq = optInt(p, 'seq', 1, Number.MAX_SAFE_INTEGER);
    const pane = ctx.core.resolveOne(str(p, 'pane_id'));
    ctx.core.writeToPane(pane, data);
    if (seq !== undefined) ackInput(ctx, pane.surfaceId, seq);
    return { sent: true };
  },
} satisfies HandlerGroup;
