/**
 * How a running flow shows itself on stderr: on a terminal, one line per step redrawn in
 * place (status, elapsed time, pane, what it is doing); elsewhere (logs, CI) one plain line
 * per status change. Plus the human summary `flow run` prints at the end.
 */
import type { FlowReport, StepState, StepStatus } from './scheduler.js';
import { visibleControls } from '../terminal/control-chars.js';

const SYMBOL: Record<StepStatus, string> = {
  pending: '·',
  running: '▸',
  ready: '✓',
  failed: '✗',
  skipped: '-',
  aborted: '!',
};

const PROGRESS = {
  /** Elapsed times of running steps tick this often on a terminal. */
  tickMs: 1000,
  /** Narrowest line we lay out for; narrower terminals wrap. */
  minColumns: 40,
  /** Width assumed when the terminal does not say. */
  fallbackColumns: 80,
} as const;

export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

function seconds(ms: number | null): string {
  return ms === null ? '' : `${(ms / 1000).toFixed(1)}s`;
}

/** One step's line: symbol, id, status, time, pane, then what it does or why it failed. */
export function formatStepLine(state: StepState, idWidth: number, now: number): string {
  const elapsed = state.status === 'running' && state.startedAt !== null ? now - state.startedAt : state.duration_ms;
  const detail = state.error ? state.error.message : (state.phase ?? '');
  // Error messages may quote a pane (its command line, an agent's message): made visible (SPEC §8).
  return visibleControls(`${SYMBOL[state.status]} ${state.id.padEnd(idWidth)}  ${state.status.padEnd(7)}  ${seconds(elapsed).padStart(7)}  ${(state.pane_id ?? '').padEnd(6)}  ${detail}`.trimEnd());
}

/** Live progress on a stream; call `update` on every change and `finish` at the end. */
export class ProgressView {
  private states: readonly StepState[] = [];
  private drawn = 0;
  private readonly lastStatus = new Map<string, string>();
  private ticker: NodeJS.Timeout | null = null;
  private readonly live: boolean;

  constructor(
    private readonly stream: ProgressStream,
    private readonly flow: string,
    private readonly now: () => number = Date.now,
  ) {
    this.live = stream.isTTY === true;
    if (this.live) {
      this.ticker = setInterval(() => this.draw(), PROGRESS.tickMs);
      this.ticker.unref();
    }
  }

  update(states: readonly StepState[]): void {
    this.states = states;
    if (this.live) return this.draw();
    for (const state of states) {
      const key = state.status;
      if (this.lastStatus.get(state.id) === key || state.status === 'pending') continue;
      this.lastStatus.set(state.id, key);
      const detail = state.error ? `: ${state.error.message}` : '';
      const time = state.status === 'running' ? '' : ` after ${seconds(state.duration_ms)}`;
      const line = `flow ${this.flow}: step ${state.id} ${state.status}${state.pane_id ? ` (${state.pane_id})` : ''}${state.duration_ms === null ? '' : time}${detail}`;
      this.stream.write(`${visibleControls(line)}\n`);
    }
  }

  private draw(): void {
    const idWidth = Math.max(4, ...this.states.map((s) => s.id.length));
    // A pty that reports no size (0 columns) gets the classic 80.
    const columns = Math.max(PROGRESS.minColumns, this.stream.columns || PROGRESS.fallbackColumns);
    const now = this.now();
    const lines = this.states.map((s) => {
      const line = formatStepLine(s, idWidth, now);
      return line.length >= columns ? `${line.slice(0, columns - 2)}…` : line;
    });
    let text = this.drawn > 0 ? `\x1b[${this.drawn}A` : '';
    for (const line of lines) text += `\r\x1b[2K${line}\n`;
    this.stream.write(text);
    this.drawn = lines.length;
  }

  /** Stops the ticker; on a terminal, leaves the final state drawn. */
  finish(): void {
    if (this.ticker) clearInterval(this.ticker);
    this.ticker = null;
    if (this.live) this.draw();
  }
}

/** The human report `flow run` prints on stdout (without --json). */
export function formatFlowReport(report: FlowReport): string {
  const idWidth = Math.max(4, ...report.steps.map((s) => s.id.length));
  const lines = [`flow ${JSON.stringify(report.flow)}: ${report.status}`];
  for (const step of report.steps) {
    lines.push(
      `  ${step.id.padEnd(idWidth)}  ${step.status.padEnd(7)}  ${seconds(step.duration_ms).padStart(7)}  ${(step.pane_id ?? '-').padEnd(6)}${step.error ? `  ${step.error.message}` : ''}`.trimEnd(),
    );
  }
  return `${lines.join('\n')}\n`;
}
