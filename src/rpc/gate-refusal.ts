/**
 * What a refusal by the scripting gate (SPEC §8) says, shared by the gate (src/rpc/gate.ts) and
 * the handlers that decide a refusal themselves: how to open the gate, and the refusal of a
 * call that lifts a limit (SPEC §18: raising or clearing a budget).
 */
import { CorralError, methodVerb } from '../contract/protocol.js';

/** How to open the gate, in every refusal. */
export const GATE_HOW_TO_OPEN =
  'start the server with --scripting (or CORRAL_SCRIPTING=1), set ai_unrestricted = true in config.toml, or press ctrl+b s in the TUI';

/**
 * For `when-raising` methods (SPEC §18): the handler knows whether the call lifts a limit;
 * lifting one (raising or clearing a budget) needs the gate open.
 */
export function requireGateToRaise(method: string, raising: boolean, scripting: boolean, what: string): void {
  if (!raising || scripting) return;
  throw new CorralError('scripting_disabled', `${methodVerb(method)}: ${what} needs the scripting gate (setting or lowering one does not): ${GATE_HOW_TO_OPEN}`);
}
