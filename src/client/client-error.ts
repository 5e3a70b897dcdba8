/**
 * The client's errors in the CLI's format (SPEC §6): `{"error":{code,message}}` on stderr and
 * the exit code for the code. Kept apart from src/cli/output.ts so the client entry does not
 * load the CLI's width tables.
 */
import { CorralError, exitCodeFor } from '../contract/protocol.js';

/** DEL and the C1 controls, which JSON.stringify leaves raw and a terminal would act on. */
const RAW_CONTROLS = /[\u007f-\u009f]/g;

export function formatClientError(error: unknown): { line: string; code: number } {
  const code = error instanceof CorralError ? error.code : 'internal_error';
  const message = error instanceof Error ? error.message : String(error);
  const json = JSON.stringify({ error: { code, message } }).replace(RAW_CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return { line: `${json}\n`, code: exitCodeFor(code) };
}
