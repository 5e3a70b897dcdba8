/**
 * A minimal typed event emitter: `on` returns a disposer, listeners are isolated from each
 * other so one throwing listener can neither starve the rest nor break the caller that fired
 * (often xterm's parser or node-pty's read loop).
 */

import type { Disposable } from '../contract/disposable.js';

/** A set of listeners for one kind of event. */
export class Emitter<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /**
   * Subscribe; the returned disposer unsubscribes. Listeners are called in the order they
   * subscribed, except that `first` puts this one ahead of all subscribed so far (a client's
   * keystroke echo is drawn before the server's own bookkeeping of the same output).
   */
  on(listener: (value: T) => void, options: { first?: boolean } = {}): Disposable {
    // Wrap so the same function can be subscribed twice and disposed independently.
    const entry = (value: T): void => listener(value);
    if (options.first && this.listeners.size > 0) {
      const rest = [...this.listeners];
      this.listeners.clear();
      this.listeners.add(entry);
      for (const other of rest) this.listeners.add(other);
    } else this.listeners.add(entry);
    return { dispose: () => this.listeners.delete(entry) };
  }

  /** Call every listener; a throwing listener is reported asynchronously, not to the firer. */
  fire(value: T): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(value);
      } catch (err) {
        // Surface the bug as an uncaught error without unwinding the firer's stack.
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  /** Number of current listeners. */
  get size(): number {
    return this.listeners.size;
  }

  /** Drop every listener. */
  clear(): void {
    this.listeners.clear();
  }
}
