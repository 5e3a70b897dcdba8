/**
 * The generic rules (assets/agents/generic.toml) on the real captures of every lab agent,
 * with the agent's own rules set aside: an agent corral does not know, using the common
 * idioms, must still read as working while it works and idle when it is not. The captures are
 * replayed through corral's own headless terminal, as the live tracker reads a pane.
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
const LAB_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo', 'opencode'];
const generic = loadAllRules().get('generic')!;

interface Step {
  state: string;
  offset: number;
  expected: ScreenStatus;
}

function stepsOf(dir: string): Step[] {
  return readdirSync(path.join(FIXTURES, dir))
    .filter((f) => f.endsWith('.json'))
    .map((f) => ({ state: f.slice(0, -5), ...(JSON.parse(readFileSync(path.join(FIXTURES, dir, f), 'utf8')) as Omit<Step, 'state'>) }))
    // Captures taken apart from the recorded stream (idle-resumed-wide) have no offset in it.
    .filter((s) => typeof s.offset === 'number')
    .sort((a, b) => a.offset - b.offset);
}

/** Every capture dir of the seven lab agents (pi twice: as shipped and with extensions). */
const dirs = readdirSync(FIXTURES).filter((d) => LAB_AGENTS.includes(d.split('+')[0]));

describe('generic rules on the lab agents, their own rules set aside', () => {
  it('is marked generic, and covers all seven agents', () => {
    expect(generic.generic).toBe(true);
    expect(new Set(dirs.map((d) => d.split('+')[0]))).toEqual(new Set(LAB_AGENTS));
  });

  it.each(dirs)('%s: working vs idle right on every capture, blocked where the prompt says so', async (dir) => {
    const raw = gunzipSync(readFileSync(path.join(FIXTURES, dir, 'session.raw.gz')));
    const term = new PaneTerminal({ cols: 120, rows: 40 });
    const decoder = new TextDecoder('utf-8');
    let at = 0;
    try {
      for (const step of stepsOf(dir)) {
        await term.write(decoder.decode(raw.subarray(at, step.offset), { stream: true }));
        at = step.offset;
        const snap = snapshotFromText(term.read({ source: 'detection' }).text, term.title, progressString(term.progress));
        const verdict = evaluateRules(generic, snap);
        expect(verdict.status, `${dir}/${step.state}\n${explain(generic, snap)}`).toBe(step.expected);
      }
    } finally {
      term.dispose();
    }
  });
});
