/** herdr-style pane input/output: `pane.read`, `send_text`, `send_keys`, `run`, `wait_for_output`. */
import { CorralError } from '../../contract/protocol.js';
import { optBool, optInt, optOneOf, str, text, type Params } from '../params.js';
import { runCommand, sendKeys, typeRaw, waitForOutput } from '../../actions/pane-io.js';
import { keysParam, paneParam, readOptions } from './handler-params.js';
import type { HandlerGroup } from './context.js';
import { BOUNDS } from '../../contract/bounds.js';
import { readGathering } from '../../actions/transcript.js';

export const paneIoHandlers = {
  // Gathers an idle full-screen agent's transcript like agent.read, but never refuses: a busy agent reads passively.
  'pane.read': async (p, { core }) => {
    const opts = readOptions(p);
    return { read: await readGathering(core, paneParam(core, p), opts, 'passive') };
  },
  'pane.send_text': (p, { core }) => {
    typeRaw(core, paneParam(core, p), text(p, 'text'));
    return { sent: true };
  },
  'pane.send_keys': (p, { core }) => {
    sendKeys(core, paneParam(core, p), keysParam(p));
    return { sent: true };
  },
  'pane.run': (p, { core }) => {
    runCommand(core, paneParam(core, p), str(p, 'command'));
    return { sent: true };
  },
  'pane.wait_for_output': (p, { core, signal }) => {
    const raw = p.match;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new CorralError('invalid_params', 'param "match" must be {type: "substring"|"regex", value: string}');
    }
    const m = raw as Params;
    const match = { type: optOneOf(m, 'type', ['substring', 'regex'] as const) ?? 'substring', value: text(m, 'value') };
    if (match.value === '') throw new CorralError('invalid_params', 'match.value must not be empty');
    const opts = { ...readOptions(p), match, timeoutMs: optInt(p, 'timeout_ms', BOUNDS.timeoutMs.min, BOUNDS.timeoutMs.max), newOnly: optBool(p, 'new_only') ?? false, signal };
    // Params first, then the pane: a malformed request is invalid_params whatever it names.
    return waitForOutput(core, paneParam(core, p), opts);
  },
} satisfies HandlerGroup;

