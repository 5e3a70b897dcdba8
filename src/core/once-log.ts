/** The server log for what can repeat at will (a peer's refusals, a checkpoint failing in one repository): each distinct one is written once. */
import { visibleControls } from '../terminal/control-chars.js';

/** Distinct refusals remembered; past this, one last line says the rest are not logged. */
const MAX_DISTINCT = 256;

export class OnceLog {
  private readonly seen = new Set<string>();
  private full = false;

  constructor(private readonly write: (line: string) => void = (line) => process.stderr.write(line)) {}

  /** Logs `message` unless a refusal with the same `key` was logged before. */
  note(key: string, message: string): void {
    if (this.seen.has(key) || this.full) return;
    if (this.seen.size >= MAX_DISTINCT) {
      this.full = true;
      this.write(`corral server: more than ${MAX_DISTINCT} distinct refusals; further ones are not logged\n`);
      return;
    }
    this.seen.add(key);
    // What a peer sent (a pane id, a method name) reaches the log: no escape sequence of it may act on a terminal.
    this.write(`corral server: ${visibleControls(message)}\n`);
  }
}
