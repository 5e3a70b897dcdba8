/**
 * Where corral's socket and config file live (SPEC §1).
 * On the CLI fast path: imports only node builtins and the dependency-free protocol module,
 * and touches nothing on disk — creating the socket directory is the server's job.
 */
import os from 'node:os';
import path from 'node:path';
import { CorralError } from './contract/protocol.js';

/** Session names become file names; a closed alphabet keeps them free of `/` and shell surprises. */
export const SESSION_NAME_RE = /^[A-Za-z0-9_.-]+$/;

export const PATH_DEFAULTS = {
  /** The session every client and server uses unless told otherwise (SPEC §1). */
  session: 'default',
  /** POSIX's fallback when TMPDIR is unset. */
  tmpdir: '/tmp',
  /**
   * A sun_path holds ~104–108 bytes; a longer session name would make a socket path the
   * kernel refuses, so refuse it up front with a clearer message.
   */
  maxSessionNameLength: 64,
} as const;

export interface SocketPathOptions {
  /** `--socket PATH`: wins over everything. */
  socket?: string;
  /** `--session NAME`: wins over CORRAL_SESSION. */
  session?: string;
}

type Env = Record<string, string | undefined>;

/** A set, non-empty environment variable, else undefined (an empty value counts as unset). */
function envValue(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/** An XDG base directory; the XDG spec says relative values are invalid and must be ignored. */
function xdgDir(env: Env, name: string): string | undefined {
  const value = envValue(env, name);
  return value !== undefined && path.isAbsolute(value) ? value : undefined;
}

/** Throws invalid_params unless `name` is a usable session name. */
export function validateSessionName(name: string): string {
  if (!SESSION_NAME_RE.test(name) || name.length > PATH_DEFAULTS.maxSessionNameLength) {
    throw new CorralError(
      'invalid_params',
      `invalid session name "${name}": use 1–${PATH_DEFAULTS.maxSessionNameLength} of A-Z a-z 0-9 _ . -`,
      { session: name },
    );
  }
  return name;
}

/** The session name in effect: `opts.session` → CORRAL_SESSION → `default`, validated. */
export function resolveSessionName(opts: SocketPathOptions = {}, env: Env = process.env): string {
  const name = opts.session !== undefined && opts.session !== ''
    ? opts.session
    : envValue(env, 'CORRAL_SESSION') ?? PATH_DEFAULTS.session;
  return validateSessionName(name);
}

/** The socket path, first match wins: --socket → CORRAL_SOCKET → per-session path (SPEC §1). */
export function resolveSocketPath(
  opts: SocketPathOptions = {},
  env: Env = process.env,
  uid: number = process.getuid?.() ?? 0,
): string {
  if (opts.socket !== undefined && opts.socket !== '') return path.resolve(opts.socket);
  const fromEnv = envValue(env, 'CORRAL_SOCKET');
  if (fromEnv !== undefined) return path.resolve(fromEnv);
  return path.join(resolveRuntimeDir(env, uid), `${resolveSessionName(opts, env)}.sock`);
}

/**
 * corral's own per-user directory: `$XDG_RUNTIME_DIR/corral`, else `$TMPDIR/corral-<uid>`.
 * It holds the default sockets and the pane launcher, and must be private (SPEC §8).
 */
export function resolveRuntimeDir(env: Env = process.env, uid: number = process.getuid?.() ?? 0): string {
  const runtimeDir = xdgDir(env, 'XDG_RUNTIME_DIR');
  if (runtimeDir !== undefined) return path.join(runtimeDir, 'corral');
  const tmpdir = envValue(env, 'TMPDIR') ?? PATH_DEFAULTS.tmpdir;
  return path.join(tmpdir, `corral-${uid}`);
}

/** The config file: CORRAL_CONFIG → $XDG_CONFIG_HOME/corral/config.toml → ~/.config/corral/config.toml. */
export function resolveConfigPath(env: Env = process.env, home: string = envValue(env, 'HOME') ?? os.homedir()): string {
  const explicit = envValue(env, 'CORRAL_CONFIG');
  if (explicit !== undefined) return path.resolve(explicit);
  const configHome = xdgDir(env, 'XDG_CONFIG_HOME') ?? path.join(home, '.config');
  return path.join(configHome, 'corral', 'config.toml');
}

/** `path` with the home directory shown as `~`, for messages a human reads. */
export function displayPath(p: string, home: string = os.homedir()): string {
  if (home === '' || home === '/') return p;
  const trimmed = home.endsWith('/') ? home.slice(0, -1) : home;
  if (p === trimmed) return '~';
  if (p.startsWith(`${trimmed}/`)) return `~${p.slice(trimmed.length)}`;
  return p;
}
