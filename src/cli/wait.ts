/**
 * `corral wait` (SPEC §9), client-side: resolve the selector to panes, then poll their
 * scrollback for new lines matching a pattern and/or follow the event stream until they are
 * idle. The deciding logic is pure (src/wait/wait-logic.ts); `runWait` only wires it to a
 * connection.
 */
import { CorralError, EVENT_NOTIFICATION, type SurfaceListResult, type SurfaceReadResult, type SurfaceStatus } from '../contract/protocol.js';
import {
  applyEvent,
  applyStatus,
  baselineOf,
  isPaneSatisfied,
  isWaitSatisfied,
  matchingLines,
  newLinesSince,
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
 * The pane's last lines, unwrapped (a line the pane soft-wrapped matches whole, as herdr's
 * `pane wait-output` does), each keyed by the row it starts on (`line_starts`).
 */
function readTail(client: RpcCaller, pane: PaneProgress): Promise<SurfaceReadResult> {
  return client.call('surface.read', {
    target: String(pane.surfaceId),
    source: 'recent-unwrapped',
    lines: WAIT.scanLines,
    raw: true,
  });
}

/** Runs a wait to its end: resolves with the outcome, rejects with `timeout` or the first RPC error. */
export async function runWait(deps: WaitDeps, opts: WaitOptions): Promise<WaitOutcome> {
  const now = deps.now ?? Date.now;
  const { client } = deps;
  const panes = await resolvePanes(client, opts, now());
  if (opts.pattern) {
    await Promise.all(panes.map(async (pane) => (pane.baseline = baselineOf(await readTail(client, pane)))));
  }

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
      await Promise.all(
        panes.map(async (pane) => {
          if (opts.pattern && pane.matched === undefined && pane.baseline) {
            const lines = matchingLines(newLinesSince(pane.baseline, await readTail(client, pane)), opts.pattern);
            if (lines.length > 0) pane.matched = lines;
          }
          if (opts.idle) applyStatus(pane, await client.call('surface.status', { target: String(pane.surfaceId) }), now());
        }),
      );
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

    evaluate();
    void pollLoop();
  });
}
