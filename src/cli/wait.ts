/**
 * `corral wait` (SPEC §9), client-side: resolve the selector to panes, then follow the event
 * stream until they are idle and/or have the server watch their output for a new line matching
 * the pattern (`pane.wait_for_output` with `new_only`, the server-side wait that sees every
 * batch of a flood — polling from here could miss a marker that scrolled past between two
 * reads). The deciding logic is pure (src/wait/wait-logic.ts); `runWait` only wires it to a
 * connection.
 */
import { CorralError, EVENT_NOTIFICATION, type SurfaceStatus } from '../contract/protocol.js';
import {
  applyEvent,
  applyStatus,
  isPaneSatisfied,
  isWaitSatisfied,
  outcomeOf,
  WAIT,
  type PaneProgress,
  type RpcCaller,
  type WaitOptions,
  type WaitOutcome,
} from '../wait/wait-logic.js';

/** Event types an idle wait subscribes to. */
const IDLE_EVENT_TYPES = ['surface_changed', 'agent.status_changed'] as const;

/** Human output: the matched lines (prefixed by pane when several panes matched), else `<pane> idle`. */
export function formatOutcome(outcome: WaitOutcome): string {
  if (outcome.matches.length === 0) return outcome.panes.map((id) => `${id} idle\n`).join('');
  const prefix = outcome.matches.length > 1;
  return outcome.matches.flatMap((m) => m.lines.map((line) => (prefix ? `${m.pane_id}: ${line}\n` : `${line}\n`))).join('');
}

// ---------------------------------------------------------------------------
// Wiring.

export interface WaitDeps {
  client: RpcCaller;
  /** Opens a second connection for the event stream (idle mode); failure falls back to polling. */
  openEvents?: () => Promise<RpcCaller>;
  now?: () => number;
}

/** Resolves the selector to the panes the wait watches (SPEC §2: several only with --any/--all). */
async function resolvePanes(client: RpcCaller, opts: WaitOptions, now: number): Promise<PaneProgress[]> {
  const fresh = (status: SurfaceStatus): PaneProgress => ({
    surfaceId: status.surface_id,
    paneId: status.pane_id,
    tool: status.tool,
    agentStatus: status.agent_status,
    outputGeneration: status.output_generation,
    lastOutputAt: now,
  });
  if (opts.mode === 'single') return [fresh(await client.call('surface.status', { target: opts.selector }))];
  const { surfaces } = await client.call('surface.list', { match: opts.selector });
  if (surfaces.length === 0) {
    throw new CorralError('target_not_found', `no pane matches ${JSON.stringify(opts.selector)}`, { target: opts.selector });
  }
  return Promise.all(
    surfaces.map(async (s) => fresh(await client.call('surface.status', { target: String(s.surface_id) }))),
  );
}

/**
 * The server's wait for a new line of `pane` matching the pattern, unwrapped (a line the pane
 * soft-wrapped matches whole, as herdr's `pane wait-output` does). No timeout of its own: the
 * wait's timeout closes the connection, which ends it on the server.
 */
function waitForNewLine(client: RpcCaller, pane: PaneProgress, pattern: string): Promise<string> {
  return client
    .call('pane.wait_for_output', { pane_id: pane.paneId, match: { type: 'regex', value: pattern }, lines: WAIT.scanLines, new_only: true })
    .then((result) => result.matched_line);
}

/** Runs a wait to its end: resolves with the outcome, rejects with `timeout` or the first RPC error. */
export async function runWait(deps: WaitDeps, opts: WaitOptions): Promise<WaitOutcome> {
  const now = deps.now ?? Date.now;
  const { client } = deps;
  const panes = await resolvePanes(client, opts, now());

  const timers = new Set<NodeJS.Timeout>();
  let events: RpcCaller | undefined;
  let quietTimer: NodeJS.Timeout | undefined;
  let finished = false;

  return new Promise<WaitOutcome>((resolve, reject) => {
    const finish = (error: unknown, outcome?: WaitOutcome): void => {
      if (finished) return;
      finished = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      events?.close();
      if (outcome) resolve(outcome);
      else reject(error);
    };
    const later = (ms: number, fn: () => void): NodeJS.Timeout => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        fn();
      }, ms);
      timers.add(timer);
      return timer;
    };

    const evaluate = (): void => {
      if (finished) return;
      const t = now();
      const satisfied = panes.map((pane) => isPaneSatisfied(pane, opts, t));
      if (isWaitSatisfied(opts.mode, satisfied)) return finish(undefined, outcomeOf(panes, satisfied, opts.pattern !== undefined));
      // A quiet pane becomes idle without any event; look again right when it would.
      if (opts.idle) {
        const waits = panes
          .filter((p) => p.tool === null && t - p.lastOutputAt < opts.quietMs)
          .map((p) => p.lastOutputAt + opts.quietMs - t);
        if (quietTimer) {
          clearTimeout(quietTimer);
          timers.delete(quietTimer);
          quietTimer = undefined;
        }
        if (waits.length > 0) quietTimer = later(Math.min(...waits), evaluate);
      }
    };

    const pollOnce = async (): Promise<void> => {
      await Promise.all(panes.map(async (pane) => applyStatus(pane, await client.call('surface.status', { target: String(pane.surfaceId) }), now())));
    };

    const pollLoop = async (): Promise<void> => {
      while (!finished) {
        try {
          await pollOnce();
        } catch (error) {
          return finish(error);
        }
        evaluate();
        if (finished) return;
        await new Promise<void>((wake) => later(WAIT.pollMs, wake));
      }
    };

    if (opts.timeoutMs !== undefined) {
      later(opts.timeoutMs, () =>
        finish(new CorralError('timeout', `wait --match ${opts.selector} timed out after ${opts.timeoutMs! / 1000} s`)),
      );
    }

    if (opts.idle && deps.openEvents) {
      deps
        .openEvents()
        .then(async (stream) => {
          if (finished) return stream.close();
          events = stream;
          stream.onNotification((method, params) => {
            if (method !== EVENT_NOTIFICATION || typeof params !== 'object' || params === null) return;
            applyEvent(panes, params as Record<string, unknown>, now());
            evaluate();
          });
          await stream.call('events.subscribe', {
            surfaces: panes.map((p) => String(p.surfaceId)),
            types: [...IDLE_EVENT_TYPES],
          });
        })
        // The stream is an accelerator; polling output_generation still decides without it.
        .catch(() => undefined);
    }

    if (opts.pattern) {
      for (const pane of panes) {
        waitForNewLine(client, pane, opts.pattern.source).then(
          (line) => {
            pane.matched = [line];
            evaluate();
          },
          (error: unknown) => finish(error),
        );
      }
    }

    evaluate();
    if (opts.idle) void pollLoop();
  });
}
