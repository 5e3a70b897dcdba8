/** Flow files (SPEC §10): every validation rule, foreach expansion, variables; the shipped example. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findCycle, formatFlowPlan, parseFlowFile } from '../../src/orchestration/flow-file.js';
import { FileError } from '../../src/orchestration/toml-doc.js';
import { fillTemplate, parseTemplate, templateVariables } from '../../src/orchestration/template.js';
import { ROOT } from '../integration/harness.js';

const OPTS = { baseDir: '/proj', shownPath: 'flows/ci.toml', home: '/home/u', isDirectory: () => true };
const parse = (text: string) => parseFlowFile(text, OPTS);

function problems(text: string): string[] {
  try {
    parse(text);
  } catch (error) {
    expect(error).toBeInstanceOf(FileError);
    return (error as FileError).issues.map((i) => i.message);
  }
  throw new Error('expected the file to be refused');
}

const lines = (...l: string[]) => l.join('\n') + '\n';

describe('flow files: good', () => {
  it('parses steps, defaults and ready/capture, in dependency order', () => {
    const plan = parse(
      lines(
        'name = "ci"',
        'layout = "even_v"',
        '[defaults]',
        'timeout_secs = 30',
        'on_failure = "continue"',
        '[[step]]',
        'id = "report"',
        'needs = ["build"]',
        'send = { target = "build", text = "echo ${log}", submit = true }',
        '[[step]]',
        'id = "build"',
        'pane = { command = "make", name = "builder", cwd = "sub" }',
        'ready = { pattern = "^(ok|FAIL)" }',
        'capture = { var = "log", lines = 5 }',
      ),
    );
    expect(plan.name).toBe('ci');
    expect(plan.layout).toBe('even_v');
    expect(plan.onFailure).toBe('continue');
    expect(plan.steps.map((s) => s.id)).toEqual(['build', 'report']);
    expect(plan.steps[0]).toMatchObject({
      action: { kind: 'pane', pane: { command: 'make', name: 'builder', cwd: '/proj/sub' } },
      ready: { pattern: '^(ok|FAIL)', idle: false, timeoutSecs: 30 },
      capture: { variable: 'log', lines: 5 },
    });
    expect(plan.steps[1]).toMatchObject({
      needs: ['build'],
      variables: ['log'],
      action: { kind: 'send', target: 'build', targetStep: 'build', text: 'echo ${log}', submit: true },
    });
  });

  it('defaults: name from the file, tiled layout, fail_fast, capture of 50 lines', () => {
    const plan = parse(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { idle = true, timeout_secs = 5 }', 'capture = { var = "x" }'));
    expect(plan).toMatchObject({ name: 'ci', layout: 'tiled', onFailure: 'fail_fast' });
    expect(plan.steps[0]!.capture).toEqual({ variable: 'x', lines: 50 });
    expect(plan.steps[0]!.ready).toEqual({ idle: true, timeoutSecs: 5 });
  });

  it('expands foreach into id[item] instances with ${item} filled everywhere; needs on the base id mean all', () => {
    const plan = parse(
      lines(
        '[[step]]',
        'id = "test"',
        'foreach = ["unit", "e2e", 3]',
        'pane = { name = "t-${item}", command = "npm run test:${item}" }',
        'ready = { pattern = "${item} done", timeout_secs = 60 }',
        '[[step]]',
        'id = "notify"',
        'needs = ["test"]',
        'send = { target = "t-unit", text = "all passed" }',
        '[[step]]',
        'id = "one"',
        'needs = ["test[e2e]"]',
        'send = { target = "test[e2e]", text = "x" }',
      ),
    );
    expect(plan.steps.map((s) => s.id)).toEqual(['test[unit]', 'test[e2e]', 'test[3]', 'notify', 'one']);
    expect(plan.steps[1]).toMatchObject({ item: 'e2e', action: { pane: { name: 't-e2e', command: 'npm run test:e2e' } }, ready: { pattern: 'e2e done' } });
    expect(plan.steps[3]!.needs).toEqual(['test[unit]', 'test[e2e]', 'test[3]']);
    expect(plan.steps[3]!.action).toMatchObject({ targetStep: 'test[unit]' });
    expect(plan.steps[4]).toMatchObject({ needs: ['test[e2e]'], action: { targetStep: 'test[e2e]' } });
  });

  it('a foreach step gives each instance its own worktree with ${item}', () => {
    const plan = parse(lines('[[step]]', 'id = "fix"', 'foreach = ["a", "b"]', 'pane = { agent = "claude", worktree = "fix-${item}" }'));
    expect(plan.steps.map((s) => (s.action as { pane: { worktree?: string } }).pane.worktree)).toEqual(['fix-a', 'fix-b']);
    expect(problems(lines('[[step]]', 'id = "fix"', 'foreach = ["a", "b"]', 'pane = { worktree = "fix" }'))).toEqual([
      'flows/ci.toml:4: worktree "fix" in step "fix[b]" is already step "fix[a]"\'s; each pane\'s worktree is its own',
    ]);
  });

  it('variables reach through transitive needs; $${ is a literal', () => {
    const plan = parse(
      lines(
        '[defaults]',
        'timeout_secs = 9',
        '[[step]]',
        'id = "a"',
        'pane = { command = "echo $${HOME}" }',
        'ready = { idle = true }',
        'capture = { var = "v" }',
        '[[step]]',
        'id = "b"',
        'needs = ["a"]',
        'pane = {}',
        '[[step]]',
        'id = "c"',
        'needs = ["b"]',
        'pane = { agent = "claude", prompt = "got ${v} and $${literal}" }',
      ),
    );
    expect(plan.steps[0]!.action).toMatchObject({ pane: { command: 'echo ${HOME}' } });
    expect(plan.steps[2]!.variables).toEqual(['v']);
  });

  it('a send target that is not a flow pane stays a selector', () => {
    const plan = parse(lines('[[step]]', 'id = "a"', 'send = { target = "cmdline:vim", text = "x" }'));
    expect(plan.steps[0]!.action).toEqual({ kind: 'send', target: 'cmdline:vim', text: 'x', submit: false });
  });

  it('the shipped review pipeline validates', () => {
    const file = path.join(ROOT, 'assets/examples/review-pipeline.toml');
    const plan = parseFlowFile(readFileSync(file, 'utf8'), { baseDir: path.dirname(file), shownPath: file, home: '/home/u' });
    expect(plan.steps.map((s) => s.id)).toEqual(['implementer', 'implement', 'reviewer', 'review']);
    expect(plan.steps[1]).toMatchObject({ capture: { variable: 'report' }, ready: { idle: true } });
    expect(plan.steps[2]!.variables).toEqual(['report']);
    expect(formatFlowPlan(plan)).toContain('capture last 40 lines as ${report}');
  });

  it('the shipped budgeted review loop validates: a budget for the flow, one per turn', () => {
    const file = path.join(ROOT, 'assets/examples/budgeted-review-loop.toml');
    const plan = parseFlowFile(readFileSync(file, 'utf8'), { baseDir: path.dirname(file), shownPath: file, home: '/home/u' });
    expect(plan.budgetTokens).toBe(2_000_000);
    expect(plan.steps.map((s) => (s.action.kind === 'send' ? s.action.maxTokens : undefined))).toEqual([undefined, undefined, 400_000, 200_000, 400_000, 200_000]);
  });
});

describe('flow files: bad, each naming file, line and key', () => {
  it('unknown keys at every level', () => {
    expect(
      problems(
        lines(
          'nam = "x"',
          '[defaults]',
          'timeout = 3',
          '[[step]]',
          'id = "a"',
          'neds = []',
          'pane = { comand = "ls" }',
          'ready = { idle = true, timeout_secs = 1, patern = "x" }',
          'capture = { var = "v", line = 3 }',
          '[[step]]',
          'id = "b"',
          'send = { target = "w1:p1", txt = "x" }',
        ),
      ),
    ).toEqual([
      'flows/ci.toml:1: unknown key "nam" (did you mean "name"?)',
      'flows/ci.toml:3: unknown key "timeout" in [defaults] (did you mean "timeout_secs"?)',
      'flows/ci.toml:6: unknown key "neds" in [[step]] "a" (did you mean "needs"?)',
      'flows/ci.toml:7: unknown key "comand" in [[step]] "a" (did you mean "command"?)',
      'flows/ci.toml:8: unknown key "patern" in ready of [[step]] "a" (did you mean "pattern"?)',
      'flows/ci.toml:9: unknown key "line" in capture of [[step]] "a" (did you mean "lines"?)',
      'flows/ci.toml:12: unknown key "txt" in send of [[step]] "b" (did you mean "text"?)',
    ]);
  });

  it('an unknown dependency', () => {
    expect(problems(lines('[[step]]', 'id = "build"', 'pane = {}', '[[step]]', 'id = "test"', 'needs = ["biuld"]', 'pane = {}'))).toEqual([
      'flows/ci.toml:6: unknown step "biuld" in needs of [[step]] "test" (did you mean "build"?)',
    ]);
  });

  it('a cycle, named step by step', () => {
    const found = problems(
      lines('[[step]]', 'id = "a"', 'needs = ["c"]', 'pane = {}', '[[step]]', 'id = "b"', 'needs = ["a"]', 'pane = {}', '[[step]]', 'id = "c"', 'needs = ["b"]', 'pane = {}'),
    );
    expect(found).toEqual(['flows/ci.toml:3: steps form a cycle: "a" → "c" → "b" → "a" (each needs the next)']);
    expect(problems(lines('[[step]]', 'id = "self"', 'needs = ["self"]', 'pane = {}'))[0]).toContain('"self" → "self"');
  });

  it('a ready without a timeout anywhere', () => {
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { pattern = "x" }'))).toEqual([
      'flows/ci.toml:4: ready of [[step]] "a" has no timeout: set "timeout_secs" (seconds) here or in [defaults]',
    ]);
  });

  it('duplicate ids, missing ids, bad ids', () => {
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', '[[step]]', 'id = "a"', 'pane = {}', '[[step]]', 'pane = {}', '[[step]]', 'id = "x y"', 'pane = {}'))).toEqual([
      'flows/ci.toml:5: duplicate step id "a" ([[step]] "a" is #1, this is #2)',
      'flows/ci.toml:7: [[step]] #3 has no "id"',
      'flows/ci.toml:10: key "id" in [[step]] #4 must be letters, digits, _ and -, starting with a letter or _, got "x y"',
    ]);
  });

  it('exactly one of pane or send', () => {
    expect(problems(lines('[[step]]', 'id = "a"'))).toEqual(['flows/ci.toml:1: [[step]] "a" needs exactly one of "pane" or "send"']);
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'send = { target = "x" }'))).toEqual([
      'flows/ci.toml:1: [[step]] "a" needs exactly one of "pane" or "send", not both',
    ]);
    expect(problems(lines('[[step]]', 'id = "a"', 'send = { text = "x" }'))[0]).toContain('send of [[step]] "a" needs a "target"');
  });

  it('variables used before any step that needs-precedes it captures them', () => {
    const found = problems(
      lines(
        '[defaults]',
        'timeout_secs = 5',
        '[[step]]',
        'id = "a"',
        'pane = {}',
        'ready = { idle = true }',
        'capture = { var = "out" }',
        '[[step]]',
        'id = "b"',
        'send = { target = "w1:p1", text = "${out}" }',
        '[[step]]',
        'id = "c"',
        'needs = ["a"]',
        'pane = { agent = "claude", prompt = "${nothing}" }',
      ),
    );
    expect(found).toEqual([
      'flows/ci.toml:10: ${out} in [[step]] "b" is used before it is captured: [[step]] "a" captures it, but [[step]] "b" does not need it (add "a" to needs)',
      'flows/ci.toml:14: ${nothing} in [[step]] "c": no step captures a variable "nothing"',
    ]);
  });

  it('variables only in send.text and pane.prompt; ${item} only in foreach steps', () => {
    const found = problems(
      lines('[defaults]', 'timeout_secs = 5', '[[step]]', 'id = "a"', 'pane = { command = "echo ${x}", cwd = "${item}" }', 'ready = { pattern = "${y}" }'),
    );
    expect(found).toEqual([
      'flows/ci.toml:5: key "pane.command" in [[step]] "a" uses ${x}: captured variables are filled in only in send.text and pane.prompt',
      'flows/ci.toml:5: key "pane.cwd" in [[step]] "a" uses ${item}, which only foreach steps define',
      'flows/ci.toml:6: key "ready.pattern" in [[step]] "a" uses ${y}: captured variables are filled in only in send.text and pane.prompt',
    ]);
    expect(problems(lines('[[step]]', 'id = "a"', 'send = { target = "x", text = "${oops" }'))[0]).toMatch(/:3: key "send.text" in \[\[step\]\] "a": "\$\{" at offset 0 is not closed/);
  });

  it('capture answer = true: the agent\'s answer instead of lines; not both; a boolean', () => {
    const plan = parse(lines('[[step]]', 'id = "a"', 'pane = { agent = "claude" }', 'ready = { idle = true, timeout_secs = 5 }', 'capture = { var = "said", answer = true }'));
    expect(plan.steps[0]!.capture).toEqual({ variable: 'said', lines: 50, answer: true });
    expect(formatFlowPlan(plan)).toContain("capture the agent's answer as ${said}");
    expect(parse(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { idle = true, timeout_secs = 5 }', 'capture = { var = "x", answer = false }')).steps[0]!.capture).toEqual({ variable: 'x', lines: 50 });
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { idle = true, timeout_secs = 5 }', 'capture = { var = "x", answer = true, lines = 5 }'))).toEqual([
      'flows/ci.toml:5: key "answer" in capture of [[step]] "a" does not go with "lines": an answer is what the agent answered, not the pane\'s last lines (use one)',
    ]);
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { idle = true, timeout_secs = 5 }', 'capture = { var = "x", answer = "yes" }'))).toEqual([
      'flows/ci.toml:5: key "answer" in capture of [[step]] "a" must be true or false, got "yes"',
    ]);
  });

  it('capture needs ready, a valid var, one source, and no foreach', () => {
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'capture = { var = "v" }'))).toEqual([
      'flows/ci.toml:4: capture of [[step]] "a" needs "ready": the text is captured once the step is ready',
    ]);
    const found = problems(
      lines(
        '[defaults]',
        'timeout_secs = 5',
        '[[step]]',
        'id = "a"',
        'pane = {}',
        'ready = { idle = true }',
        'capture = { var = "item" }',
        '[[step]]',
        'id = "b"',
        'foreach = ["x"]',
        'pane = {}',
        'ready = { idle = true }',
        'capture = { var = "v", lines = 0 }',
        '[[step]]',
        'id = "c"',
        'pane = {}',
        'ready = { idle = true }',
        'capture = { var = "v" }',
      ),
    );
    expect(found).toEqual([
      'flows/ci.toml:7: key "var" in capture of [[step]] "a": "item" is reserved for foreach items',
      'flows/ci.toml:13: key "lines" in capture of [[step]] "b" must be a whole number from 1 to 10000, got 0',
      'flows/ci.toml:13: capture of [[step]] "b" is not allowed in a foreach step: every instance would set the same variable',
      'flows/ci.toml:18: variable "v" is captured by [[step]] "b" already; each variable has one source',
    ]);
  });

  it('ready needs a pattern or idle, a valid regex and a positive timeout', () => {
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { timeout_secs = 1 }'))[0]).toBe('flows/ci.toml:4: ready of [[step]] "a" needs a "pattern" or "idle = true"');
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { pattern = "(", timeout_secs = 1 }'))[0]).toMatch(/^flows\/ci\.toml:4: key "pattern" in ready of \[\[step\]\] "a": invalid regex "\("/);
    expect(problems(lines('[[step]]', 'id = "a"', 'pane = {}', 'ready = { idle = true, timeout_secs = -1 }'))[0]).toContain('key "timeout_secs" in ready of [[step]] "a" must be a number of seconds above 0');
  });

  it('send targets that name flow panes must be needed, single and panes', () => {
    const found = problems(
      lines(
        '[[step]]',
        'id = "p"',
        'foreach = ["a", "b"]',
        'pane = { name = "pane-${item}" }',
        '[[step]]',
        'id = "s1"',
        'send = { target = "p", text = "x" }',
        '[[step]]',
        'id = "s2"',
        'send = { target = "pane-a", text = "x" }',
        '[[step]]',
        'id = "s3"',
        'needs = ["s2"]',
        'send = { target = "s2", text = "x" }',
      ),
    );
    expect(found).toEqual([
      'flows/ci.toml:7: send target "p" in [[step]] "s1" names a foreach step with 2 panes; name one instance, e.g. "p[a]"',
      'flows/ci.toml:10: send target "pane-a" in [[step]] "s2" is the pane of step "p[a]", which [[step]] "s2" does not need (add "p" to needs)',
      'flows/ci.toml:14: send target "s2" in [[step]] "s3" is a send step; name a pane step, a pane name or a selector',
    ]);
  });

  it('foreach must be a non-empty list of distinct items', () => {
    expect(problems(lines('[[step]]', 'id = "a"', 'foreach = []', 'pane = {}'))[0]).toBe('flows/ci.toml:3: key "foreach" in [[step]] "a" must list at least one item');
    expect(problems(lines('[[step]]', 'id = "a"', 'foreach = ["x", "x"]', 'pane = {}'))[0]).toContain('lists "x" twice');
    expect(problems(lines('[[step]]', 'id = "a"', 'foreach = "x"', 'pane = {}'))[0]).toContain('key "foreach" in [[step]] "a" must be an array of strings or numbers');
  });

  it('no steps; more than 32 panes; a bad on_failure', () => {
    expect(problems('name = "x"\n')).toEqual(['flows/ci.toml: no steps: add at least one [[step]] table']);
    const items = Array.from({ length: 33 }, (_, i) => `"i${i}"`).join(', ');
    expect(problems(lines('[[step]]', 'id = "a"', `foreach = [${items}]`, 'pane = {}'))[0]).toContain('too many panes: the steps create 33, at most 32');
    expect(problems(lines('[defaults]', 'on_failure = "stop"', '[[step]]', 'id = "a"', 'pane = {}'))[0]).toBe(
      'flows/ci.toml:2: key "on_failure" in [defaults] must be one of fail_fast, continue, got "stop"',
    );
  });
});

describe('templates and cycles', () => {
  it('parses, lists and fills placeholders', () => {
    expect(parseTemplate('a ${x} $${y} ${x}')).toEqual([{ text: 'a ' }, { variable: 'x' }, { text: ' ${y} ' }, { variable: 'x' }]);
    expect(templateVariables('${a}${b}${a}')).toEqual(['a', 'b']);
    // A captured value containing "${" is not read as a placeholder later.
    const once = fillTemplate('x=${x} y=${y}', { x: 'has ${y}' });
    expect(fillTemplate(once, { y: 'Y' }, true)).toBe('x=has ${y} y=Y');
    expect(() => parseTemplate('${1x}')).toThrow(/not a variable name/);
  });

  it('findCycle returns the loop or null', () => {
    expect(findCycle([{ id: 'a', needs: ['b'] }, { id: 'b', needs: [] }])).toBeNull();
    expect(findCycle([{ id: 'a', needs: ['b'] }, { id: 'b', needs: ['c'] }, { id: 'c', needs: ['b'] }])).toEqual(['b', 'c', 'b']);
  });
});
