/**
 * Per-keystroke timing of the server's echo path, for bench/profile/echo-hops.mjs (docs/bench.md,
 * "Echo: where the time goes"). Off unless `CORRAL_ECHO_TRACE` names a directory: then
 * `ECHO_TRACE` records, else it is null, so each call site (`ECHO_TRACE?.mark(HOP.x)`) costs
 * one null check in a normal server.
 *
 * A keystroke's record starts when its bytes reach the server's JavaScript (`HOP.arrived`); every later hop
 * keeps its first time only, so the record holds the path of that key's echo (the bench types
 * one key at a time and waits for its echo). Times are CLOCK_MONOTONIC nanoseconds
 * (`process.hrtime.bigint()`), the clock every process on the machine shares, so the bench can
 * put its own times beside them. Records live in one preallocated array (no allocation per
 * key) and are written once, when the process exits, to a new owner-only file in that
 * directory (`O_EXCL | O_NOFOLLOW`, mode 0600): `echo-trace-<pid>.tsv`, a header of hop names
 * then one line per keystroke.
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** The hops, in the order a keystroke's echo passes them. */
export const HOP = {
  /** The key's bytes reached the server's JavaScript (the client's tty read, or its socket's data). */
  arrived: 0,
  /** Decoded input reaches `TuiController.handleInput`. */
  input: 1,
  /** Parsed and routed: about to be written to the focused pane. */
  routed: 2,
  /** `write(2)` to the pane's pty returned (a remote pane: its `pane.input` handed to the link). */
  ptyWritten: 3,
  /** The pane's output (the echo) came off the pty (`PaneProcess`; a remote pane: its batch off the link). */
  ptyRead: 4,
  /** The echo was predicted and handed to the client's connection. */
  predicted: 5,
  /** The connection's write returned (the bytes are in the kernel). */
  sent: 6,
  /** xterm parsed the echo (the pane's revision listeners ran). */
  parsed: 7,
  /** The reconciling frame started composing. */
  frameStart: 8,
  /** That frame was written (or found nothing to write). */
  frameEnd: 9,
} as const;

export const HOP_NAMES = Object.keys(HOP) as (keyof typeof HOP)[];

/** Keystrokes kept; later ones are dropped (a bench types a few hundred). */
const CAPACITY = 100_000;

/** Records hop times per keystroke; see the file comment. */
export class EchoTrace {
  private readonly times: Float64Array;
  private count = 0;
  private current = -1;

  constructor(
    private readonly dir: string,
    private readonly capacity = CAPACITY,
  ) {
    this.times = new Float64Array(capacity * HOP_NAMES.length).fill(Number.NaN);
  }

  /** Records `hop` now: a new keystroke for `HOP.arrived`, else the current one's first `hop`. */
  mark(hop: number): void {
    if (hop === HOP.arrived) {
      if (this.count === this.capacity) {
        this.current = -1;
        return;
      }
      this.current = this.count++;
    }
    if (this.current < 0) return;
    const at = this.current * HOP_NAMES.length + hop;
    if (Number.isNaN(this.times[at])) this.times[at] = Number(process.hrtime.bigint());
  }

  /** The records as TSV: hop names, then one line of nanoseconds per keystroke (empty: not reached). */
  toTsv(): string {
    const lines = [HOP_NAMES.join('\t')];
    for (let k = 0; k < this.count; k++) {
      const row: string[] = [];
      for (let h = 0; h < HOP_NAMES.length; h++) {
        const t = this.times[k * HOP_NAMES.length + h] as number;
        row.push(Number.isNaN(t) ? '' : String(t));
      }
      lines.push(row.join('\t'));
    }
    return lines.join('\n') + '\n';
  }

  /** Writes the records to a new owner-only file in the trace directory; returns its path. */
  save(): string {
    const path = join(this.dir, `echo-trace-${process.pid}.tsv`);
    // A file that exists (or a symlink planted there) is never written through.
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      writeSync(fd, this.toTsv());
    } finally {
      closeSync(fd);
    }
    return path;
  }
}

function fromEnv(): EchoTrace | null {
  const dir = process.env.CORRAL_ECHO_TRACE;
  if (!dir) return null;
  const trace = new EchoTrace(dir);
  process.once('exit', () => {
    try {
      trace.save();
    } catch (error) {
      process.stderr.write(`corral: could not write the echo trace to ${dir}: ${(error as Error).message}\n`);
    }
  });
  return trace;
}

/** The process's recorder, or null (the usual case) when `CORRAL_ECHO_TRACE` is unset. */
export const ECHO_TRACE: EchoTrace | null = fromEnv();
