import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatOutcome, runWait } from '../../src/cli/wait.js';
import {
  applyEvent,
  applyStatus,
  baselineOf,
  compilePattern,
  isPaneIdle,
  isPaneSatisfied,
  isWaitSatisfied,
  matchingLines,
  newLinesSince,
  splitRead,
  WAIT,
  type PaneProgress,
  type RpcCaller,
} from '../../src/wait/wait-logic.js';
import { CorralError, type SurfaceStatus } from '../../src/contract/protocol.js';

/** A read of the given lines ending at absolute line `end`. */
const read = (end: number, lines: string[]) => ({ text: lines.join('\n'), lines: lines.length, end_line: end });

describe('new-line matching', () => {
  it('numbers the lines of a read from end_line backwards', () => {
    expect(splitRead(read(10, ['a', 'b', 'c']))).toEqual({ end: 10, lines: ['a', 'b', 'c'], positions: [7, 8, 9] });
    expect(splitRead({ text: 'a\nb\n', lines: 2, end_line: 5 })).toEqual({ end: 5, lines: ['a', 'b'], positions: [3, 4] });
    expect(splitRead({ text: '', lines: 0, end_line: 5 })).toEqual({ end: 5, lines: [], positions: [] });
    expect(splitRead({ text: '', lines: 1, end_line: 1 })).toEqual({ end: 1, lines: [''], positions: [0] });
  });

  it('keys unwrapped lines by the row they start on (line_starts)', () => {
    // Rows 0-1 are one wrapped line, row 2 the prompt.
    const unwrapped = (end: number, lines: string[], starts: number[]) => ({ ...read(end, lines), line_starts: starts });
    expect(splitRead(unwrapped(3, ['long wrapped', '$ '], [0, 2])).positions).toEqual([0, 2]);
    const base = baselineOf(unwrapped(3, ['old', '$ '], [0, 2]));
    expect(base.endLine).toBe(3);
    // The prompt line grew into a command whose output wrapped onto new rows: the whole line is new once.
    expect(newLinesSince(base, unwrapped(6, ['old', '$ echo xxxxWRAPMARKER', 'xxxxWRAPMARKER_END'], [0, 2, 5]))).toEqual([
      '$ echo xxxxWRAPMARKER',
      'xxxxWRAPMARKER_END',
    ]);
    expect(newLinesSince(base, unwrapped(3, ['old', '$ '], [0, 2]))).toEqual([]);
  });

  it('only lines past the baseline are new', () => {
    const base = baselineOf(read(3, ['old 1', 'old 2', '$ ']));
    expect(base.endLine).toBe(3);
    expect(newLinesSince(base, read(3, ['old 1', 'old 2', '$ ']))).toEqual([]);
    expect(newLinesSince(base, read(5, ['old 1', 'old 2', '$ ', 'DONE', '$ ']))).toEqual(['DONE', '$ ']);
  });

  it('a baseline line counts when its text changed (output continued it, or an app redrew it)', () => {
    const base = baselineOf(read(3, ['old', 'old', '$ ']));
    expect(newLinesSince(base, read(3, ['old', 'old', '$ make DONE']))).toEqual(['$ make DONE']);
    // A full-screen app redrawing a row in place: new text at an old index is new output.
    expect(newLinesSince(base, read(3, ['DONE', 'old', '$ ']))).toEqual(['DONE']);
    // Unchanged rows never count.
    expect(newLinesSince(base, read(3, ['old', 'old', '$ ']))).toEqual([]);
  });

  it('still sees new lines when the window scrolled past the baseline', () => {
    const base = baselineOf(read(100, ['x']));
    expect(newLinesSince(base, read(700, ['n1', 'n2']))).toEqual(['n1', 'n2']);
  });

  it('an empty pane at baseline makes every later line new', () => {
    const base = baselineOf({ text: '', lines: 0, end_line: 0 });
    expect(base.endLine).toBe(0);
    expect(newLinesSince(base, read(2, ['a', 'b']))).toEqual(['a', 'b']);
  });

  it('matches line by line, the same lines on every poll (no lastIndex state)', () => {
    const re = compilePattern('^DONE');
    expect(matchingLines(['DONE 1', 'x', 'DONE 2'], re)).toEqual(['DONE 1', 'DONE 2']);
    expect(matchingLines(['DONE 1', 'DONE 2'], re)).toEqual(['DONE 1', 'DONE 2']);
  });

  it('a bad --pattern is invalid_regex', () => {
    expect(() => compilePattern('(')).toThrow(CorralError);
    try {
      compilePattern('(');
    } catch (e) {
      expect((e as CorralError).code).toBe('invalid_regex');
    }
  });
});

const pane = (over: Partial<PaneProgress> = {}): PaneProgress => ({
  surfaceId: 1,
  paneId: 'w1:p1',
  tool: null,
  agentStatus: null,
  outputGeneration: 0,
  lastOutputAt: 0,
  ...over,
});

describe('idle decisions', () => {
  it('an agent is idle when idle or done, whatever the output', () => {
    expect(isPaneIdle(pane({ tool: 'claude', agentStatus: 'working' }), 10_000, 1000)).toBe(false);
    expect(isPaneIdle(pane({ tool: 'claude', agentStatus: 'blocked' }), 10_000, 1000)).toBe(false);
    expect(isPaneIdle(pane({ tool: 'claude', agentStatus: 'idle', lastOutputAt: 9999 }), 10_000, 1000)).toBe(true);
    expect(isPaneIdle(pane({ tool: 'claude', agentStatus: 'done' }), 0, 1000)).toBe(true);
  });

  it('a pane without an agent is idle after --for ms of quiet', () => {
    expect(isPaneIdle(pane({ lastOutputAt: 500 }), 1499, 1000)).toBe(false);
    expect(isPaneIdle(pane({ lastOutputAt: 500 }), 1500, 1000)).toBe(true);
  });

  it('--idle --pattern needs both', () => {
    const opts = { idle: true, pattern: /x/, quietMs: 1000 };
    expect(isPaneSatisfied(pane({ lastOutputAt: 0 }), opts, 5000)).toBe(false);
    expect(isPaneSatisfied(pane({ lastOutputAt: 0, matched: ['x'] }), opts, 5000)).toBe(true);
    expect(isPaneSatisfied(pane({ lastOutputAt: 4500, matched: ['x'] }), opts, 5000)).toBe(false);
  });

  it('--any needs one pane, --all and single need every pane', () => {
    expect(isWaitSatisfied('any', [false, true])).toBe(true);
    expect(isWaitSatisfied('all', [false, true])).toBe(false);
    expect(isWaitSatisfied('all', [true, true])).toBe(true);
    expect(isWaitSatisfied('single', [true])).toBe(true);
    expect(isWaitSatisfied('any', [])).toBe(false);
  });

  it('events and polled status update a pane', () => {
    const panes = [pane({ surfaceId: 1 }), pane({ surfaceId: 2 })];
    applyEvent(panes, { type: 'surface_changed', surface_id: 2, output_generation: 7 }, 300);
    expect(panes[1]).toMatchObject({ lastOutputAt: 300, outputGeneration: 7 });
    expect(panes[0].lastOutputAt).toBe(0);
    applyEvent(panes, { type: 'agent.status_changed', surface_id: 1, tool: 'codex', agent_status: 'working' }, 400);
    expect(panes[0]).toMatchObject({ tool: 'codex', agentStatus: 'working' });

    const status = { tool: null, agent_status: 'idle', output_generation: 7 } as SurfaceStatus;
    applyStatus(panes[1], status, 900);
    expect(panes[1].lastOutputAt).toBe(300); // same generation: no new output
    applyStatus(panes[1], { ...status, output_generation: 8 }, 950);
    expect(panes[1].lastOutputAt).toBe(950);
  });

  it('human output prints matched lines, prefixed when several panes matched', () => {
    expect(formatOutcome({ matched: true, panes: ['w1:p1'], matches: [{ surface_id: 1, pane_id: 'w1:p1', lines: ['DONE'] }] })).toBe('DONE\n');
    expect(
      formatOutcome({
        matched: true,
        panes: ['w1:p1', 'w1:p2'],
        matches: [
          { surface_id: 1, pane_id: 'w1:p1', lines: ['a'] },
          { surface_id: 2, pane_id: 'w1:p2', lines: ['b'] },
        ],
      }),
    ).toBe('w1:p1: a\nw1:p2: b\n');
    expect(formatOutcome({ matched: true, panes: ['w1:p1'], matches: [] })).toBe('w1:p1 idle\n');
  });
});

/** A fake server: statuses per surface, and the answer to a server-side wait for output (never, when absent). */
function fakeClient(matchedLine?: string, status: Partial<SurfaceStatus> = {}) {
  const calls: { method: string; params: Record<string, unknown> }[] = [];
  const client: RpcCaller = {
    async call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
      calls.push({ method, params });
      if (method === 'surface.status') {
        return { surface_id: 1, pane_id: 'w1:p1', tool: null, agent_status: 'idle', output_generation: 1, ...status } as T;
      }
      if (method === 'pane.wait_for_output') {
        if (matchedLine === undefined) return new Promise<T>(() => undefined);
        return { pane_id: 'w1:p1', matched_line: matchedLine } as T;
      }
      if (method === 'surface.list') return { surfaces: [] } as T;
      throw new Error(`unexpected ${method}`);
    },
    onNotification: () => () => undefined,
    close: () => undefined,
  };
  return { client, calls };
}

describe('runWait', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('pattern mode has the server wait for a new line (new_only) and returns the line it matched', async () => {
    const { client, calls } = fakeClient('DONE new');
    const done = runWait({ client }, { selector: 'api', idle: false, pattern: /^DONE/, mode: 'single', quietMs: 1000 });
    await expect(done).resolves.toEqual({
      matched: true,
      panes: ['w1:p1'],
      matches: [{ surface_id: 1, pane_id: 'w1:p1', lines: ['DONE new'] }],
    });
    expect(calls[0]).toEqual({ method: 'surface.status', params: { target: 'api' } });
    expect(calls[1]).toEqual({
      method: 'pane.wait_for_output',
      params: { pane_id: 'w1:p1', match: { type: 'regex', value: '^DONE' }, lines: WAIT.scanLines, new_only: true },
    });
    // No polling: the pattern is the server's to watch.
    expect(calls).toHaveLength(2);
  });

  it('times out with code timeout', async () => {
    const { client } = fakeClient();
    const done = runWait({ client }, { selector: 'api', idle: false, pattern: /never/, mode: 'single', timeoutMs: 2000, quietMs: 1000 });
    const assertion = expect(done).rejects.toMatchObject({ code: 'timeout' });
    await vi.advanceTimersByTimeAsync(2000);
    await assertion;
  });

  it('idle mode: a quiet pane without an agent is idle after --for', async () => {
    const { client } = fakeClient();
    let settled = false;
    const done = runWait({ client }, { selector: 'api', idle: true, mode: 'single', quietMs: 1200 }).finally(() => (settled = true));
    await vi.advanceTimersByTimeAsync(1100);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    await expect(done).resolves.toEqual({ matched: true, panes: ['w1:p1'], matches: [] });
  });

  it('idle mode: an idle agent satisfies at once', async () => {
    const { client } = fakeClient(undefined, { tool: 'claude', agent_status: 'done' });
    await expect(runWait({ client }, { selector: 'api', idle: true, mode: 'single', quietMs: 1000 })).resolves.toMatchObject({ matched: true });
  });

  it('--any with a selector matching nothing is target_not_found', async () => {
    const { client } = fakeClient();
    await expect(runWait({ client }, { selector: 'cmdline:x', idle: true, mode: 'any', quietMs: 1000 })).rejects.toMatchObject({
      code: 'target_not_found',
    });
  });
});
