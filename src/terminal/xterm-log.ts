/**
 * Where a pane terminal's own complaints go. xterm.js logs every parse error it meets
 * (`Parsing error: …`, to console.error by default): 8 MB of /dev/urandom in one pane made
 * the server log grow by 26 MB. Here each pane reports at most once per window, with the
 * count of what it held back since its last report, so a flooding pane costs a line a minute.
 */
import type { ILogger } from '@xterm/headless';
import { visibleControls } from './control-chars.js';

export const XTERM_LOG = {
  /** At most one report per pane per this long (issue 10: once per pane per minute). */
  windowMs: 60_000,
  /** A report quotes this much of the message; the rest is the pane's noise. */
  maxDetailChars: 200,
} as const;

function describe(message: string, params: readonly unknown[]): string {
  const rest = params.map((param) => {
    if (param instanceof Error) return param.message;
    try {
      return typeof param === 'string' ? param : JSON.stringify(param);
    } catch {
      return String(param);
    }
  });
  // Params can quote the pane's bytes: shown with their controls made visible, and cut short.
  return visibleControls([message.trim(), ...rest].join(' ')).slice(0, XTERM_LOG.maxDetailChars);
}

/** An xterm logger that reports at most once per window, with a count of the rest. */
export class RateLimitedXtermLog implements ILogger {
  /** How reports name the pane; the core sets it once it knows the pane. */
  label = 'pane';
  private held = 0;
  private lastReportAt = -Infinity;

  constructor(
    private readonly write: (line: string) => void = (line) => process.stderr.write(line),
    private readonly now: () => number = Date.now,
  ) {}

  trace(): void {}
  debug(): void {}
  info(): void {}

  warn(message: string, ...params: unknown[]): void {
    this.report('warning', message, params);
  }

  error(message: string | Error, ...params: unknown[]): void {
    this.report('error', message instanceof Error ? message.message : message, params);
  }

  /** Reports what was held back (when the pane closes), so no count is lost. */
  flush(): void {
    if (this.held === 0) return;
    this.write(`corral: ${this.label}: ${this.held} more xterm error${this.held === 1 ? '' : 's'} since the last report\n`);
    this.held = 0;
  }

  private report(level: string, message: string, params: readonly unknown[]): void {
    const now = this.now();
    if (now - this.lastReportAt < XTERM_LOG.windowMs) {
      this.held++;
      return;
    }
    const held = this.held > 0 ? ` (+${this.held} more since the last report)` : '';
    this.write(`corral: ${this.label}: xterm ${level}: ${describe(message, params)}${held}; more are counted, reported at most once a minute\n`);
    this.lastReportAt = now;
    this.held = 0;
  }
}
