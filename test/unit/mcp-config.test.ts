/**
 * `corral mcp config` and `agent start --mcp` (SPEC §19): the snippet per kind, the merge into
 * each agent's own config file that keeps everything else there (JSON keeps its indentation,
 * Codex's TOML keeps its other lines and comments), and the one-run arguments.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import { checkMcpKind, mcpConfigFile, mcpRunArgs, mcpSnippet, mergeMcpConfig, writeMcpConfig, MCP_KINDS, type McpLaunch } from '../../src/cli/mcp-config.js';

const LAUNCH: McpLaunch = { command: '/usr/bin/node', args: ['/opt/corral/bin/corral.cjs', 'mcp'] };
const CODEX_ENV = ['CORRAL_SOCKET', 'CORRAL_SESSION', 'XDG_RUNTIME_DIR'];
const OTHER_LAUNCH: McpLaunch = { command: '/usr/bin/node', args: ['/opt/corral/bin/corral.cjs', 'mcp', '--session', 'work'] };

describe('mcp config snippets', () => {
  it('each kind gets its own format under its own key', () => {
    expect(JSON.parse(mcpSnippet('claude', LAUNCH))).toEqual({ mcpServers: { corral: { type: 'stdio', command: '/usr/bin/node', args: LAUNCH.args, env: {} } } });
    // A tool call may wait out another agent's turn: an hour, where Gemini CLI and Qwen Code give 10 minutes.
    expect(JSON.parse(mcpSnippet('gemini', LAUNCH))).toEqual({ mcpServers: { corral: { command: '/usr/bin/node', args: LAUNCH.args, timeout: 3_600_000 } } });
    expect(JSON.parse(mcpSnippet('qwen', LAUNCH))).toEqual({ mcpServers: { corral: { command: '/usr/bin/node', args: LAUNCH.args, timeout: 3_600_000 } } });
    for (const kind of ['opencode', 'kilo'] as const) {
      expect(JSON.parse(mcpSnippet(kind, LAUNCH))).toEqual({ mcp: { corral: { type: 'local', command: ['/usr/bin/node', ...LAUNCH.args], enabled: true } } });
    }
    // Codex starts MCP servers with a few variables only: the pane's socket must be passed through by name.
    expect(parseToml(mcpSnippet('codex', LAUNCH))).toEqual({ mcp_servers: { corral: { command: '/usr/bin/node', args: LAUNCH.args, env_vars: CODEX_ENV, tool_timeout_sec: 3600 } } });
  });

  it('knows six kinds; pi and unknown kinds are usage errors saying why', () => {
    for (const kind of MCP_KINDS) expect(checkMcpKind(kind)).toBe(kind);
    expect(() => checkMcpKind('pi')).toThrow(/pi has no MCP client/);
    expect(() => checkMcpKind('vim')).toThrow(/knows claude, codex, gemini, qwen, opencode, kilo/);
  });

  it('config files: user-wide, honouring each kind\u2019s own overrides', () => {
    const env = { HOME: '/h' };
    expect(mcpConfigFile('claude', env)).toBe('/h/.claude.json');
    expect(mcpConfigFile('codex', env)).toBe('/h/.codex/config.toml');
    expect(mcpConfigFile('codex', { ...env, CODEX_HOME: '/c' })).toBe('/c/config.toml');
    expect(mcpConfigFile('gemini', env)).toBe('/h/.gemini/settings.json');
    expect(mcpConfigFile('qwen', env)).toBe('/h/.qwen/settings.json');
    expect(mcpConfigFile('opencode', env)).toBe('/h/.config/opencode/opencode.json');
    expect(mcpConfigFile('kilo', { ...env, XDG_CONFIG_HOME: '/x' })).toBe('/x/kilo/kilo.json');
    expect(mcpConfigFile('kilo', { ...env, KILO_CONFIG: '/k.json' })).toBe('/k.json');
  });
});

describe('mcp config --write merges', () => {
  it('JSON: adds corral beside the other servers and keys, in the file\u2019s indentation; again is a no-op; a changed launch updates it', () => {
    const before = '{\n    "theme": "dark",\n    "mcpServers": {\n        "other": { "command": "x" }\n    }\n}\n';
    const added = mergeMcpConfig('gemini', before, 'settings.json', LAUNCH);
    expect(added.status).toBe('added');
    expect(added.text).toMatch(/^\{\n {4}"theme": "dark",/);
    expect(JSON.parse(added.text)).toEqual({ theme: 'dark', mcpServers: { other: { command: 'x' }, corral: { command: '/usr/bin/node', args: LAUNCH.args, timeout: 3_600_000 } } });
    expect(mergeMcpConfig('gemini', added.text, 'settings.json', LAUNCH)).toEqual({ text: added.text, status: 'present' });
    const updated = mergeMcpConfig('gemini', added.text, 'settings.json', OTHER_LAUNCH);
    expect(updated.status).toBe('updated');
    expect(JSON.parse(updated.text).mcpServers.corral.args).toEqual(OTHER_LAUNCH.args);
    expect(JSON.parse(updated.text).mcpServers.other).toEqual({ command: 'x' });
  });

  it('JSON that is not plain JSON, or a servers key that is not an object, is refused and left alone', () => {
    expect(() => mergeMcpConfig('opencode', '{ // comment\n}', 'opencode.json', LAUNCH)).toThrow(/not valid JSON/);
    expect(() => mergeMcpConfig('opencode', '{"mcp": []}', 'opencode.json', LAUNCH)).toThrow(/"mcp" is not an object/);
  });

  it('Codex TOML: appended after the other lines and comments, a no-op the second time, its own table replaced when it changes', () => {
    const before = '# my settings\nmodel = "o3"\n\n[mcp_servers.other]\ncommand = "x"\n';
    const added = mergeMcpConfig('codex', before, 'config.toml', LAUNCH);
    expect(added.status).toBe('added');
    expect(added.text.startsWith(before)).toBe(true);
    expect(parseToml(added.text)).toEqual({ model: 'o3', mcp_servers: { other: { command: 'x' }, corral: { command: '/usr/bin/node', args: LAUNCH.args, env_vars: CODEX_ENV, tool_timeout_sec: 3600 } } });
    expect(mergeMcpConfig('codex', added.text, 'config.toml', LAUNCH).status).toBe('present');
    const withAfter = `${added.text}\n[profiles.fast]\nmodel = "mini" # keep\n`;
    const updated = mergeMcpConfig('codex', withAfter, 'config.toml', OTHER_LAUNCH);
    expect(updated.status).toBe('updated');
    expect(updated.text).toContain('# my settings\n');
    expect(updated.text).toContain('model = "mini" # keep');
    expect(parseToml(updated.text)).toEqual({
      model: 'o3',
      mcp_servers: { other: { command: 'x' }, corral: { command: '/usr/bin/node', args: OTHER_LAUNCH.args, env_vars: CODEX_ENV, tool_timeout_sec: 3600 } },
      profiles: { fast: { model: 'mini' } },
    });
  });

  it('Codex TOML that does not parse, or corral set inline, is refused', () => {
    expect(() => mergeMcpConfig('codex', 'model = ', 'config.toml', LAUNCH)).toThrow(/not valid TOML/);
    expect(() => mergeMcpConfig('codex', 'mcp_servers.corral.command = "old"\n', 'config.toml', LAUNCH)).toThrow(/form corral does not edit/);
  });

  it('writes the file (creating its directory), keeping its mode', () => {
    const home = mkdtempSync(join(tmpdir(), 'corral-mcp-config-'));
    const first = writeMcpConfig('qwen', LAUNCH, { HOME: home });
    expect(first).toEqual({ file: join(home, '.qwen', 'settings.json'), status: 'added' });
    expect(JSON.parse(readFileSync(first.file, 'utf8')).mcpServers.corral.command).toBe('/usr/bin/node');
    writeFileSync(join(home, '.claude.json'), '{"numStartups": 3}');
    expect(writeMcpConfig('claude', LAUNCH, { HOME: home }).status).toBe('added');
    expect(JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8'))).toMatchObject({ numStartups: 3, mcpServers: { corral: { type: 'stdio' } } });
    expect(writeMcpConfig('claude', LAUNCH, { HOME: home }).status).toBe('present');
  });
});

describe('agent start --mcp: corral for one run', () => {
  it('Claude Code gets --mcp-config with the JSON; Codex gets -c overrides that parse as TOML values', () => {
    const claude = mcpRunArgs('claude', LAUNCH);
    expect(claude[0]).toBe('--mcp-config');
    expect(JSON.parse(claude[1]!)).toEqual({ mcpServers: { corral: { type: 'stdio', command: '/usr/bin/node', args: LAUNCH.args, env: {} } } });
    const codex = mcpRunArgs('codex', LAUNCH);
    expect(codex).toHaveLength(8);
    expect(codex.filter((_, i) => i % 2 === 0)).toEqual(['-c', '-c', '-c', '-c']);
    const values = parseToml(codex.filter((_, i) => i % 2 === 1).join('\n').replace(/^mcp_servers\.corral\./gm, ''));
    expect(values).toEqual({ command: '/usr/bin/node', args: LAUNCH.args, env_vars: CODEX_ENV, tool_timeout_sec: 3600 });
  });

  it('kinds that read MCP servers only from their config say to register once; pi says it has no MCP', () => {
    for (const kind of ['gemini', 'qwen', 'opencode', 'kilo']) expect(() => mcpRunArgs(kind, LAUNCH)).toThrow(new RegExp(`corral mcp config ${kind} --write`));
    expect(() => mcpRunArgs('pi', LAUNCH)).toThrow(/pi has no MCP client/);
    expect(() => mcpRunArgs('amp', LAUNCH)).toThrow(/works with claude and codex/);
  });
});
