import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CorralError } from '../../src/contract/protocol.js';
import { waitUntil, type WaitUntilOptions } from '../../src/wait/wait-until.js';

/** A subscription the test drives by hand, recording whether it is still live. */
function source() {
  const state = {
    live: false,
    subscribed: 0,
    unsubscribed: 0,
    recheck: (): void => undefined,
    fail: (_error: unknown): void => undefined,
  };
  const subscribe: WaitUntilOptions['subscribe'] = (recheck, fail) => {
    state.live = true;
    state.subscribed += 1;
    state.recheck = recheck;
    state.fail = fail;
    return () => {
      state.live = false;
      state.unsubscribed += 1;
    };
  };
  return { state, subscribe };
}

const timeout = (): Error => new CorralError('timeout', 'too late');

describe('waitUntil', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    expect(vi.getTimerCount()).toBe(0);
    vi.useRealTimers();
  });

  it('resolves at once without subscribing when the first check decides', async () => {
    const { state, subscribe } = source();
    await expect(waitUntil({ deadline: Date.now() + 1000, signal: undefined, onTimeout: timeout, subscribe }, () => 'now')).resolves.toBe('now');
    expect(state.subscribed).toBe(0);
  });

  it('checks again on each wake-up and resolves with the first defined value, then unsubscribes', async () => {
    const { state, subscribe } = source();
    let value: number | undefined;
    let checks = 0;
    const wait = waitUntil({ deadline: Date.now() + 1000, signal: undefined, onTimeout: timeout, subscribe }, () => {
      checks += 1;
      return value;
    });
    state.recheck();
    expect(checks).toBe(2);
    value = 7;
    state.recheck();
    await expect(wait).resolves.toBe(7);
    expect(state).toMatchObject({ live: false, unsubscribed: 1 });
    state.recheck();
    expect(checks).toBe(3);
  });

  it('rejects with the deadline error when time runs out, and not a moment before', async () => {
    const { state, subscribe } = source();
    const wait = waitUntil({ deadline: Date.now() + 500, signal: undefined, onTimeout: timeout, subscribe }, () => undefined);
    const outcome = wait.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(499);
    expect(state.live).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(await outcome).toMatchObject({ code: 'timeout', message: 'too late' });
    expect(state).toMatchObject({ live: false, unsubscribed: 1 });
  });

  it('a deadline already past still lets the first check win, then times out', async () => {
    const { subscribe } = source();
    await expect(waitUntil({ deadline: Date.now() - 10, signal: undefined, onTimeout: timeout, subscribe }, () => true)).resolves.toBe(true);
    const late = waitUntil({ deadline: Date.now() - 10, signal: undefined, onTimeout: timeout, subscribe }, () => undefined);
    const outcome = late.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(0);
    expect(await outcome).toMatchObject({ code: 'timeout' });
  });

  it('waits forever without a deadline (no timer at all)', async () => {
    const { state, subscribe } = source();
    let done: boolean | undefined;
    const wait = waitUntil({ deadline: undefined, signal: undefined, onTimeout: timeout, subscribe }, () => done);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(3_600_000);
    done = true;
    state.recheck();
    await expect(wait).resolves.toBe(true);
  });

  it('ends with "client went away" when the signal aborts, and releases everything', async () => {
    const { state, subscribe } = source();
    const controller = new AbortController();
    const wait = waitUntil({ deadline: Date.now() + 1000, signal: controller.signal, onTimeout: timeout, subscribe }, () => undefined);
    controller.abort();
    await expect(wait).rejects.toMatchObject({ code: 'internal_error', message: 'client went away' });
    expect(state).toMatchObject({ live: false, unsubscribed: 1 });
  });

  it('does not subscribe when the signal had aborted already', async () => {
    const { state, subscribe } = source();
    const controller = new AbortController();
    controller.abort();
    await expect(
      waitUntil({ deadline: Date.now() + 1000, signal: controller.signal, onTimeout: timeout, subscribe }, () => undefined),
    ).rejects.toMatchObject({ code: 'internal_error' });
    expect(state.subscribed).toBe(0);
  });

  it('rejects with what the check throws, or what the subscription fails with', async () => {
    const broken = source();
    let fault: Error | null = null;
    const thrown = waitUntil({ deadline: undefined, signal: undefined, onTimeout: timeout, subscribe: broken.subscribe }, () => {
      if (fault) throw fault;
      return undefined;
    });
    fault = new CorralError('agent_not_running', 'gone');
    broken.state.recheck();
    await expect(thrown).rejects.toBe(fault);
    expect(broken.state.live).toBe(false);

    const closing = source();
    const failed = waitUntil({ deadline: Date.now() + 1000, signal: undefined, onTimeout: timeout, subscribe: closing.subscribe }, () => undefined);
    const closed = new CorralError('pane_not_found', 'closed');
    closing.state.fail(closed);
    closing.state.fail(new Error('second failure is ignored'));
    await expect(failed).rejects.toBe(closed);
    expect(closing.state).toMatchObject({ live: false, unsubscribed: 1 });
  });

  it('releases a subscription that ended the wait while it was being set up', async () => {
    let unsubscribed = 0;
    let ready = false;
    const wait = waitUntil(
      {
        deadline: Date.now() + 1000,
        signal: undefined,
        onTimeout: timeout,
        subscribe: (recheck) => {
          ready = true;
          recheck();
          return () => (unsubscribed += 1);
        },
      },
      () => (ready ? 'set' : undefined),
    );
    await expect(wait).resolves.toBe('set');
    expect(unsubscribed).toBe(1);
  });

  it('removes its abort listener when it ends another way', async () => {
    const { state, subscribe } = source();
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    let value: string | undefined;
    const wait = waitUntil({ deadline: undefined, signal: controller.signal, onTimeout: timeout, subscribe }, () => value);
    value = 'ok';
    state.recheck();
    await expect(wait).resolves.toBe('ok');
    expect(remove).toHaveBeenCalledWith('abort', expect.any(Function));
    controller.abort();
    expect(state.unsubscribed).toBe(1);
  });
});
