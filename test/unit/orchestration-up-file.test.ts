/** `up` files (SPEC §10): every validation rule, with file:line:key messages; the shipped example. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUpFile, formatUpPlan, checkUpDocument } from '../../src/orchestration/up-file.js';
import { Checker, FileError, indexedDefinitions, Locator, locateIssues } from '../../src/orchestration/toml-doc.js';
import { resolveCwd } from '../../src/orchestration/pane-spec.js';
import { ROOT } from '../integration/harness.js';

const OPTS = { baseDir: '/proj', shownPath: 'examples/review.toml', home: '/home/u', isDirectory: (_dir: string) => true };

function parse(text: string, opts: Partial<typeof OPTS> = {}) {
  return parseUpFile(text, { ...OPTS, ...opts });
}

/** The messages a bad file produces. */
function problems(text: string, opts: Partial<typeof OPTS> = {}): string[] {
  try {
    parse(text, opts);
  } catch (error) {
    expect(error).toBeInstanceOf(FileError);
    expect((error as FileError).code).toBe('invalid_params');
    return (error as FileError).issues.map((i) => i.message);
  }
  throw new Error('expected the file to be refused');
}

describe('up files: good', () => {
  it('parses every pane field, resolving cwd against the file and ~', () => {
    const plan = parse(
      [
        'name = "dev"',
        'layout = "even_h"',
        '[[panes]]',
        'cwd = "api"',
        'command = "npm run dev"',
        'name = "server"',
        'env = { PORT = "3000", NODE_ENV = "development" }',
        '[[panes]]',
        'cwd = "~/notes"',
        'agent = "claude"',
        'prompt = "Read the README"',
        'focus = true',
        '[[panes]]',
        'cwd = "/abs/dir"',
      ].join('\n'),
    );
    expect(plan).toEqual({
      name: 'dev',
      layout: 'even_h',
      panes: [
        { cwd: '/proj/api', command: 'npm run dev', name: 'server', focus: false, restore: false, env: { PORT: '3000', NODE_ENV: 'development' } },
        { cwd: '/home/u/notes', agent: 'claude', prompt: 'Read the README', focus: true, restore: false, env: {} },
        { cwd: '/abs/dir', focus: false, restore: false, env: {} },
      ],
    });
  });

  it('restore = true marks a command pane to re-run on restore; without a command it is refused', () => {
    expect(parse('[[panes]]\ncommand = "npm run dev"\nrestore = true\n').panes[0]).toMatchObject({ command: 'npm run dev', restore: true });
    expect(problems('[[panes]]\nagent = "claude"\nrestore = true\n')).toEqual([
      'examples/review.toml:3: key "restore" in [[panes]] #1 needs "command": it re-runs the command when the session is restored (agents resume on their own)',
    ]);
  });

  it('defaults: layout tiled, cwd the file directory, no name', () => {
    const plan = parse('[[panes]]\ncommand = "ls"\n');
    expect(plan).toEqual({ layout: 'tiled', panes: [{ cwd: '/proj', command: 'ls', focus: false, restore: false, env: {} }] });
  });

  it('accepts every layout preset', () => {
    for (const layout of ['even_h', 'even_v', 'main_vertical', 'tiled']) {
      expect(parse(`layout = "${layout}"\n[[panes]]\n`).layout).toBe(layout);
    }
  });

  it('accepts 32 panes', () => {
    expect(parse('[[panes]]\n'.repeat(32)).panes).toHaveLength(32);
  });

  it('the shipped example validates (cwds are real directories)', () => {
    const file = path.join(ROOT, 'assets/examples/workspace.toml');
    const plan = parseUpFile(readFileSync(file, 'utf8'), { baseDir: path.dirname(file), shownPath: file, home: '/home/u' });
    expect(plan.panes).toHaveLength(3);
    expect(plan.panes.every((p) => p.command !== undefined)).toBe(true);
    expect(formatUpPlan(plan, 'dry run')).toContain('3 panes');
  });
});

describe('up files: bad, each naming file, line and key', () => {
  it('an unknown key in a pane, with its number and a suggestion', () => {
    const text = ['name = "review"', '', '[[panes]]', 'command = "ls"', '', '[[panes]]', 'comand = "ls"'].join('\n');
    expect(problems(text)).toEqual(['examples/review.toml:7: unknown key "comand" in [[panes]] #2 (did you mean "command"?)']);
  });

  it('an unknown top-level key', () => {
    expect(problems('lyout = "tiled"\n[[panes]]\n')).toEqual(['examples/review.toml:1: unknown key "lyout" (did you mean "layout"?)']);
  });

  it('an unknown layout', () => {
    expect(problems('layout = "grid"\n[[panes]]\n')[0]).toMatch(/^examples\/review\.toml:1: key "layout" must be one of even_h, even_v, main_vertical, tiled/);
  });

  it('agent and command together', () => {
    expect(problems('[[panes]]\nagent = "claude"\ncommand = "ls"\n')).toEqual([
      'examples/review.toml:3: "agent" and "command" cannot both be set in [[panes]] #1: a pane runs one or the other',
    ]);
  });

  it('an unknown agent kind', () => {
    expect(problems('[[panes]]\nagent = "claud"\n')).toEqual(['examples/review.toml:2: unknown agent kind "claud" in [[panes]] #1 (did you mean "claude"?)']);
  });

  it('a prompt without an agent', () => {
    expect(problems('[[panes]]\ncommand = "ls"\nprompt = "hi"\n')[0]).toBe('examples/review.toml:3: key "prompt" in [[panes]] #1 needs "agent": the prompt is typed into the agent');
  });

  it('env must be a table of strings with valid names', () => {
    expect(problems('[[panes]]\nenv = { A = 1, "2B" = "x" }\n')).toEqual([
      'examples/review.toml:2: env.A in [[panes]] #1 must be a string, got 1',
      'examples/review.toml:2: environment variable name "2B" in [[panes]] #1 must be letters, digits and _, not starting with a digit',
    ]);
    expect(problems('[[panes]]\nenv = "A=1"\n')[0]).toContain('key "env" in [[panes]] #1 must be a table');
  });

  it('a cwd that is not a directory', () => {
    expect(problems('[[panes]]\ncwd = "missing"\n', { isDirectory: (d) => d !== '/proj/missing' })).toEqual([
      'examples/review.toml:2: key "cwd" in [[panes]] #1: "/proj/missing" is not a directory',
    ]);
  });

  it('wrong types', () => {
    const found = problems('name = 3\n[[panes]]\nfocus = "yes"\ncommand = ["ls"]\n');
    expect(found).toEqual([
      'examples/review.toml:1: key "name" must be a string, got 3',
      'examples/review.toml:3: key "focus" in [[panes]] #1 must be true or false, got "yes"',
      'examples/review.toml:4: key "command" in [[panes]] #1 must be a string, got an array',
    ]);
  });

  it('no panes, and more than 32', () => {
    expect(problems('name = "x"\n')).toEqual(['examples/review.toml: no panes: add at least one [[panes]] table']);
    expect(problems('[[panes]]\n'.repeat(33))[0]).toMatch(/:33: too many panes: 33, at most 32/);
  });

  it('duplicate pane names and two focused panes', () => {
    const found = problems('[[panes]]\nname = "a"\nfocus = true\n[[panes]]\nname = "a"\nfocus = true\n');
    expect(found).toEqual([
      'examples/review.toml:5: pane name "a" in [[panes]] #2 is already used by [[panes]] #1; names select panes, so they must be unique',
      'examples/review.toml:6: only one pane can have focus = true; [[panes]] #1 already has it ([[panes]] #2)',
    ]);
  });

  it('a TOML syntax error names line and column', () => {
    const found = problems('[[panes]]\ncommand = "ls\n');
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^examples\/review\.toml:2:\d+: invalid TOML: /);
  });

  it('lists every problem, in file order', () => {
    const found = problems('[[panes]]\nbogus = 1\n[[panes]]\nagent = "nope"\nlayoutt = 2\n');
    expect(found.map((m) => m.split(':')[1])).toEqual(['2', '4', '5']);
  });
});

describe('worktree = "NAME" on a pane (SPEC §15)', () => {
  it('is taken, checked against the name rule, unique in the file, and shown by --dry-run', () => {
    const plan = parse('[[panes]]\nagent = "claude"\nworktree = "fix-1"\n[[panes]]\ncommand = "ls"\n');
    expect(plan.panes[0]!.worktree).toBe('fix-1');
    expect(plan.panes[1]!.worktree).toBeUndefined();
    expect(formatUpPlan(plan, 'plan')).toContain('in a new worktree fix-1');
    expect(problems('[[panes]]\nworktree = "Fix/1"\n')).toEqual([
      'examples/review.toml:2: worktree name "Fix/1" in [[panes]] #1 must match [a-z0-9][a-z0-9._-]{0,63}',
    ]);
    expect(problems('[[panes]]\nworktree = "same"\n[[panes]]\nworktree = "same"\n')).toEqual([
      'examples/review.toml:4: worktree "same" in [[panes]] #2 is already [[panes]] #1\'s; each pane\'s worktree is its own',
    ]);
  });
});

describe('workspace.up params (no file)', () => {
  it('uses the same rules, without a location, and requires absolute cwds', () => {
    const check = new Checker();
    checkUpDocument(check, { panes: [{ cwd: 'rel', comand: 'x' }] }, { home: '/h', isDirectory: () => true });
    expect(locateIssues(check.issues, '', null).map((i) => i.message)).toEqual([
      'unknown key "comand" in [[panes]] #1 (did you mean "command"?)',
      'key "cwd" in [[panes]] #1 must be an absolute path, got "rel"',
    ]);
  });
});

describe('locating keys', () => {
  it('numbers array-of-tables instances, including their sub-tables', () => {
    const text = ['name = "f"', '[[step]]', 'id = "a"', '[step.pane]', 'cwd = "."', '[[step]]', 'id = "b"', 'send = { target = "x" }'].join('\n');
    expect(indexedDefinitions(text).map((d) => [d.line, d.path.join('.')])).toEqual([
      [1, 'name'],
      [2, 'step.0'],
      [3, 'step.0.id'],
      [4, 'step.0.pane'],
      [5, 'step.0.pane.cwd'],
      [6, 'step.1'],
      [7, 'step.1.id'],
      [8, 'step.1.send'],
    ]);
    const locator = new Locator(text);
    expect(locator.line(['step', 1, 'send', 'target'])).toBe(8);
    expect(locator.line(['step', 0, 'pane', 'cwd'])).toBe(5);
    expect(locator.line(['step', 0, 'needs'])).toBe(2);
  });

  it('resolves ~ and relative paths', () => {
    expect(resolveCwd('~', { home: '/h' })).toBe('/h');
    expect(resolveCwd('~/x/../y', { home: '/h' })).toBe('/h/y');
    expect(resolveCwd('a/b', { home: '/h', baseDir: '/base' })).toBe('/base/a/b');
    expect(resolveCwd('a/b', { home: '/h' })).toBeNull();
  });
});
