/** `system.*`: liveness, identity and what this server can do. */
import { MACHINE_PROTOCOL, METHODS } from '../../contract/protocol.js';
import { VERSION } from '../../version.js';
import { SHARED_HIBERNATION } from '../../terminal/hibernation.js';
import type { HandlerGroup } from './context.js';

export const systemHandlers = {
  'system.ping': () => ({ pong: true, version: VERSION }),
  'system.identify': (_p, { core }) => ({
    name: 'corral',
    version: VERSION,
    protocol: 'jsonrpc-2.0',
    pid: process.pid,
    socket: core.options.socketPath,
    // What a machine link checks before it mirrors this server (SPEC §14).
    machine_protocol: MACHINE_PROTOCOL,
  }),
  'system.capabilities': (_p, { core }) => ({ scripting: core.scripting, methods: [...METHODS] }),
  'system.stats': (_p, { core, timings }) => {
    const memory = process.memoryUsage();
    return {
      uptime_s: Math.round(process.uptime()),
      memory: { rss: memory.rss, heap_total: memory.heapTotal, heap_used: memory.heapUsed, external: memory.external, array_buffers: memory.arrayBuffers },
      requests: timings.summary(),
      events: { subscribers: core.bus.subscriberCount, fan_out: core.bus.fanOutTimes.summary() },
      terminals: SHARED_HIBERNATION.stats(),
    };
  },
} satisfies HandlerGroup;
