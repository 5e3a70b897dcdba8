/** `events.subscribe`: a stream of events on the caller's connection (SPEC §7). */
import { CorralError, EVENT_TYPES } from '../../contract/protocol.js';
import type { Params } from '../params.js';
import type { HandlerGroup } from './context.js';

/** Accepts a list of strings or numbers (surface ids) for the `surfaces` filter. */
function selectorList(p: Params, name: string): string[] | undefined {
  const value = p[name];
  if (value === undefined || value === null) return undefined;
  const list = Array.isArray(value) ? value : [value];
  if (list.some((item) => typeof item !== 'string' && typeof item !== 'number')) {
    throw new CorralError('invalid_params', `param "${name}" must be a list of selectors`);
  }
  return list.map(String);
}

export const eventHandlers = {
  'events.subscribe': (p, ctx) => {
    const types = selectorList(p, 'types');
    const unknown = types?.filter((type) => !(EVENT_TYPES as readonly string[]).includes(type)) ?? [];
    if (unknown.length > 0) {
      throw new CorralError('invalid_params', `unknown event type ${unknown.map((t) => `"${t}"`).join(', ')}; known types: ${EVENT_TYPES.join(', ')}`, {
        unknown,
      });
    }
    const selectors = selectorList(p, 'surfaces');
    const surfaces = selectors
      ? new Set(selectors.flatMap((selector) => ctx.core.resolve(selector, { allowMany: true }).map((pane) => pane.surfaceId)))
      : undefined;
    // `machine`: only that machine's events (SPEC §14); without it, this machine's and every connected one's.
    const machine = typeof p.machine === 'string' ? p.machine : undefined;
    if (machine !== undefined && !ctx.machines?.has(machine)) throw new CorralError('machine_not_found', `no machine named ${JSON.stringify(machine)}`, { machine });
    const subscription = ctx.core.bus.subscribe({ surfaces, types: types ? new Set(types) : undefined, machine }, ctx.sink, { paused: true });
    const remote = ctx.machines?.onEvent((frame) => subscription.pushRemote(frame));
    ctx.afterResponse(() => subscription.start());
    // A subscriber may legitimately say nothing for hours: its connection is not idle.
    ctx.holdStream();
    ctx.onClose(() => {
      remote?.();
      subscription.dispose();
    });
    return { type: 'subscribed', id: subscription.id };
  },
} satisfies HandlerGroup;
