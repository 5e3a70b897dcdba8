/**
 * resumeArgv: the command line that resumes an agent's own session (SPEC §13) from the
 * shipped `[resume]` tables — same flags, the kind's resume form, nothing that picks another
 * session or sends the first prompt again.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isValidSessionId, resumeArgv } from '../../src/agents/resume.js';
import { loadAllRules, parseRules } from '../../src/agents/rules.js';

const ID = '0b6f3c2e-7a51-4d8e-9f00-123456789abc';

describe('resumeArgv per kind', () => {
  it('claude: keeps model and permission mode, drops the prompt and an earlier resume', () => {
    expect(resumeArgv('claude', ID, ['claude', '--model', 'opus', '--permission-mode', 'plan', 'fix the tests'])).toEqual([
      'claude',
      '--model',
      'opus',
      '--permission-mode',
      'plan',
      '--resume',
      ID,
    ]);
    expect(resumeArgv('claude', ID, ['claude', '--resume', 'old-id', '--continue', '-c', '--model=sonnet'])).toEqual(['claude', '--model=sonnet', '--resume', ID]);
    // -r takes an optional value: a following option is not it.
    expect(resumeArgv('claude', ID, ['claude', '-r', '--dangerously-skip-permissions'])).toEqual(['claude', '--dangerously-skip-permissions', '--resume', ID]);
    // Variadic values stay with their option; a value that looks like a prompt is not dropped.
    expect(resumeArgv('claude', ID, ['claude', '--add-dir', '/a', '/b', '--model', 'fix bugs'])).toEqual(['claude', '--add-dir', '/a', '/b', '--model', 'fix bugs', '--resume', ID]);
  });

  it('codex: the subcommand follows the program, options after it; an earlier resume and the prompt go', () => {
    expect(resumeArgv('codex', ID, ['codex', '-m', 'gpt-5', '-a', 'never', '-c', 'model_reasoning_effort=high', 'write a test'])).toEqual([
      'codex',
      'resume',
      ID,
      '-m',
      'gpt-5',
      '-a',
      'never',
      '-c',
      'model_reasoning_effort=high',
    ]);
    expect(resumeArgv('codex', ID, ['codex', 'resume', 'old-id', '--sandbox', 'workspace-write'])).toEqual(['codex', 'resume', ID, '--sandbox', 'workspace-write']);
    expect(resumeArgv('codex', ID, ['codex', 'resume', '--last', '-i', 'a.png', 'b.png', '--search'])).toEqual(['codex', 'resume', ID, '--search']);
  });

  it('gemini and qwen: --resume <id>; an interactive first prompt is not sent again', () => {
    expect(resumeArgv('gemini', ID, ['gemini', '-m', 'gemini-2.5-pro', '-i', 'explain this repo', '--yolo'])).toEqual(['gemini', '-m', 'gemini-2.5-pro', '--yolo', '--resume', ID]);
    expect(resumeArgv('gemini', ID, ['gemini', '--resume', 'latest', 'a query'])).toEqual(['gemini', '--resume', ID]);
    expect(resumeArgv('qwen', ID, ['qwen', '--approval-mode', 'yolo', '--continue', '--add-dir', 'x', 'y'])).toEqual(['qwen', '--approval-mode', 'yolo', '--add-dir', 'x', 'y', '--resume', ID]);
  });

  it('pi: --session <id>; messages and @files of the first prompt go', () => {
    expect(resumeArgv('pi', ID, ['pi', '--model', 'fake/fake-model', '--thinking', 'high', '@notes.md', 'summarise'])).toEqual([
      'pi',
      '--model',
      'fake/fake-model',
      '--thinking',
      'high',
      '--session',
      ID,
    ]);
    expect(resumeArgv('pi', ID, ['pi', '-c', '--no-session'])).toEqual(['pi', '--session', ID]);
  });

  it('kilo: --session <id>; its project directory stays, --prompt and --continue go', () => {
    const kiloId = 'ses_dd100af97ffezM3GVI3oKS12Uz';
    expect(resumeArgv('kilo', kiloId, ['kilo', '/work/proj', '-m', 'fake/fake-model', '--prompt', 'hi', '-c'])).toEqual([
      'kilo',
      '-m',
      'fake/fake-model',
      '--session',
      kiloId,
      '/work/proj',
    ]);
  });

  it('opencode: --session <id>; its project directory stays, --prompt, --continue and --fork go', () => {
    const ocId = 'ses_db5f0c53effe7vY8uCjQ3ipiv3';
    expect(resumeArgv('opencode', ocId, ['opencode', '/work/proj', '--model', 'fake/fake-model', '--prompt', 'hi', '-c', '--fork', '--log-level', 'DEBUG'])).toEqual([
      'opencode',
      '--model',
      'fake/fake-model',
      '--log-level',
      'DEBUG',
      '--session',
      ocId,
      '/work/proj',
    ]);
    expect(resumeArgv('opencode', ocId, ['opencode', '-s', 'ses_older', '--agent', 'plan'])).toEqual(['opencode', '--agent', 'plan', '--session', ocId]);
  });

  it('words after -- are positional: dropped as a prompt, kept (after --) where positionals are kept', () => {
    expect(resumeArgv('claude', ID, ['claude', '--model', 'opus', '--', '--not-a-flag prompt'])).toEqual(['claude', '--model', 'opus', '--resume', ID]);
    expect(resumeArgv('kilo', 'ses_x1', ['kilo', '--', '-dir'])).toEqual(['kilo', '--session', 'ses_x1', '--', '-dir']);
    // A required value missing at the end is dropped, not given the resume flag.
    expect(resumeArgv('claude', ID, ['claude', '--model'])).toEqual(['claude', '--resume', ID]);
  });

  it('takes a process argv as the agent command line: interpreter and script become the executable', () => {
    expect(resumeArgv('gemini', ID, ['node', '/opt/lib/node_modules/@google/gemini-cli/dist/index.js', '-m', 'pro', 'hello'])).toEqual(['gemini', '-m', 'pro', '--resume', ID]);
    expect(resumeArgv('codex', ID, ['/usr/bin/node', '/x/node_modules/.bin/codex', '--search'])).toEqual(['codex', 'resume', ID, '--search']);
    expect(resumeArgv('claude', ID, ['claude', '--model', 'opus'])).toEqual(['claude', '--model', 'opus', '--resume', ID]);
  });

  it('is null for a kind with no resume by id, an unknown kind, an empty argv or an unsafe id', () => {
    expect(resumeArgv('cursor', ID, ['cursor-agent'])).toBeNull();
    expect(resumeArgv('nosuchkind', ID, ['x'])).toBeNull();
    expect(resumeArgv('claude', null, ['claude'])).toBeNull();
    // No argv known: the kind's plain executable.
    expect(resumeArgv('claude', ID, [])).toEqual(['claude', '--resume', ID]);
    for (const bad of ['', '--dangerously-skip-permissions', 'a b', 'id\x1b[2J', 'x'.repeat(200), 'a;rm']) expect(resumeArgv('claude', bad, ['claude']), JSON.stringify(bad)).toBeNull();
    expect(isValidSessionId(ID)).toBe(true);
    expect(isValidSessionId('ses_dd100af97ffezM3GVI3oKS12Uz')).toBe(true);
  });
});

describe('resumeArgv properties', () => {
  const rules = loadAllRules();
  const kinds = [...rules.values()].filter((r) => r.resume).map((r) => r.kind);
  const word = fc.oneof(fc.constantFrom('--model', '-m', '--resume', '-r', '-c', '--continue', '--session', '-s', '--prompt', '-i', '--', '-', 'resume', '--add-dir', '--yolo'), fc.stringMatching(/^[a-z/@.=-]{1,8}$/));

  it('carries the resume form with the id exactly once, keeps no dropped option and keeps the program', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.array(word, { maxLength: 12 }), (kind, args) => {
        const spec = rules.get(kind)!.resume!;
        const out = resumeArgv(kind, ID, [kind, ...args], rules)!;
        expect(out[0]).toBe(kind);
        expect(out.filter((w) => w === ID)).toHaveLength(1);
        const at = out.indexOf(ID);
        const form = spec.args.map((a) => a.replace('{id}', ID));
        expect(out.slice(at - form.indexOf(ID), at - form.indexOf(ID) + form.length)).toEqual(form);
      }),
    );
  });

  it('is idempotent: resuming a resumed argv with another id swaps the id only', () => {
    fc.assert(
      fc.property(fc.constantFrom(...kinds), fc.array(word, { maxLength: 12 }), (kind, args) => {
        const once = resumeArgv(kind, ID, [kind, ...args], rules)!;
        const twice = resumeArgv(kind, 'other-id-1', once, rules)!;
        expect(twice).toEqual(once.map((w) => (w === ID ? 'other-id-1' : w)));
      }),
    );
  });
});

describe('[resume] option keys', () => {
  const base = `kind = "demo"\n[[rule]]\nid = "w"\nstate = "working"\npriority = 1\nregion = "bottom:2"\ncontains = "x"\n[resume]\nargs = ["--resume", "{id}"]\nid_from = "files"\n`;

  it('reads value_options arities, drop_options and keep_positionals', () => {
    const spec = parseRules(`${base}value_options = ["--model", "-d?", "--dirs..."]\ndrop_options = ["-c"]\nkeep_positionals = true\n`, 'demo.toml').resume!;
    expect([...spec.valueOptions]).toEqual([
      ['--model', 'one'],
      ['-d', 'optional'],
      ['--dirs', 'many'],
    ]);
    expect([...spec.dropOptions]).toEqual(['-c']);
    expect(spec.keepPositionals).toBe(true);
    const demo = new Map([['demo', parseRules(`${base}value_options = ["--model"]\n`, 'demo.toml')]]);
    expect(resumeArgv('demo', 'abc', ['demo', '--model', 'm', 'prompt'], demo)).toEqual(['demo', '--model', 'm', '--resume', 'abc']);
  });

  it('rejects malformed option lists naming the file and key', () => {
    for (const bad of ['value_options = "--model"', 'value_options = ["model"]', 'drop_options = ["-c?"]', 'keep_positionals = "yes"', 'value_options = ["--a b"]']) {
      expect(() => parseRules(`${base}${bad}\n`, 'demo.toml'), bad).toThrow(/demo\.toml.*(value_options|drop_options|keep_positionals)/);
    }
  });
});
