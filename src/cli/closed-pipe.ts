/**
 * A reader that stops early (`corral ps --json | head -c1`, `corral workspace list | true`)
 * closes our stdout; the next write then fails with EPIPE, which Node raises as an unhandled
 * 'error' event and a stack trace. Like `ls | head`, the CLI just ends, quietly: the reader
 * got what it wanted, so the exit code is the verb's own (0 unless it already failed).
 * Only client verbs write through `out()`, so a foreground server or the TUI never get this.
 */

let installed = false;

/** A closed pipe on stdout or stderr ends the process quietly from now on. */
export function endQuietlyOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      process.exit(process.exitCode ?? 0);
    });
  }
}
