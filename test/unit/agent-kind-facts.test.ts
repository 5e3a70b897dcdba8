/**
 * Per-kind facts as data: `[process]`, `submit_delay_ms` and `[hooks]` in each kind's rule
 * file (assets/agents/<kind>.toml), their schema errors (file, line, key), and the table
 * src/agents/kind-facts.ts builds from the shipped files.
 */
import { describe, expect, it } from 'vitest';
import { AGENT_KINDS } from '../../src/agents/kinds.js';
import { HOOK_AGENTS } from '../../src/agents/hook-events.js';
import { buildKindTable, hookFormat, kindExecutable, kindProcess, submitDelayMs } from '../../src/agents/kind-facts.js';
import { loadAllRules, parseRules } from '../../src/agents/rules.js';
import { installIntoDoc, nativeEvents } from '../../src/cli/hooks/hooks-install.js';
import { parseError } from './rule-file-error.js';

const FILE = 'assets/agents/demo.toml';

/** A minimal valid rule file with `extra` (top-level keys, then tables) before its one rule. */
const demo = (extra: string): string => `kind = "demo"
${extra}

[[rule]]
id = "footer"
state = "working"
priority = 60
region = "bottom:2"
contains = "esc to interrupt"
`;


describe('[process], submit_delay_ms and [hooks] in a rule file', () => {
  it('parses them, with defaults for what is left out', () => {
    const rules = parseRules(
      demo(`submit_delay_ms = 750

[process]
executable = "demo-cli"
basenames = ["demo", "demo-cli"]
packages = ["@demo/cli"]
python_modules = ["demo_cli"]
guess = true

[hooks]
timeout_ms = 5000
timeout_unit = "s"`),
      FILE,
    );
    expect(rules.submitDelayMs).toBe(750);
    expect(rules.process).toEqual({
      executable: 'demo-cli',
      basenames: ['demo', 'demo-cli'],
      packages: ['@demo/cli'],
      packagePrefixes: [],
      pythonModules: ['demo_cli'],
      pathFragments: [],
      guess: true,
    });
    expect(rules.hooks).toEqual({ timeoutMs: 5000, timeoutUnit: 's' });
    const bare = parseRules(demo(''), FILE);
    expect(bare).toMatchObject({ process: null, hooks: null, submitDelayMs: 200 });
  });

  it('names file, line and key for every bad value', () => {
    const err = parseError(
      demo(`submit_delay_ms = 60000

[process]
executable = "demo cli"
basenames = []
packages = "@demo/cli"
aliases = ["d"]

[hooks]
timeout_ms = 1500
timeout_unit = "s"`),
    );
    expect(err.issues.map((i) => [i.line, i.key])).toEqual([
      [2, 'submit_delay_ms'],
      [5, 'process.executable'],
      [6, 'process.basenames'],
      [7, 'process.packages'],
      [8, 'process.aliases'],
      [11, 'hooks.timeout_ms'],
    ]);
    expect(err.message).toContain('demo.toml:2: key "submit_delay_ms" must be an integer from 0 to 10000, got 60000');
    expect(err.message).toContain('demo.toml:5: key "executable" must be a command name (letters, digits, . _ -), got "demo cli" in [process]');
    expect(err.message).toContain('demo.toml:6: key "basenames" must be a non-empty array of non-empty strings, got an array in [process]');
    expect(err.message).toContain('demo.toml:7: key "packages" must be an array of non-empty strings, got "@demo/cli" in [process]');
    expect(err.message).toContain('demo.toml:8: unknown key "aliases" in [process]');
    expect(err.message).toContain('demo.toml:11: key "timeout_ms" must be whole seconds when timeout_unit = "s" in [hooks]');
  });

  it('requires the executable, the basenames and a known hook timeout unit', () => {
    expect(parseError(demo('[process]\npackages = []')).message).toContain('demo.toml:2: missing key "executable" in [process]');
    expect(parseError(demo('[process]\nexecutable = "demo"')).message).toContain('missing key "basenames" in [process]');
    expect(parseError(demo('[hooks]\ntimeout_ms = 5000\ntimeout_unit = "minutes"')).message).toContain(
      'demo.toml:4: key "timeout_unit" must be "s" or "ms", got "minutes" in [hooks]',
    );
    expect(parseError(demo('process = "demo"')).message).toContain('demo.toml:2: key "process" must be a table ([process])');
  });
});

describe('the kind table built from the shipped files', () => {
  it('has a [process] table for every SPEC §2 kind and none for the generic rules', () => {
    const all = loadAllRules();
    for (const kind of AGENT_KINDS) expect(all.get(kind)!.process, kind).not.toBeNull();
    expect(all.get('generic')!.process).toBeNull();
  });

  it('refuses a SPEC §2 kind without [process], and [process] on anything else', () => {
    const all = new Map(loadAllRules());
    const codex = all.get('codex')!;
    all.set('codex', { ...codex, process: null });
    expect(() => buildKindTable(all)).toThrow('assets/agents/codex.toml: the codex agent needs a [process] table');
    all.set('codex', codex);
    const generic = all.get('generic')!;
    all.set('generic', { ...generic, process: codex.process });
    expect(() => buildKindTable(all)).toThrow('assets/agents/generic.toml: [process] is only for the agent kinds of SPEC §2, not "generic"');
  });

  it('gives the submit pause each kind needs: a second for Codex and Gemini, 200 ms otherwise', () => {
    expect(submitDelayMs('codex')).toBe(1000);
    expect(submitDelayMs('gemini')).toBe(1000);
    expect(submitDelayMs('claude')).toBe(200);
    expect(submitDelayMs('some-unknown-agent')).toBe(200);
  });

  it('has a hook format for exactly the agents corral installs hooks for, in each one\'s unit', () => {
    const withHooks = AGENT_KINDS.filter((kind) => hookFormat(kind) !== null);
    expect(withHooks.sort()).toEqual([...HOOK_AGENTS].sort());
    // The handler written into each agent's own config carries the timeout in that agent's unit.
    const timeouts = Object.fromEntries(
      HOOK_AGENTS.map((agent) => {
        const doc: Record<string, unknown> = {};
        installIntoDoc(doc, agent);
        const groups = (doc.hooks as Record<string, { hooks: { timeout: number }[] }[]>)[nativeEvents(agent)[0]!]!;
        return [agent, groups[0]!.hooks[0]!.timeout];
      }),
    );
    expect(timeouts).toEqual({ claude: 5, codex: 5, gemini: 5000, qwen: 5 });
  });

  it('keeps the executables agent start types', () => {
    expect(kindExecutable('cursor')).toBe('cursor-agent');
    expect(kindProcess("kimi")!.pythonModules).toEqual(['kimi_cli']);
  });
});
