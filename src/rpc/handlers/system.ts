/** `system.*`: liveness, identity and what this server can do. */
import { METHODS } from '../../contract/protocol.js';
import { VERSION } from '../../version.js';
import type { HandlerGroup } from './context.js';

export const systemHandlers = {
  'system.ping': () => ({ pong: true, version: VERSION }),
  'system.identify': (_p, { core }) => ({
    name: 'corral',
    version: VERSION,
    protocol: 'jsonrpc-2.0',
    pid: process.pid,
    socket: core.options.socketPath,
  }),
  'system.capabilities': (_p, { core }) => ({ scripting: core.scripting, methods: [...METHODS] }),
} satisfies HandlerGroup;
