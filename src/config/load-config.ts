/**
 * Reads and validates config.toml (SPEC §11). A bad file never stops corral: the caller
 * gets the defaults plus one error that names the file, the line and the key, to show.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parse, TomlError } from 'smol-toml';
import { displayPath } from '../paths.js';
import {
  CONFIG_KEYS,
  CONFIG_TABLES,
  defaultConfig,
  isChord,
  type Config,
  type KeySpec,
} from './schema.js';
import { suggest } from './suggest.js';
import { COMMAND_IDS } from './keybindings.js';
import { isTable, locateKey, tomlSyntaxIssue, type TomlTable } from './toml-locate.js';

/** One problem in a config file; `message` is complete (`file:line: …`) and fit to show as is. */
export interface ConfigIssue {
  message: string;
  /** 1-based; null when the line could not be found. */
  line: number | null;
  column: number | null;
  /** Dotted key (`ui.sidebar_width`), null for syntax errors outside any key. */
  key: string | null;
}

/** Why the file's values were not used. Top-level fields describe the first issue. */
export interface ConfigError extends ConfigIssue {
  path: string;
  issues: ConfigIssue[];
}

export interface ConfigResult {
  config: Config;
  error: ConfigError | null;
}

export interface ParseConfigOptions {
  /** Environment for defaults (`$SHELL`); process.env when omitted. */
  env?: Record<string, string | undefined>;
  /** Home directory shown as `~` in messages. */
  home?: string;
  /** `[keys]` overrides must name one of these actions; default: the TUI's action table. */
  knownActions?: readonly string[];
}

type Table = TomlTable;

const SPEC_BY_PATH: ReadonlyMap<string, KeySpec> = new Map(CONFIG_KEYS.map((k) => [k.path, k]));
const TABLE_SET: ReadonlySet<string> = new Set(CONFIG_TABLES);

/** A value as the user would recognise it in an error message. */
function describeValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return `the date ${v.toISOString()}`;
  if (isTable(v)) return 'a table';
  return String(v);
}

/** Parses and validates config text; `path` is only used in messages. Never throws. */
export function parseConfig(text: string, path: string, opts: ParseConfigOptions = {}): ConfigResult {
  const env = opts.env ?? process.env;
  const shown = displayPath(path, opts.home ?? env.HOME ?? os.homedir());
  const defaults = defaultConfig(env);
  const where = (line: number | null, column: number | null = null): string =>
    `${shown}${line === null ? '' : `:${line}`}${column === null ? '' : `:${column}`}`;

  let raw: Table;
  try {
    raw = parse(text) as Table;
  } catch (err) {
    if (!(err instanceof TomlError)) throw err;
    const issue: ConfigIssue = tomlSyntaxIssue(err, text, shown);
    return { config: defaults, error: { ...issue, path, issues: [issue] } };
  }

  const issues: ConfigIssue[] = [];
  const knownActions = opts.knownActions ?? COMMAND_IDS;
  const knownPaths = [...CONFIG_KEYS.map((k) => k.path), ...knownActions.map((a) => `keys.${a}`)];
  const lineOf = (segments: string[]): number | null => locateKey(text, segments);

  const unknown = (segments: string[]): void => {
    const key = segments.join('.');
    const leaf = segments[segments.length - 1];
    const sameLeaf = knownPaths.find((p) => p.endsWith(`.${leaf}`) || p === leaf);
    const hint = sameLeaf ?? suggest(key, knownPaths) ?? suggest(key, CONFIG_TABLES);
    const line = lineOf(segments);
    issues.push({
      message: `${where(line)}: unknown key "${key}"${hint === null ? '' : ` (did you mean "${hint}"?)`}`,
      line,
      column: null,
      key,
    });
  };

  const invalid = (segments: string[], requirement: string, value: unknown): void => {
    const key = segments.join('.');
    const line = lineOf(segments);
    issues.push({
      message: `${where(line)}: key "${key}" ${requirement}, got ${describeValue(value)}`,
      line,
      column: null,
      key,
    });
  };

  const config: Config = {
    ...defaults,
    keys: { ...defaults.keys },
    ui: { ...defaults.ui },
    notify: { ...defaults.notify },
    machines: { ...defaults.machines },
    worktree: { ...defaults.worktree },
    checkpoints: { ...defaults.checkpoints },
  };
  const overrides: Record<string, string> = {};
  const target = config as unknown as Record<string, Table | unknown>;

  for (const [name, value] of Object.entries(raw)) {
    if (TABLE_SET.has(name)) {
      if (!isTable(value)) {
        invalid([name], 'must be a table', value);
        continue;
      }
      for (const [sub, subValue] of Object.entries(value)) {
        const spec = SPEC_BY_PATH.get(`${name}.${sub}`);
        if (spec) {
          const problem = spec.check(subValue);
          if (problem !== null) invalid([name, sub], problem, subValue);
          else (target[name] as Table)[sub] = subValue;
        } else if (name === 'keys' && knownActions.includes(sub)) {
          const problem = isChord(subValue);
          if (problem !== null) invalid([name, sub], problem, subValue);
          else overrides[sub] = subValue as string;
        } else {
          unknown([name, sub]);
        }
      }
      continue;
    }
    const spec = SPEC_BY_PATH.get(name);
    if (!spec) {
      unknown([name]);
      continue;
    }
    const problem = spec.check(value);
    if (problem !== null) invalid([name], problem, value);
    else target[name] = value;
  }
  config.keys = { ...config.keys, overrides };

  if (issues.length === 0) return { config, error: null };
  issues.sort((a, b) => (a.line ?? Infinity) - (b.line ?? Infinity));
  const first = issues[0];
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? 's' : ''})` : '';
  return { config: defaults, error: { ...first, message: first.message + more, path, issues } };
}

/** Loads the config at `path`: a missing file means defaults and no error; anything wrong means defaults and an error. */
export function loadConfig(
  path: string,
  env: Record<string, string | undefined> = process.env,
  opts: Omit<ParseConfigOptions, 'env'> = {},
): ConfigResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { config: defaultConfig(env), error: null };
    const shown = displayPath(path, opts.home ?? env.HOME ?? os.homedir());
    const message = `${shown}: cannot read config: ${code ?? (err as Error).message}`;
    const issue: ConfigIssue = { message, line: null, column: null, key: null };
    return { config: defaultConfig(env), error: { ...issue, path, issues: [issue] } };
  }
  return parseConfig(text, path, { ...opts, env });
}
