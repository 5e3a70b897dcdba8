import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isKeyChord, parseKeyChord } from '../../src/config/key-chord.js';
import { loadConfig, parseConfig } from '../../src/config/load-config.js';
import { CONFIG_KEYS, defaultConfig } from '../../src/config/schema.js';
import { suggest } from '../../src/config/suggest.js';
import { keyAtLine, locateKey } from '../../src/config/toml-locate.js';

const ENV = { SHELL: '/bin/zsh', HOME: '/home/u' };
const FILE = '/home/u/.config/corral/config.toml';
const parse = (text: string, opts = {}) => parseConfig(text, FILE, { env: ENV, ...opts });

describe('defaults', () => {
  it('an empty file gives the SPEC §11 defaults', () => {
    const { config, error } = parse('');
    expect(error).toBeNull();
    expect(config).toEqual({
      ai_unrestricted: false,
      ai_injection_fence: true,
      agent_stall_threshold_secs: 120,
      shell: '/bin/zsh',
      scrollback_lines: 10000,
      max_panes: 512,
      persist: true,
      persist_scrollback_lines: 2000,
      resume_agents: true,
      keys: { prefix: 'ctrl+b', overrides: {} },
      ui: { sidebar_width: 28 },
      notify: { on: ['blocked', 'done'], command: '' },
      machines: { ssh: ['ssh'], predict: 'always' },
      worktree: { root: '', setup: '', setup_timeout_secs: 300 },
      checkpoints: { keep: 100 },
    });
  });

  it('[checkpoints] keep is read and checked', () => {
    expect(parse('[checkpoints]\nkeep = 5\n').config.checkpoints).toEqual({ keep: 5 });
    expect(parse('[checkpoints]\nkeep = 0\n').error?.message).toMatch(/checkpoints.keep" must be an integer between 1 and 10000/);
  });

  it('[worktree] keys are read and checked', () => {
    const { config, error } = parse('[worktree]\nroot = "~/wt"\nsetup = "npm ci"\nsetup_timeout_secs = 60\n');
    expect(error).toBeNull();
    expect(config.worktree).toEqual({ root: '~/wt', setup: 'npm ci', setup_timeout_secs: 60 });
    expect(parse('[worktree]\nsetup_timeout_secs = 0\n').error?.message).toMatch(/worktree.setup_timeout_secs" must be an integer between 1 and 86400/);
    expect(parse('[worktree]\nsetpu = "x"\n').error?.message).toMatch(/did you mean "worktree.setup"/);
  });

  it('shell falls back to /bin/sh without $SHELL', () => {
    expect(defaultConfig({}).shell).toBe('/bin/sh');
    expect(defaultConfig({ SHELL: '' }).shell).toBe('/bin/sh');
  });
});

describe('parseConfig', () => {
  it('applies valid values, including tables and key overrides', () => {
    const { config, error } = parse(
      [
        'ai_unrestricted = true',
        'ai_injection_fence = false',
        'agent_stall_threshold_secs = 300',
        'shell = "/usr/bin/fish"',
        'scrollback_lines = 0',
        'max_panes = 3',
        '[keys]',
        'prefix = "ctrl+a"',
        'split_right = "|"',
        'new_tab = "alt+t"',
        '[ui]',
        'sidebar_width = 40',
      ].join('\n'),
    );
    expect(error).toBeNull();
    expect(config.ai_unrestricted).toBe(true);
    expect(config.ai_injection_fence).toBe(false);
    expect(config.agent_stall_threshold_secs).toBe(300);
    expect(config.shell).toBe('/usr/bin/fish');
    expect(config.scrollback_lines).toBe(0);
    expect(config.max_panes).toBe(3);
    expect(config.keys).toEqual({ prefix: 'ctrl+a', overrides: { split_right: '|', new_tab: 'alt+t' } });
    expect(config.ui.sidebar_width).toBe(40);
  });

  it('accepts dotted keys and inline tables', () => {
    expect(parse('ui.sidebar_width = 30').config.ui.sidebar_width).toBe(30);
    expect(parse('keys = { prefix = "ctrl+space" }').config.keys.prefix).toBe('ctrl+space');
  });

  it('names file, line and key for an unknown key, with a suggestion', () => {
    const { config, error } = parse('# comment\n\nshell = "/bin/bash"\nai_unrestrictd = true\n');
    expect(config).toEqual(defaultConfig(ENV));
    expect(error!.message).toBe(
      '~/.config/corral/config.toml:4: unknown key "ai_unrestrictd" (did you mean "ai_unrestricted"?)',
    );
    expect(error).toMatchObject({ path: FILE, line: 4, key: 'ai_unrestrictd' });
  });

  it('suggests the right table for a key in the wrong place', () => {
    expect(parse('sidebar_width = 30').error!.message).toMatch(/:1: unknown key "sidebar_width" \(did you mean "ui.sidebar_width"\?\)$/);
    expect(parse('[ui]\nprefix = "x"').error!.message).toMatch(/:2: unknown key "ui.prefix" \(did you mean "keys.prefix"\?\)$/);
    expect(parse('[colors]\nbg = 1').error!.message).toMatch(/:1: unknown key "colors"$/);
    expect(parse('totally_else = 1').error!.message).not.toMatch(/did you mean/);
  });

  it('names file, line and key for an invalid value', () => {
    const text = ['ai_unrestricted = false', '', '', '', '', '', 'scrollback_lines = "lots"'].join('\n');
    const { error } = parseConfig(text, 'config.toml', { env: ENV });
    expect(error!.message).toBe('config.toml:7: key "scrollback_lines" must be an integer between 0 and 1000000, got "lots"');
    expect(parse('scrollback_lines = 1000001').error!.message).toMatch(/got 1000001$/);
    expect(parse('scrollback_lines = 1.5').error!.message).toMatch(/got 1.5$/);
    expect(parse('ai_unrestricted = "yes"').error!.message).toMatch(/key "ai_unrestricted" must be true or false, got "yes"$/);
    expect(parse('agent_stall_threshold_secs = 0').error!.message).toMatch(/must be an integer between 1 and 86400, got 0$/);
    expect(parse('shell = ""').error!.message).toMatch(/key "shell" must be a non-empty string, got ""$/);
    expect(parse('shell = [1]').error!.message).toMatch(/got an array$/);
    expect(parse('ui = 3').error!.message).toMatch(/:1: key "ui" must be a table, got 3$/);
  });

  it('finds the line of a key under the right table header', () => {
    const text = [
      'shell = """', //                1
      'sidebar_width = 3', //          2  inside a multi-line string
      '[ui]', //                       3  also inside it
      '"""', //                        4
      '[keys]', //                     5
      'prefix = "ctrl+a" # [ui]', //   6
      '[ ui ]', //                     7
      '# sidebar_width = 1', //        8
      '  sidebar_width = 5', //        9
    ].join('\n');
    const { error } = parse(text);
    expect(error!.message).toBe('~/.config/corral/config.toml:9: key "ui.sidebar_width" must be an integer between 10 and 80, got 5');
  });

  it('points at the enclosing line for inline tables', () => {
    expect(parse('\nui = { sidebar_width = 500 }').error!.line).toBe(2);
  });

  it('validates key chords in [keys]', () => {
    expect(parse('[keys]\nprefix = "hyper+b"').error!.message).toMatch(
      /:2: key "keys.prefix" must be a key chord like "ctrl\+b", "alt\+x", "f5" or a single character, got "hyper\+b"$/,
    );
    expect(parse('[keys]\nzoom = "zz"').error!.message).toMatch(/:2: key "keys.zoom" must be a key chord/);
    expect(parse('[keys]\nzoom = 5').error!.message).toMatch(/got 5$/);
    expect(parse('[keys]\n"Bad Action" = "x"').error!.message).toMatch(/unknown key "keys.Bad Action"/);
  });

  it('checks [keys] names against the TUI action table by default, suggesting the closest', () => {
    expect(parse('[keys]\nsplit_rigth = "v"').error!.message).toMatch(
      /:2: unknown key "keys.split_rigth" \(did you mean "keys.split_right"\?\)$/,
    );
    expect(parse('[keys]\nresize_left = "ctrl+h"\nlast_pane = "tab"').config.keys.overrides).toEqual({ resize_left: 'ctrl+h', last_pane: 'tab' });
  });

  it('checks [notify] on and command', () => {
    expect(parse('[notify]\non = ["blocked"]\ncommand = "cat >/dev/null"').config.notify).toEqual({ on: ['blocked'], command: 'cat >/dev/null' });
    expect(parse('[notify]\non = []').config.notify.on).toEqual([]);
    expect(parse('[notify]\non = ["blockd"]').error!.message).toMatch(/:2: key "notify.on" must be a list of agent states/);
    expect(parse('[notify]\non = "done"').error!.message).toMatch(/must be a list of agent states/);
    expect(parse('[notify]\ncommand = 3').error!.message).toMatch(/key "notify.command" must be a string, got 3$/);
  });

  it('checks action names against knownActions when given', () => {
    const opts = { knownActions: ['split_right', 'split_down', 'zoom'] };
    expect(parse('[keys]\nsplit_rigth = "v"', opts).error!.message).toMatch(
      /:2: unknown key "keys.split_rigth" \(did you mean "keys.split_right"\?\)$/,
    );
    expect(parse('[keys]\nzoom = "Z"', opts).config.keys.overrides).toEqual({ zoom: 'Z' });
  });

  it('reports syntax errors with line, column and key', () => {
    const { config, error } = parse('ai_unrestricted = true\nshell = \n');
    expect(config).toEqual(defaultConfig(ENV));
    expect(error).toMatchObject({ line: 2, column: 9, key: 'shell' });
    expect(error!.message).toBe('~/.config/corral/config.toml:2:9: invalid TOML: invalid value (at key "shell")');
    expect(parse('a = 1\na = 2').error!.message).toMatch(/:2:1: invalid TOML: .*redefine/);
  });

  it('reports the first of several problems and keeps them all', () => {
    const { error } = parse('scrollback_lines = -1\n[ui]\nsidebar_width = 2\nfoo = 1');
    expect(error!.issues.map((i) => i.line)).toEqual([1, 3, 4]);
    expect(error!.message).toMatch(/:1: key "scrollback_lines" .* got -1 \(and 2 more problems\)$/);
  });
});

describe('loadConfig', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'corral-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('a missing file means defaults and no error', () => {
    expect(loadConfig(path.join(dir, 'nope.toml'), ENV)).toEqual({ config: defaultConfig(ENV), error: null });
  });

  it('reads and validates a real file', () => {
    const file = path.join(dir, 'config.toml');
    writeFileSync(file, '[ui]\nsidebar_width = 33\n');
    expect(loadConfig(file, ENV).config.ui.sidebar_width).toBe(33);
    writeFileSync(file, '[ui]\nsidebar_widht = 33\n');
    const { error } = loadConfig(file, ENV);
    expect(error!.message).toBe(`${file}:2: unknown key "ui.sidebar_widht" (did you mean "ui.sidebar_width"?)`);
  });

  it('an unreadable path is an error, still with defaults', () => {
    const { config, error } = loadConfig(dir, ENV);
    expect(config).toEqual(defaultConfig(ENV));
    expect(error!.message).toMatch(/cannot read config: EISDIR/);
  });
});

describe('sample file and docs', () => {
  const root = path.resolve(import.meta.dirname, '../..');
  const sample = readFileSync(path.join(root, 'assets/config.sample.toml'), 'utf8');
  const docs = readFileSync(path.join(root, 'docs/config.md'), 'utf8');

  it('the sample is valid as shipped and with every key uncommented', () => {
    expect(parseConfig(sample, 'sample', { env: ENV }).error).toBeNull();
    const uncommented = sample.replace(/^# ([a-z_]+ = .*)$/gm, '$1');
    const { config, error } = parseConfig(uncommented, 'sample', { env: ENV });
    expect(error).toBeNull();
    expect({ ...config, shell: '/bin/zsh' }).toEqual(defaultConfig(ENV));
  });

  it('every key appears in the sample and the docs', () => {
    for (const key of CONFIG_KEYS) {
      const leafName = key.path.split('.').pop()!;
      expect(sample, key.path).toMatch(new RegExp(`^# ${leafName} = `, 'm'));
      expect(docs, key.path).toContain(`\`${key.path.includes('.') ? `[${key.path.split('.')[0]}] ${leafName}` : key.path}\``);
    }
  });
});

describe('key chords', () => {
  it('accepts plausible chords', () => {
    for (const ok of ['ctrl+b', 'CTRL+B', 'alt+x', 'f5', 'F12', 'f24', 'v', '-', '|', 'N', 'ctrl+shift+tab', '+', 'ctrl++', 'enter', 'shift+up', 'é']) {
      expect(isKeyChord(ok), ok).toBe(true);
    }
    expect(parseKeyChord('Ctrl+Alt+X')).toEqual({ modifiers: ['ctrl', 'alt'], key: 'X' });
    expect(parseKeyChord('ctrl++')).toEqual({ modifiers: ['ctrl'], key: '+' });
    expect(parseKeyChord('PageUp')).toEqual({ modifiers: [], key: 'pageup' });
  });

  it('rejects implausible ones', () => {
    for (const bad of ['', 'ctrl+', '+b', 'ctrl+ctrl+b', 'hyper+b', 'f25', 'f0', 'bb', ' ', 'ctrl+\t', 'ctrl b', 'ctrl-b']) {
      expect(isKeyChord(bad), JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('helpers', () => {
  it('suggest picks a close name or nothing', () => {
    expect(suggest('scrolback_lines', ['scrollback_lines', 'shell'])).toBe('scrollback_lines');
    expect(suggest('xyz', ['scrollback_lines', 'shell'])).toBeNull();
  });

  it('locateKey and keyAtLine', () => {
    const text = "a = 1\n[t.'q.x']\nb.c = 2\n[[arr]]\nd = '''\ne = 1\n'''\n";
    expect(locateKey(text, ['t', 'q.x', 'b', 'c'])).toBe(3);
    expect(locateKey(text, ['t', 'q.x', 'zz'])).toBe(2);
    expect(locateKey(text, ['arr', 'e'])).toBe(4); // the header, not line 6 inside the string
    expect(locateKey(text, ['nope'])).toBeNull();
    expect(keyAtLine(text, 3)).toBe('t.q.x.b.c');
    expect(keyAtLine(text, 6)).toBeNull();
  });
});
