/**
 * The server's handler table: one handler per method of the contract's method table
 * (src/contract/methods.ts), plus the hook notifications. TypeScript checks that every method
 * has a handler returning its result shape; `checkHandlerTable` checks it again at start-up
 * by name, both ways, so neither a method without a handler nor a handler without a table
 * entry can ship (test/unit/method-table.test.ts).
 */
import { HOOK_METHODS, METHODS } from '../../contract/protocol.js';
import type { HandlerTable, MethodHandlers } from './context.js';
import { systemHandlers } from './system.js';
import { structureHandlers } from './structure.js';
import { paneIoHandlers } from './pane-io.js';
import { surfaceHandlers } from './surface.js';
import { eventHandlers } from './events.js';
import { agentHandlers, hookHandlers } from './agents.js';
import { upHandlers } from './up.js';
import { clientHandlers } from './clients.js';
import { sessionHandlers } from './session.js';
import { machineHandlers } from './machines.js';
import { mirrorHandlers } from './mirror.js';
import { worktreeHandlers } from './worktrees.js';
import { webHandlers } from './web.js';
import { checkpointHandlers } from './checkpoints.js';

/** One handler per method of the table. */
export const METHOD_HANDLERS: MethodHandlers = {
  ...systemHandlers,
  ...structureHandlers,
  ...paneIoHandlers,
  ...surfaceHandlers,
  ...eventHandlers,
  ...agentHandlers,
  ...upHandlers,
  ...clientHandlers,
  ...sessionHandlers,
  ...machineHandlers,
  ...mirrorHandlers,
  ...worktreeHandlers,
  ...webHandlers,
  ...checkpointHandlers,
};

/** Every handler the server registers: the table's methods and the hook notifications. */
export const HANDLERS: HandlerTable = { ...METHOD_HANDLERS, ...hookHandlers };

/** Throws unless `handlers` answers exactly the table's methods and the hook notifications. */
export function checkHandlerTable(handlers: HandlerTable): void {
  const expected = new Set<string>([...METHODS, ...HOOK_METHODS]);
  const missing = [...expected].filter((method) => !Object.hasOwn(handlers, method));
  const extra = Object.keys(handlers).filter((method) => !expected.has(method));
  if (missing.length > 0) throw new Error(`no handler for ${missing.join(', ')} (src/rpc/handlers/)`);
  if (extra.length > 0) throw new Error(`handler for ${extra.join(', ')} with no entry in METHOD_TABLE (src/contract/methods.ts)`);
}
