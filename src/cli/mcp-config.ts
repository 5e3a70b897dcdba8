/**
 * Registering `corral mcp` with an agent (SPEC §19, docs/mcp.md): the snippet each kind reads,
 * the merge of that snippet into the agent's own config file (keeping everything else there),
 * and the arguments that register corral for one run (`agent start --mcp`). Node builtins and
 * smol-toml only: this is part of the CLI bundle, the MCP SDK is not.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { corralEntry } from '../package-root.js';
import { UsageError } from './output.js';
import { formatJsonConfig, parseJsonConfig } from './hooks/hooks-install.js';

/** The name corral is registered under in every agent's config. */
export const MCP_SERVER_NAME = 'corral';

/** The kinds `corral mcp config` knows, and pi, which has no MCP client (its author left MCP out on purpose). */
export const MCP_KINDS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'kilo'] as const;
export type McpKind = (typeof MCP_KINDS)[number];

/**
 * What Codex passes through to `corral mcp`: it starts MCP servers with a short list of
 * variables only (HOME, PATH, …), so a pane's own socket (CORRAL_SOCKET) and the runtime
 * directory the socket path is made from would be lost without this.
 */
const CODEX_ENV_VARS = ['CORRAL_SOCKET', 'CORRAL_SESSION', 'XDG_RUNTIME_DIR'] as const;

/**
 * How long an agent lets one corral tool call run: `agent_wait` and `agent_prompt` with `wait`
 * last as long as the other agent's turn, often minutes, where Codex gives a call 60 s and
 * Gemini CLI and Qwen Code 10 minutes by default. An hour; a model bounds a wait below it with
 * `timeout_ms`. (Claude Code sets no such limit; OpenCode's `timeout` is for listing tools.)
 */
const TOOL_CALL_LIMIT_S = 3600;

/** How an agent starts `corral mcp`: this Node and this corral's launcher, so it works from a clone or an install alike. */
export interface McpLaunch {
  command: string;
  args: string[];
}

/** The command that runs this corral's MCP server; `--session`/`--socket` carried when given. */
export function mcpLaunch(opts: { session?: string; socket?: string } = {}): McpLaunch {
  const args = [corralEntry(), 'mcp'];
  if (opts.socket !== undefined) args.push('--socket', opts.socket);
  else if (opts.session !== undefined) args.push('--session', opts.session);
  return { command: process.execPath, args };
}

/** Whether `kind` is one `corral mcp config` knows; a usage error naming the choices (and why not pi) otherwise. */
export function checkMcpKind(kind: string): McpKind {
  if ((MCP_KINDS as readonly string[]).includes(kind)) return kind as McpKind;
  if (kind === 'pi') throw new UsageError('pi has no MCP client (it leaves MCP out by design; extensions are its way to add tools), so corral cannot register with it');
  throw new UsageError(`corral mcp config knows ${MCP_KINDS.join(', ')}; not "${kind}"`);
}

type Json = Record<string, unknown>;

/** The entry each kind expects under its servers key. */
function serverEntry(kind: McpKind, launch: McpLaunch): Json {
  switch (kind) {
    case 'claude':
      return { type: 'stdio', command: launch.command, args: launch.args, env: {} };
    case 'gemini':
    case 'qwen':
      return { command: launch.command, args: launch.args, timeout: TOOL_CALL_LIMIT_S * 1000 };
    case 'codex':
      return { command: launch.command, args: launch.args, env_vars: [...CODEX_ENV_VARS], tool_timeout_sec: TOOL_CALL_LIMIT_S };
    case 'opencode':
    case 'kilo':
      // opencode's format (kilo is built on it): one command array, `local` for stdio.
      return { type: 'local', command: [launch.command, ...launch.args], enabled: true };
  }
}

/** The key holding the servers in each kind's config. */
function serversKey(kind: McpKind): string {
  if (kind === 'codex') return 'mcp_servers';
  return kind === 'opencode' || kind === 'kilo' ? 'mcp' : 'mcpServers';
}

function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : os.homedir();
}

/** The user-wide config file each kind reads its MCP servers from (honouring the kind's own env overrides). */
export function mcpConfigFile(kind: McpKind, env: NodeJS.ProcessEnv = process.env): string {
  const home = homeOf(env);
  const xdg = env.XDG_CONFIG_HOME || path.join(home, '.config');
  switch (kind) {
    case 'claude':
      // User scope, where `claude mcp add --scope user` writes.
      return path.join(env.CLAUDE_CONFIG_DIR || home, '.claude.json');
    case 'codex':
      return path.join(env.CODEX_HOME || path.join(home, '.codex'), 'config.toml');
    case 'gemini':
      return path.join(home, '.gemini', 'settings.json');
    case 'qwen':
      return path.join(env.QWEN_HOME || path.join(home, '.qwen'), 'settings.json');
    case 'opencode':
      return env.OPENCODE_CONFIG || path.join(xdg, 'opencode', 'opencode.json');
    case 'kilo':
      return env.KILO_CONFIG || path.join(xdg, 'kilo', 'kilo.json');
  }
}

/** A TOML basic string: JSON's escapes are TOML's for the characters a path or word holds. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

function codexTable(launch: McpLaunch): string {
  return (
    `[${serversKey('codex')}.${MCP_SERVER_NAME}]\ncommand = ${tomlString(launch.command)}\nargs = [${launch.args.map(tomlString).join(', ')}]\n` +
    `env_vars = [${CODEX_ENV_VARS.map(tomlString).join(', ')}]\ntool_timeout_sec = ${TOOL_CALL_LIMIT_S}\n`
  );
}

/** The snippet that registers corral with `kind`, as text to paste into its config file. */
export function mcpSnippet(kind: McpKind, launch: McpLaunch): string {
  if (kind === 'codex') return codexTable(launch);
  return `${JSON.stringify({ [serversKey(kind)]: { [MCP_SERVER_NAME]: serverEntry(kind, launch) } }, null, 2)}\n`;
}

/** What merging did to a config file's text. */
export interface MergeResult {
  text: string;
  /** `added`: corral was not registered; `updated`: its entry changed; `present`: already as wanted. */
  status: 'added' | 'updated' | 'present';
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Merges corral's entry into a JSON config's text, keeping every other key and the file's indentation. */
function mergeJson(kind: McpKind, before: string, file: string, launch: McpLaunch): MergeResult {
  const { doc, style } = parseJsonConfig(before, file);
  const key = serversKey(kind);
  const servers = doc[key];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new UsageError(`${file}: "${key}" is not an object; fix the file, then run this again`);
  }
  const entry = serverEntry(kind, launch);
  const existing = (servers as Json | undefined)?.[MCP_SERVER_NAME];
  if (sameJson(existing, entry)) return { text: before, status: 'present' };
  doc[key] = { ...(servers as Json | undefined), [MCP_SERVER_NAME]: entry };
  return { text: formatJsonConfig(doc, style), status: existing === undefined ? 'added' : 'updated' };
}

/**
 * Merges `[mcp_servers.corral]` into a Codex config.toml's text: appended when absent, its own
 * table's lines replaced when different; every other line (comments included) kept as it is.
 */
function mergeCodex(before: string, file: string, launch: McpLaunch): MergeResult {
  const parsed = parseTomlChecked(before, file);
  const servers = parsed.mcp_servers;
  const existing = typeof servers === 'object' && servers !== null ? (servers as Json)[MCP_SERVER_NAME] : undefined;
  const wanted = serverEntry('codex', launch);
  if (existing !== undefined && sameJson(existing, wanted)) {
    return { text: before, status: 'present' };
  }
  const table = codexTable(launch);
  let text: string;
  if (existing === undefined) {
    text = `${before}${before === '' || before.endsWith('\n') ? '' : '\n'}${before.trim() === '' ? '' : '\n'}${table}`;
  } else {
    const lines = before.split('\n');
    const header = `[mcp_servers.${MCP_SERVER_NAME}]`;
    const start = lines.findIndex((line) => line.trim() === header);
    if (start < 0) throw new UsageError(`${file}: mcp_servers.${MCP_SERVER_NAME} is set in a form corral does not edit (not a ${header} table); replace it with:\n${table}`);
    let end = start + 1;
    while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end++;
    text = [...lines.slice(0, start), ...table.trimEnd().split('\n'), ...(end < lines.length ? ['', ...lines.slice(end)] : [''])].join('\n');
  }
  const check = parseTomlChecked(text, file).mcp_servers as Json | undefined;
  if (!sameJson(check?.[MCP_SERVER_NAME], wanted)) throw new UsageError(`${file}: corral could not merge its entry safely; add this by hand:\n${table}`);
  return { text, status: existing === undefined ? 'added' : 'updated' };
}

function parseTomlChecked(text: string, file: string): Json {
  try {
    return parseToml(text) as Json;
  } catch (error) {
    throw new UsageError(`${file}: not valid TOML (${(error as Error).message.split('\n')[0]}); fix the file, then run this again`);
  }
}

/** The config text with corral registered (pure: reading and writing the file is the caller's). */
export function mergeMcpConfig(kind: McpKind, before: string, file: string, launch: McpLaunch): MergeResult {
  return kind === 'codex' ? mergeCodex(before, file, launch) : mergeJson(kind, before, file, launch);
}

/** Merges corral's entry into the kind's config file on disk (temp file and rename, the original's mode kept). */
export function writeMcpConfig(kind: McpKind, launch: McpLaunch, env: NodeJS.ProcessEnv = process.env): { file: string; status: MergeResult['status'] } {
  const file = mcpConfigFile(kind, env);
  const before = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const { text, status } = mergeMcpConfig(kind, before, file, launch);
  if (status !== 'present') {
    mkdirSync(path.dirname(file), { recursive: true });
    const temp = `${file}.corral-${process.pid}.tmp`;
    writeFileSync(temp, text, { mode: 0o600 });
    if (existsSync(file)) chmodSync(temp, statSync(file).mode & 0o7777);
    renameSync(temp, file);
  }
  return { file, status };
}

/**
 * The agent arguments that register corral for one run (`agent start --mcp`): Claude Code's
 * `--mcp-config`, Codex's `-c` overrides. Gemini CLI, Qwen Code, OpenCode and Kilo take MCP
 * servers only from their config files (or, for OpenCode and Kilo, an environment variable,
 * which a typed command line cannot set for the agent alone), so they get a usage error that
 * says to register once with `corral mcp config KIND --write`.
 */
export function mcpRunArgs(kind: string, launch: McpLaunch): string[] {
  switch (kind) {
    case 'claude':
      return ['--mcp-config', JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: serverEntry('claude', launch) } })];
    case 'codex':
      return [
        '-c',
        `mcp_servers.${MCP_SERVER_NAME}.command=${tomlString(launch.command)}`,
        '-c',
        `mcp_servers.${MCP_SERVER_NAME}.args=[${launch.args.map(tomlString).join(',')}]`,
        '-c',
        `mcp_servers.${MCP_SERVER_NAME}.env_vars=[${CODEX_ENV_VARS.map(tomlString).join(',')}]`,
        '-c',
        `mcp_servers.${MCP_SERVER_NAME}.tool_timeout_sec=${TOOL_CALL_LIMIT_S}`,
      ];
    default:
      if (kind === 'pi') throw new UsageError('--mcp: pi has no MCP client, so corral cannot be registered with it');
      if ((MCP_KINDS as readonly string[]).includes(kind)) {
        throw new UsageError(`--mcp: ${kind} reads MCP servers only from its config file; register corral once with \`corral mcp config ${kind} --write\` instead`);
      }
      throw new UsageError(`--mcp works with claude and codex (others: \`corral mcp config KIND --write\`); not with kind "${kind}"`);
  }
}
