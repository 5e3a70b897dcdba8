/**
 * The shipped rule files against real screens captured from the pinned agents
 * (test/fixtures/agents/<kind>/<state>.txt + .json; see docs/agent-rules.md for how they
 * were made). Every capture must evaluate to the state a person saw on it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { evaluateRules, explain, loadAllRules, type ScreenStatus } from '../../src/agents/rules.js';
import { snapshotFromText } from '../../src/agents/screen-snapshot.js';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/agents');

interface FixtureMeta {
  title: string;
  alternate: boolean;
  progress?: string;
  expected: ScreenStatus;
}

interface Fixture extends FixtureMeta {
  kind: string;
  state: string;
  text: string;
}

/** `pi+ext` holds pi captured with the lab's extensions: the kind is the part before `+`. */
export function kindOfFixtureDir(name: string): string {
  return name.split('+')[0];
}

function loadFixtures(): Fixture[] {
  const out: Fixture[] = [];
  for (const name of readdirSync(FIXTURES).sort()) {
    const dir = path.join(FIXTURES, name);
    const kind = kindOfFixtureDir(name);
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.json')).sort()) {
      const state = file.slice(0, -'.json'.length);
      const meta = JSON.parse(readFileSync(path.join(dir, file), 'utf8')) as FixtureMeta;
      out.push({ ...meta, kind, state: name === kind ? state : `${name.slice(kind.length + 1)}-${state}`, text: readFileSync(path.join(dir, `${state}.txt`), 'utf8') });
    }
  }
  return out;
}

const fixtures = loadFixtures();
const rules = loadAllRules();

/**
 * Captures only the OSC title can classify: Codex hides its "esc to interrupt" status line
 * while text streams, so mid-stream its screen looks like an idle one (docs/agent-rules.md).
 */
const TITLE_ONLY = new Set(['codex/working-midstream', 'codex/working-before-interrupt']);

describe('agent rule fixtures', () => {
  it('has captures for every verified agent, and only for verified agents', () => {
    const verified = [...rules.values()].filter((r) => r.verifiedWith !== null).map((r) => r.kind);
    expect(new Set(fixtures.map((f) => f.kind))).toEqual(new Set(verified));
    for (const kind of verified) {
      const states = new Set(fixtures.filter((f) => f.kind === kind).map((f) => f.expected));
      expect(states, kind).toEqual(new Set(['idle', 'working', 'blocked']));
    }
  });

  it.each(fixtures.map((f) => [`${f.kind}/${f.state}`, f] as const))('%s', (_name, f) => {
    const kindRules = rules.get(f.kind);
    expect(kindRules, `rules for ${f.kind}`).toBeDefined();
    const snap = snapshotFromText(f.text, f.title, f.progress ?? '');
    const verdict = evaluateRules(kindRules!, snap);
    expect(verdict.status, explain(kindRules!, snap)).toBe(f.expected);
    if (f.expected === 'blocked') {
      expect(verdict.message, 'a blocked verdict carries the question').toBeTruthy();
    }
    // An idle screen of a kind with ready rules must show positive evidence: `agent start`
    // waits for it (a resumed Kilo at 160 columns once had none and never became ready).
    if (f.expected === 'idle' && kindRules!.rules.some((r) => r.state === 'idle' && !r.interrupted)) {
      expect(verdict.rule?.state, `${f.kind}/${f.state}: decided by an idle rule\n${explain(kindRules!, snap)}`).toBe('idle');
    }
  });

  // Titles can be turned off by the user or eaten by an outer multiplexer; the screen alone
  // should still tell, except where the agent shows nothing on screen.
  it.each(fixtures.map((f) => [`${f.kind}/${f.state}`, f] as const))('%s without its title', (name, f) => {
    const snap = snapshotFromText(f.text, '', f.progress ?? '');
    const verdict = evaluateRules(rules.get(f.kind)!, snap);
    if (TITLE_ONLY.has(name)) expect(verdict.status).toBe('idle');
    else expect(verdict.status, explain(rules.get(f.kind)!, snap)).toBe(f.expected);
  });

  it('does not take Codex for ready while it still starts up', () => {
    // Seen live (codex 0.171, loaded machine): for 5-7 s after launch the composer and a bare
    // "? for shortcuts" footer are drawn, but no key is read; a prompt typed then is lost to
    // the activity check (agent_prompt_stalled). The started footer adds "← for agents".
    const starting = ['', '  >_ OpenAI Codex (v0.171.0)', '     /tmp/corral-test-frMlmz/project', '', '', '', '› Ask Codex to do anything', '', '  ? for shortcuts'].join('\n');
    const verdict = evaluateRules(rules.get('codex')!, snapshotFromText(starting, 'project'));
    expect(verdict.rule, explain(rules.get('codex')!, snapshotFromText(starting, 'project'))).toBeNull();
    // At 40 columns the started footer drops "? for shortcuts" and keeps "← for agents".
    const narrow = ['› Ask Codex to do anything', '', '  gpt-fake default · /tmp/corral-test-', '  tC6AYr/project', '  ← for agents ⚠ 1 warning · f2 to view'].join('\n');
    expect(evaluateRules(rules.get('codex')!, snapshotFromText(narrow, 'project')).rule?.id).toBe('ready-footer');
  });

  it('builds useful blocked messages from the real prompts', () => {
    const find = (kind: string, state: string): Fixture => fixtures.find((f) => f.kind === kind && f.state === state)!;
    const msg = (f: Fixture): string => evaluateRules(rules.get(f.kind)!, snapshotFromText(f.text, f.title)).message ?? '';
    expect(msg(find('claude', 'permission-prompt'))).toContain('touch /tmp/x');
    expect(msg(find('claude', 'permission-prompt'))).toContain('Do you want to proceed?');
    expect(msg(find('claude', 'question-prompt'))).toContain('Which color should the widget be?');
    expect(msg(find('gemini', 'permission-prompt'))).toContain('Allow execution of [Shell]?');
    expect(msg(find('gemini', 'permission-prompt'))).not.toMatch(/^│/m);
    expect(msg(find('gemini', 'question-prompt'))).toContain('Which color should the widget be?');
    expect(msg(find('codex', 'permission-prompt'))).toContain('$ touch /tmp/x');
  });

  it('explains the deciding rule, its evidence and the runners-up', () => {
    const f = fixtures.find((x) => x.kind === 'gemini' && x.state === 'permission-prompt')!;
    const text = explain(rules.get('gemini')!, snapshotFromText(f.text, f.title));
    expect(text).toContain('status: blocked');
    expect(text).toMatch(/decided by: rule "permission-prompt" \(assets\/agents\/gemini\.toml:\d+\) → blocked, priority 100, region bottom:20/);
    expect(text).toMatch(/bottom:20 row \d+: │ Allow execution of \[Shell\]\?/);
    expect(text).toContain('also matched');
    expect(text).toContain('rule "action-required-title"');
    expect(text).toContain('verified with @google/gemini-cli@0.61.0');
  });
});
