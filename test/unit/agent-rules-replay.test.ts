/**
 * The captured agent sessions replayed through corral's own headless terminal
 * (PaneTerminal, the `detection` read source): the fixtures' `.txt` screens come from tmux,
 * so this proves the rules see the same thing in corral. Each fixture's `offset` is the
 * length of the agent's raw output (tmux pipe-pane) a moment after that screen was captured.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { evaluateRules, explain, loadAllRules, type ScreenStatus } from '../../src/agents/rules.js';
import { progressString, snapshotFromText } from '../../src/agents/screen-snapshot.js';
import { PaneTerminal } from '../../src/terminal/pane-terminal.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/agents');
/** The size of the tmux window the fixtures were captured in. */
const CAPTURE_SIZE = { cols: 120, rows: 40 } as const;

interface Step {
  state: string;
  offset: number;
  title: string;
  alternate: boolean;
  expected: ScreenStatus;
}

function stepsOf(kind: string): Step[] {
  const dir = path.join(FIXTURES, kind);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ state: f.slice(0, -5), ...(JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as Omit<Step, 'state'>) }))
    .filter((s) => typeof s.offset === 'number')
    .sort((a, b) => a.offset - b.offset);
}

const sessions = readdirSync(FIXTURES)
  .filter((kind) => readdirSync(path.join(FIXTURES, kind)).includes('session.raw.gz'))
  .sort();
const rules = loadAllRules();

describe('agent sessions replayed through PaneTerminal', () => {
  it('has a recorded session for each verified agent', () => {
    const verified = [...rules.values()].filter((r) => r.verifiedWith !== null).map((r) => r.kind);
    expect(new Set(sessions.map((dir) => dir.split('+')[0]))).toEqual(new Set(verified));
  });

  it.each(sessions)('%s: every captured state is detected from the headless terminal', async (dir) => {
    // `pi+ext`: pi captured with the lab's extensions; the rules are pi's.
    const kind = dir.split('+')[0];
    const raw = gunzipSync(readFileSync(path.join(FIXTURES, dir, 'session.raw.gz')));
    const steps = stepsOf(dir);
    // idle, two working, done, done after a tool, working, interrupted: pi as shipped has no prompts.
    expect(steps.length).toBeGreaterThanOrEqual(7);
    const term = new PaneTerminal({ ...CAPTURE_SIZE });
    // Cuts may fall inside a UTF-8 sequence; a streaming decoder carries the partial bytes over.
    const decoder = new TextDecoder('utf-8');
    let at = 0;
    try {
      for (const step of steps) {
        await term.write(decoder.decode(raw.subarray(at, step.offset), { stream: true }));
        at = step.offset;
        const snap = snapshotFromText(term.read({ source: 'detection' }).text, term.title, progressString(term.progress));
        const verdict = evaluateRules(rules.get(kind)!, snap);
        expect(verdict.status, `${kind}/${step.state}\n${explain(rules.get(kind)!, snap)}`).toBe(step.expected);
        expect(term.title.trimEnd(), `${kind}/${step.state} title`).toBe(step.title.trimEnd());
        expect(term.xterm.buffer.active.type === 'alternate', `${kind}/${step.state} alternate`).toBe(step.alternate);
      }
    } finally {
      term.dispose();
    }
  });
});
