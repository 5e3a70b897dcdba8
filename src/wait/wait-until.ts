/**
 * The one shape of every event-driven wait on the server (`agent.wait`, `agent.start`'s
 * detection, `pane.wait_for_output`): check now; check again whenever something that can
 * change the answer happens; end at the deadline, when the caller goes away, or when the
 * subscription reports a failure — and then, exactly once, unsubscribe and stop the timer.
 */
import { CorralError } from '../contract/protocol.js';

/** Ends a subscription. */
export type Unsubscribe = () => void;

export interface WaitUntilOptions {
  /** When to give up, in ms since the epoch (`Date.now()`); undefined waits forever. */
  deadline: number | undefined;
  /** The caller's signal: when it aborts, the wait ends with `internal_error` (client went away). */
  signal: AbortSignal | undefined;
  /** The error the wait ends with at the deadline. */
  onTimeout: () => Error;
  /**
   * Subscribes to whatever can change the answer. `recheck` runs the check again; `fail` ends
   * the wait with an error (the pane closed, the shell reported the command missing). Called
   * once, only when the first check did not decide; its result is called once when the wait ends.
   */
  subscribe: (recheck: () => void, fail: (error: unknown) => void) => Unsubscribe;
}

/** The error a wait ends with when its caller goes away (nobody reads it; it only frees the wait). */
export function clientGone(): CorralError {
  return new CorralError('internal_error', 'client went away');
}

/**
 * Resolves with the first value `check` returns that is not undefined; rejects with what
 * `check` throws, with `onTimeout()` at the deadline, with what the subscription fails with,
 * or when `signal` aborts. Whatever ends it, the subscription, the timer and the abort
 * listener are released exactly once, and later wake-ups are ignored.
 */
export function waitUntil<T>(opts: WaitUntilOptions, check: () => T | undefined): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    let unsubscribe: Unsubscribe | undefined;
    let timer: NodeJS.Timeout | undefined;
    const onAbort = (): void => end(() => reject(clientGone()));

    function end(settle: () => void): void {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      unsubscribe?.();
      settle();
    }

    /** Runs the check; true when it ended the wait. */
    const decide = (): boolean => {
      if (settled) return true;
      let value: T | undefined;
      try {
        value = check();
      } catch (error) {
        end(() => reject(error));
        return true;
      }
      if (value === undefined) return false;
      end(() => resolve(value));
      return true;
    };

    if (decide()) return;
    if (opts.signal?.aborted) return onAbort();
    const subscription = opts.subscribe(
      () => void decide(),
      (error) => end(() => reject(error)),
    );
    // The subscription may already have ended the wait while it was being set up.
    if (settled) return subscription();
    unsubscribe = subscription;
    if (opts.deadline !== undefined) {
      timer = setTimeout(() => end(() => reject(opts.onTimeout())), Math.max(0, opts.deadline - Date.now()));
    }
    opts.signal?.addEventListener('abort', onAbort, { once: true });
  });
}
