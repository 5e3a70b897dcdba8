/**
 * Waiting for a pane to settle before corral writes to it: its shell has printed its prompt
 * (a pane made a moment ago may still be exec'ing it), and its output has been quiet for a
 * while (a redraw in progress).
 */
import { CorralError, eventSurfaceId } from '../contract/protocol.js';
import type { CorralCore } from '../core/corral-core.js';
import type { PaneRecord } from '../session/model.js';
import { waitUntil } from '../wait/wait-until.js';

export const PANE_SETTLE = {
  /**
   * A pane created a moment ago may still be starting its shell (the fd-closing step execs
   * it): until the shell has printed anything, wait this long for it.
   */
  shellStartMs: 5000,
} as const;

/**
 * Resolves once the pane's shell has printed something (its prompt), or after
 * `shellStartMs`: a flow or script that creates a pane and starts an agent in it at once
 * must not find the fd-closing step in the foreground and be told the pane is busy.
 */
export async function shellStarted(core: CorralCore, pane: PaneRecord, signal: AbortSignal | undefined): Promise<void> {
  const host = core.host(pane);
  if (host.lastOutputAt !== null || host.exited) return;
  await waitUntil(
    {
      deadline: Date.now() + PANE_SETTLE.shellStartMs,
      signal,
      onTimeout: () => new CorralError('timeout', 'the shell printed nothing'),
      subscribe: (recheck) => {
        const listener = core.listen((event) => {
          if (eventSurfaceId(event) === pane.surfaceId && (event.type === 'surface_changed' || event.type === 'pane.closed' || event.type === 'pane.exited')) recheck();
        });
        return () => listener.dispose();
      },
    },
    () => (host.lastOutputAt !== null || host.exited || !core.paneBySurface(pane.surfaceId) ? true : undefined),
  ).catch((error: unknown) => {
    // A silent shell is judged by the caller as before; only a caller that went away ends here.
    if (signal?.aborted) throw error;
  });
}

/** Resolves once the pane has printed nothing for `quietMs` (or at the deadline). */
export function waitForQuiet(core: CorralCore, pane: PaneRecord, quietMs: number, deadline: number): Promise<void> {
  const host = core.host(pane);
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout;
    const arm = () => {
      clearTimeout(timer);
      const since = host.lastOutputAt === null ? quietMs : Date.now() - host.lastOutputAt;
      timer = setTimeout(done, Math.max(0, Math.min(quietMs - since, deadline - Date.now())));
    };
    const output = host.onOutput(arm);
    const done = () => {
      output.dispose();
      resolve();
    };
    arm();
  });
}
