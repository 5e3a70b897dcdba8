/** `corral` with no verb: the full-screen TUI with the server embedded. */
import { CorralError } from '../rpc/protocol.js';

export interface TuiOptions {
  socket?: string;
  session?: string;
}

/** Starts the TUI; resolves with the process exit code. */
export async function runTui(_opts: TuiOptions): Promise<number> {
  throw new CorralError('internal_error', 'the TUI is not available in this build yet; use `corral server`');
}
