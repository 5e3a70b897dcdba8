/** `machine.*` (SPEC §14): the saved machines and their links. */
import { CorralError } from '../../contract/protocol.js';
import type { HandlerGroup, MachineService } from './context.js';
import { str } from '../params.js';
import { readOptions } from './handler-params.js';

function service(machines: MachineService | null): MachineService {
  if (!machines) throw new CorralError('internal_error', 'this server does not link to machines');
  return machines;
}

export const machineHandlers = {
  'machine.list': (_p, { machines }) => {
    const hub = service(machines);
    return { machines: hub.list(), file: hub.file, problem: hub.fileProblem };
  },
  'machine.reload': (_p, { machines }) => {
    const hub = service(machines);
    return { machines: hub.reload(), file: hub.file, problem: hub.fileProblem };
  },
  'machine.read': (p, { machines }) => ({ read: service(machines).readMirror(str(p, 'pane_id'), readOptions(p)) }),
} satisfies HandlerGroup;
