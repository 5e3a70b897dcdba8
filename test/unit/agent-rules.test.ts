/** The screen-rule parser, loader and engine (src/agents/rules.ts), on synthetic rules and screens. */
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  defaultRulesDir,
  evaluateRules,
  explain,
  loadAllRules,
  loadRuleFile,
  matchingRules,
  parseRules,
  resumeArgs,
  rulesInUse,
  type AgentRules,
} from '../../src/agents/rules.js';
import { progressString, snapshotFromText, type ScreenSnapshot } from '../../src/agents/screen-snapshot.js';
import { AGENT_KINDS } from '../../src/agents/kinds.js';
import { parseError } from './rule-file-error.js';

/** SPEC §2: every agent kind corral recognises needs a rule file. */
const KINDS = [
  'pi', 'claude', 'codex', 'gemini', 'cursor', 'devin', 'agy', 'cline', 'omp', 'mastracode', 'opencode', 'copilot',
  'kimi', 'kiro', 'droid', 'amp', 'grok', 'hermes', 'kilo', 'qodercli', 'qwen', 'letta', 'maki', 'muse',
] as const;

const FILE = 'assets/agents/demo.toml';


const DEMO = `kind = "demo"
idle_confirm_ms = 750

[[rule]]
id = "ask"
state = "blocked"
priority = 100
region = "bottom:5"
contains = "Do you want to proceed?"
message = "block"

[[rule]]
id = "footer"
state = "working"
priority = 60
region = "bottom:2"
regex = 'esc to (interrupt|cancel)'
ignore_case = true

[[rule]]
id = "spinner"
state = "working"
priority = 50
region = "title"
regex = '^[\\u2800-\\u28FF]'

[[rule]]
id = "progress"
state = "working"
priority = 40
region = "progress"
regex = '^4;[13];'

[[rule]]
id = "login"
state = "unknown"
priority = 10
region = "screen"
contains = "Please log in"
`;

const snap = (text: string, title = '', progress = ''): ScreenSnapshot => snapshotFromText(text, title, progress);

describe('parseRules', () => {
  it('parses a valid file, sorted by priority, with defaults', () => {
    const rules = parseRules(DEMO, FILE);
    expect(rules.kind).toBe('demo');
    expect(rules.idleConfirmMs).toBe(750);
    expect(rules.verifiedWith).toBeNull();
    expect(rules.rules.map((r) => r.id)).toEqual(['ask', 'footer', 'spinner', 'progress', 'login']);
    expect(rules.rules[0]).toMatchObject({ state: 'blocked', region: { kind: 'bottom', lines: 5 }, message: 'block', line: 4, file: FILE });
    const noConfirm = parseRules(DEMO.replace('idle_confirm_ms = 750\n', ''), FILE);
    expect(noConfirm.idleConfirmMs).toBe(500);
  });

  it('keeps file order among equal priorities', () => {
    const rules = parseRules(DEMO.replace('priority = 50', 'priority = 60'), FILE);
    expect(rules.rules.map((r) => r.id)).toEqual(['ask', 'footer', 'spinner', 'progress', 'login']);
  });

  it('rejects an unknown key in a rule, naming file, line and key', () => {
    const err = parseError(DEMO.replace("regex = 'esc to", "regx = 'esc to"));
    expect(err.message).toContain('assets/agents/demo.toml:17: unknown key "regx" in [[rule]] "footer"');
    expect(err.issues.some((i) => i.key === 'regx' && i.line === 17)).toBe(true);
  });

  it('rejects an unknown top-level key', () => {
    const err = parseError(`kindd = "x"\n${DEMO}`);
    expect(err.message).toContain('assets/agents/demo.toml:1: unknown key "kindd"');
    expect(err.key).toBe('kindd');
  });

  it('rejects a bad region', () => {
    for (const region of ['bottom', 'bottom:0', 'bottom:-3', 'top:5', 'Screen', 'bottom:5x']) {
      const err = parseError(DEMO.replace('region = "bottom:5"', `region = "${region}"`));
      expect(err.message).toContain(`assets/agents/demo.toml:8: bad region "${region}"`);
      expect(err.message).toContain('[[rule]] "ask"');
      expect(err.key).toBe('region');
    }
  });

  it('rejects contains and regex together', () => {
    const err = parseError(DEMO.replace('contains = "Do you want to proceed?"', 'contains = "Do you"\nregex = "Do you"'));
    expect(err.message).toContain('assets/agents/demo.toml:10: both "contains" and "regex" set (use exactly one) in [[rule]] "ask"');
    expect(err.key).toBe('regex');
  });

  it('rejects a rule with neither contains nor regex', () => {
    const err = parseError(DEMO.replace('contains = "Please log in"\n', ''));
    expect(err.message).toMatch(/demo\.toml:\d+: missing key "contains" or "regex" in \[\[rule\]\] "login"/);
  });

  it('rejects a bad regex', () => {
    const err = parseError(DEMO.replace("regex = 'esc to (interrupt|cancel)'", "regex = 'esc to (interrupt'"));
    expect(err.message).toMatch(/^assets\/agents\/demo\.toml:17: invalid regex "esc to \(interrupt": .+ in \[\[rule\]\] "footer"$/m);
    expect(err.line).toBe(17);
    expect(err.key).toBe('regex');
  });

  it('rejects a duplicate rule id, naming both lines', () => {
    const err = parseError(DEMO.replace('id = "spinner"', 'id = "footer"'));
    expect(err.message).toContain('assets/agents/demo.toml:21: duplicate rule id "footer" (first defined on line 13) in [[rule]] "footer"');
    expect(err.key).toBe('id');
  });

  it('rejects bad values with the key named', () => {
    expect(parseError(DEMO.replace('state = "working"', 'state = "busy"')).message).toContain(
      'demo.toml:14: key "state" must be one of working | blocked | idle | unknown, got "busy" in [[rule]] "footer"',
    );
    expect(parseError(DEMO.replace('priority = 60', 'priority = 6.5')).message).toContain('demo.toml:15: key "priority" must be an integer');
    expect(parseError(DEMO.replace('priority = 60', 'priority = "60"')).message).toContain('key "priority" must be an integer, got "60"');
    expect(parseError(DEMO.replace('ignore_case = true', 'ignore_case = "yes"')).message).toContain('demo.toml:18: key "ignore_case" must be true or false');
    expect(parseError(DEMO.replace('message = "block"', 'message = "all"')).message).toContain('demo.toml:10: key "message" must be "line", "region" or "block"');
    expect(parseError(DEMO.replace('ignore_case = true', 'message = "line"')).message).toContain('demo.toml:18: key "message" is only meaningful for state = "blocked"');
    expect(parseError(DEMO.replace('idle_confirm_ms = 750', 'idle_confirm_ms = -1')).message).toContain('demo.toml:2: key "idle_confirm_ms" must be an integer');
    expect(parseError(DEMO.replace('id = "ask"', 'id = "Ask Me"')).message).toContain('demo.toml:5: key "id" must match');
    expect(parseError(DEMO.replace('contains = "Please log in"', 'contains = ""')).message).toContain('key "contains" must be a non-empty string');
  });

  it('requires kind to match the file name', () => {
    expect(parseError(DEMO.replace('kind = "demo"', 'kind = "other"')).message).toContain('demo.toml:1: kind "other" does not match the file name "demo.toml"');
    expect(parseError(DEMO.replace('kind = "demo"\n', '')).message).toContain('missing key "kind"');
  });

  it('requires [[rule]] entries', () => {
    expect(parseError('kind = "demo"\n').message).toBe('assets/agents/demo.toml: no [[rule]] entries');
    expect(parseError('kind = "demo"\n[rule]\nid = "x"\n').message).toContain('demo.toml:2: key "rule" must be an array of tables');
  });

  it('reports TOML syntax errors with line, column and the key there, like config and flow files', () => {
    const err = parseError('kind = "demo"\n[[rule]]\nid = "x\n');
    expect(err.message).toMatch(/^assets\/agents\/demo\.toml:3:\d+: invalid TOML: .* \(at key "rule\.id"\)$/);
    expect(err.line).toBe(3);
  });

  it('lists every problem at once, in line order', () => {
    const err = parseError(DEMO.replace('region = "bottom:2"', 'region = "nowhere"').replace('state = "blocked"', 'state = "stuck"'));
    // A non-blocked rule may not set message, so the bad state also flags line 10.
    expect(err.issues.map((i) => i.line)).toEqual([6, 10, 16]);
  });
});

describe('evaluateRules', () => {
  const rules = parseRules(DEMO, FILE);

  it('lets the highest priority match win and gives evidence with the region', () => {
    const v = evaluateRules(rules, snap('hello\n\n Do you want to proceed?\n 1. Yes\n 2. No\n  esc to cancel\n\n\n'));
    expect(v.status).toBe('blocked');
    expect(v.rule?.id).toBe('ask');
    expect(v.evidence).toEqual(['bottom:5 row 3: Do you want to proceed?']);
    expect(v.message).toBe('Do you want to proceed?\n1. Yes\n2. No\nesc to cancel');
  });

  it('counts bottom:N from the last non-blank line', () => {
    const text = `${'filler\n'.repeat(30)}Esc to interrupt\n\n   \n\n`;
    expect(evaluateRules(rules, snap(text)).status).toBe('working');
    // Two lines further up it is out of the bottom:2 region.
    expect(evaluateRules(rules, snap(`Esc to interrupt\nx\ny\n`)).status).toBe('idle');
  });

  it('is case-sensitive unless ignore_case', () => {
    expect(evaluateRules(rules, snap('x\ndo you want to proceed?')).status).toBe('idle');
    expect(evaluateRules(rules, snap('ESC TO INTERRUPT')).status).toBe('working');
  });

  it('matches the title and the progress string', () => {
    expect(evaluateRules(rules, snap('', '⠋ Working')).rule?.id).toBe('spinner');
    expect(evaluateRules(rules, snap('', '✳ Claude')).status).toBe('idle');
    expect(evaluateRules(rules, snap('', '', progressString({ state: 3, value: 0 }))).rule?.id).toBe('progress');
    expect(evaluateRules(rules, snap('', '', progressString({ state: 0, value: 0 }))).status).toBe('idle');
    expect(progressString(null)).toBe('');
  });

  it('returns idle with no rule when nothing matches, and unknown when a rule says so', () => {
    expect(evaluateRules(rules, snap('all quiet'))).toEqual({ status: 'idle', rule: null, evidence: [], message: null });
    expect(evaluateRules(rules, snap('Please log in\n\nmore\nlines\nhere\nand\nhere')).status).toBe('unknown');
  });

  it('builds line, region and block messages, trimmed of frames and capped', () => {
    const withMessage = (mode: string, region = 'bottom:8'): AgentRules =>
      parseRules(DEMO.replace('message = "block"', `message = "${mode}"`).replace('region = "bottom:5"', `region = "${region}"`), FILE);
    const screen = 'transcript line\n╭────────╮\n│ Run: rm -rf build │\n│ Do you want to proceed? │\n│ ● 1. Yes │\n╰────────╯\n';
    expect(evaluateRules(withMessage('line'), snap(screen)).message).toBe('Do you want to proceed?');
    expect(evaluateRules(withMessage('region'), snap(screen)).message).toBe('transcript line\nRun: rm -rf build\nDo you want to proceed?\n● 1. Yes');
    expect(evaluateRules(withMessage('block'), snap(screen)).message).toBe('Run: rm -rf build\nDo you want to proceed?\n● 1. Yes');
    // Without a frame top above the match, the block starts at the matched line.
    expect(evaluateRules(withMessage('block'), snap('a\nb\nDo you want to proceed?\nc')).message).toBe('Do you want to proceed?\nc');
    const long = `${'x'.repeat(80)}\n`.repeat(20) + 'Do you want to proceed?';
    const capped = evaluateRules(withMessage('region', 'screen'), snap(long)).message ?? '';
    expect(capped.length).toBe(500);
    expect(capped.endsWith('…')).toBe(true);
  });

  it('stays within the region for every rule kind (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 40 }), { maxLength: 50 }), fc.string({ maxLength: 20 }), (lines, title) => {
        const s: ScreenSnapshot = { lines, title, progress: '' };
        const v = evaluateRules(rules, s);
        const all = matchingRules(rules, s);
        expect(v.rule).toBe(all[0]?.rule ?? null);
        expect(v.status).toBe(all[0]?.rule.state ?? 'idle');
      }),
      { numRuns: 300 },
    );
  });
});

describe('explain', () => {
  it('names the deciding rule, its evidence and the runners-up', () => {
    const rules = parseRules(DEMO, FILE);
    const text = explain(rules, snap('x\nDo you want to proceed?\n1. Yes\nesc to cancel', '⠋ busy'));
    expect(text).toContain("kind: demo (assets/agents/demo.toml; UNVERIFIED: guessed rules, never checked on this agent's screens)");
    expect(text).toContain('status: blocked');
    expect(text).toContain('title: "⠋ busy"');
    expect(text).toContain('decided by: rule "ask" (assets/agents/demo.toml:4) → blocked, priority 100, region bottom:5, contains "Do you want to proceed?"');
    expect(text).toContain('  bottom:5 row 2: Do you want to proceed?');
    expect(text).toContain('message:\n  Do you want to proceed?');
    expect(text).toContain('also matched');
    expect(text).toContain('rule "footer" (assets/agents/demo.toml:12) → working, priority 60, region bottom:2, regex /esc to (interrupt|cancel)/i');
    expect(text).toContain('rule "spinner"');
    expect(text).toContain('idle confirmation window: 750 ms');
  });

  it('says when nothing matched', () => {
    const text = explain(parseRules(DEMO, FILE), snap('quiet'));
    expect(text).toContain('status: idle');
    expect(text).toContain('decided by: no rule matched (5 checked); a known agent with no match is idle');
    expect(text).not.toContain('also matched');
  });
});

describe('shipped rule files', () => {
  it('has one file per SPEC §2 kind, plus the generic rules, and nothing else', () => {
    // The process-detection table must name the same kinds, or a detected agent has no rules.
    expect([...AGENT_KINDS].sort()).toEqual([...KINDS].sort());
    const files = readdirSync(defaultRulesDir()).filter((f) => f.endsWith('.toml')).sort();
    expect(files).toEqual([...KINDS, 'generic'].map((k) => `${k}.toml`).sort());
  });

  it('all load; every kind has a working and a blocked rule', () => {
    const all = loadAllRules();
    expect([...all.keys()].sort()).toEqual([...KINDS, 'generic'].sort());
    expect(all.get('generic')!.generic).toBe(true);
    expect([...all.values()].filter((r) => r.generic).map((r) => r.kind)).toEqual(['generic']);
    for (const kind of KINDS) {
      const r = all.get(kind)!;
      expect(r.file).toBe(`assets/agents/${kind}.toml`);
      expect(r.rules.some((x) => x.state === 'working'), `${kind} working rule`).toBe(true);
      expect(r.rules.some((x) => x.state === 'blocked'), `${kind} blocked rule`).toBe(true);
      expect(r.idleConfirmMs).toBeGreaterThan(0);
    }
  });

  it('marks exactly the captured agents as verified', () => {
    const verified = [...loadAllRules().values()].filter((r) => r.verifiedWith !== null).map((r) => r.kind).sort();
    expect(verified).toEqual(['claude', 'codex', 'gemini', 'kilo', 'opencode', 'pi', 'qwen']);
  });

  it('has every unverified file say what its guesses rest on, and no verified file claim both', () => {
    for (const r of loadAllRules().values()) {
      if (r.generic) expect(r.evidence).toBeTruthy();
      else if (r.verifiedWith === null) expect(r.evidence, `${r.kind}: evidence`).toMatch(/never captured|nothing known/);
      else expect(r.evidence, `${r.kind}: a verified file needs no excuse`).toBeNull();
    }
  });

  it('carries the resume form of every agent verified live', () => {
    const all = loadAllRules();
    const forms = Object.fromEntries(['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo', 'opencode'].map((k) => [k, all.get(k)?.resume?.args.join(' ')]));
    expect(forms).toEqual({
      claude: '--resume {id}',
      codex: 'resume {id}',
      gemini: '--resume {id}',
      qwen: '--resume {id}',
      pi: '--session {id}',
      kilo: '--session {id}',
      opencode: '--session {id}',
    });
    expect(resumeArgs(all.get('codex')!.resume!, 'abc')).toEqual(['resume', 'abc']);
    // Proven live in the lab (restore.live and lifecycle.live tests).
    const proven = Object.keys(forms).filter((k) => all.get(k)!.resume!.verifiedWith !== null);
    expect(proven).toEqual(['claude', 'codex', 'gemini', 'qwen', 'pi', 'kilo', 'opencode']);
  });

  it('reads transcript_scroll per kind: the wheel by default, page keys for Kilo', () => {
    const all = loadAllRules();
    expect(all.get('kilo')!.transcriptScroll).toBe('page-keys');
    expect(all.get('codex')!.transcriptScroll).toBe('wheel');
    expect(parseRules(DEMO, FILE).transcriptScroll).toBe('wheel');
    expect(parseRules(`transcript_scroll = "page-keys"\n${DEMO}`, FILE).transcriptScroll).toBe('page-keys');
    const err = parseError(`transcript_scroll = "arrows"\n${DEMO}`);
    expect(err.message).toContain('transcript_scroll');
    expect(err.message).toContain('"wheel", "page-keys"');
  });

  it('CORRAL_AGENT_RULES=generic sets every kind\'s own rules aside', () => {
    const all = loadAllRules();
    expect(rulesInUse(all, {})).toBe(all);
    expect([...rulesInUse(all, { CORRAL_AGENT_RULES: 'generic' }).keys()]).toEqual(['generic']);
  });

  it('rejects a [resume] table without exactly one {id}, or with unknown keys', () => {
    const base = `${DEMO}\n[resume]\nid_from = "hook"\n`;
    expect(parseRules(`${base}args = ["--resume", "{id}"]\n`, FILE).resume).toEqual({ args: ['--resume', '{id}'], idFrom: 'hook', verifiedWith: null, valueOptions: new Map(), dropOptions: new Set(), keepPositionals: false, sessionFiles: [] });
    expect(parseError(`${base}args = ["--resume"]\n`).message).toContain('key "args" must hold "{id}" exactly once in [resume]');
    expect(parseError(`${base}args = ["{id}"]\nflag = 1\n`).message).toContain('unknown key "flag" in [resume]');
  });

  it('loads a rules dir given explicitly, naming files outside the package by path', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'corral-rules-'));
    writeFileSync(path.join(dir, 'demo.toml'), DEMO);
    expect(loadAllRules(dir).get('demo')?.rules).toHaveLength(5);
    writeFileSync(path.join(dir, 'demo.toml'), DEMO.replace('region = "bottom:5"', 'region = "bottom"'));
    expect(() => loadRuleFile(path.join(dir, 'demo.toml'))).toThrow(`${path.join(dir, 'demo.toml')}:8: bad region "bottom"`);
  });
});
