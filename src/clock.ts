/**
 * Time as the core and the agent registry see it: the wall clock and timers. Production
 * passes SYSTEM_CLOCK (Date.now and Node's timers); unit tests pass a clock they move by
 * hand, so idle windows, stall checks and event pacing are tested without waiting.
 */

/** A pending timeout or interval; `unref` lets the process exit while it waits. */
export interface ClockTimer {
  unref(): unknown;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): ClockTimer;
  setInterval(callback: () => void, ms: number): ClockTimer;
  /** Cancels a timeout or an interval. */
  clear(timer: ClockTimer): void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  setInterval: (callback, ms) => setInterval(callback, ms),
  // Node's clearTimeout cancels intervals too.
  clear: (timer) => clearTimeout(timer as NodeJS.Timeout),
};
