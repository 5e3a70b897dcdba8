/** `session.*`: the saved session (SPEC §13). */
import { CorralError } from '../../contract/protocol.js';
import type { CorralCore, SessionPersistence } from '../../core/corral-core.js';
import type { HandlerTable } from './context.js';

function persistence(core: CorralCore): SessionPersistence {
  if (!core.persistence) throw new CorralError('invalid_params', 'this server does not save its session');
  return core.persistence;
}

export const sessionHandlers: HandlerTable = {
  'session.save': (_p, { core }) => persistence(core).save(),
  'session.info': (_p, { core }) => persistence(core).info(),
  'session.forget': (_p, { core }) => persistence(core).forget(),
};
