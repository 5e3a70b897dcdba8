/**
 * Saved machines (SPEC §14): `$XDG_CONFIG_HOME/corral/machines.toml`, 0600, one table per
 * machine. `corral machine add|remove|enable|disable` edit it; the server reads it at start
 * and again when told (`machine.reload`). Everything in it ends up in an ssh argv or a remote
 * command line, so every field is checked against a closed alphabet here, once: a name is a
 * selector prefix, a target never starts with `-` (it would be an ssh option), the remote
 * command and session hold no shell metacharacter.
 */
import { closeSync, constants, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse, stringify, TomlError } from 'smol-toml';
import { CorralError } from '../contract/protocol.js';
import { SESSION_NAME_RE } from '../paths.js';

/** A machine's name: lower-case, it prefixes selectors (`build/w1:p2`). */
export const MACHINE_NAME_RE = /^[a-z0-9][a-z0-9-]{0,31}$/;

/**
 * An ssh destination: `host`, `user@host`, `ssh://user@host:port`, a `Host` alias, an IPv6
 * literal in brackets. Never a leading `-`; nothing a shell or ssh's option parser would read
 * as anything but a destination.
 */
const TARGET_RE = /^(?:ssh:\/\/)?(?:[A-Za-z0-9._-]+@)?(?:[A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The remote corral command: a path or a name, `~/` allowed at the start; no shell metacharacters. */
const REMOTE_COMMAND_RE = /^(?:~\/)?[A-Za-z0-9_./+-]+$/;

/** A label is shown, never executed: printable text, bounded. */
const MAX_LABEL = 64;

export interface MachineEntry {
  name: string;
  /** The ssh destination. */
  target: string;
  label: string;
  /** The corral session to reach on that host. */
  session: string;
  enabled: boolean;
  /** The remote command that starts corral (`corral` on its PATH unless set, e.g. by `machine install`). */
  corral: string;
}

const ENTRY_KEYS = new Set(['target', 'label', 'session', 'enabled', 'corral']);

/** The machines file: `$XDG_CONFIG_HOME/corral/machines.toml` (default `~/.config/corral/`). */
export function machinesPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  const configHome = xdg && path.isAbsolute(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.config');
  return path.join(configHome, 'corral', 'machines.toml');
}

/** Throws `invalid_params` unless `name` can name a machine. */
export function checkMachineName(name: string): string {
  if (!MACHINE_NAME_RE.test(name)) {
    throw new CorralError('invalid_params', `invalid machine name ${JSON.stringify(name)}: 1–32 of a-z 0-9 -, starting with a letter or digit`, { name });
  }
  return name;
}

/** Throws `invalid_params` unless `target` is an ssh destination corral will pass on. */
export function checkTarget(target: string): string {
  if (!TARGET_RE.test(target)) {
    throw new CorralError(
      'invalid_params',
      `invalid ssh target ${JSON.stringify(target)}: use host, user@host, ssh://user@host:port or a Host alias from ~/.ssh/config`,
      { target },
    );
  }
  return target;
}

function checkEntry(name: string, raw: Record<string, unknown>, where: string): MachineEntry {
  const fail = (message: string): never => {
    throw new CorralError('invalid_params', `${where}: machine "${name}": ${message}`);
  };
  for (const key of Object.keys(raw)) if (!ENTRY_KEYS.has(key)) fail(`unknown key "${key}" (known: ${[...ENTRY_KEYS].join(', ')})`);
  checkMachineName(name);
  if (typeof raw.target !== 'string') fail('"target" must be a string');
  checkTarget(raw.target as string);
  const label = raw.label ?? name;
  if (typeof label !== 'string' || label.length > MAX_LABEL || /[\x00-\x1f\x7f-\x9f]/.test(label)) fail(`"label" must be printable text of at most ${MAX_LABEL} characters`);
  const session = raw.session ?? 'default';
  if (typeof session !== 'string' || !SESSION_NAME_RE.test(session)) fail('"session" must be a session name (A-Z a-z 0-9 _ . -)');
  const enabled = raw.enabled ?? true;
  if (typeof enabled !== 'boolean') fail('"enabled" must be true or false');
  const corral = raw.corral ?? 'corral';
  if (typeof corral !== 'string' || !REMOTE_COMMAND_RE.test(corral)) fail('"corral" must be a command name or path (letters, digits, . _ / + -, ~/ at the start)');
  return { name, target: raw.target as string, label: label as string, session: session as string, enabled: enabled as boolean, corral: corral as string };
}

/** The machines saved in `file` (none when it does not exist); a bad file throws naming it. */
export function readMachines(file: string): MachineEntry[] {
  let text: string;
  try {
    const stat = lstatSync(file);
    if (stat.isSymbolicLink()) throw new CorralError('invalid_params', `${file} is a symbolic link; corral reads only its own file`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (error) {
    const where = error instanceof TomlError ? `${file}:${error.line}` : file;
    throw new CorralError('invalid_params', `${where}: ${(error as Error).message.split('\n')[0]}`);
  }
  const machines = doc.machines ?? {};
  for (const key of Object.keys(doc)) if (key !== 'machines') throw new CorralError('invalid_params', `${file}: unknown key "${key}" (machines are [machines.NAME] tables)`);
  if (typeof machines !== 'object' || machines === null || Array.isArray(machines)) throw new CorralError('invalid_params', `${file}: "machines" must be a table of [machines.NAME] tables`);
  return Object.entries(machines as Record<string, unknown>).map(([name, raw]) => {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new CorralError('invalid_params', `${file}: [machines.${name}] must be a table`);
    return checkEntry(name, raw as Record<string, unknown>, file);
  });
}

const HEADER = '# corral machines (docs/machines.md). `corral machine add|remove|enable|disable` edit this file.\n\n';

/**
 * Writes `machines` to `file`, owner-only, atomically: a fresh file beside it (O_EXCL, so
 * nothing planted is followed), fsynced, renamed over the old one. The directory is created 0700.
 */
export function writeMachines(file: string, machines: readonly MachineEntry[]): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const table: Record<string, Record<string, unknown>> = {};
  for (const m of machines) {
    table[m.name] = { target: m.target, label: m.label, session: m.session, enabled: m.enabled, ...(m.corral !== 'corral' ? { corral: m.corral } : {}) };
  }
  const text = HEADER + stringify({ machines: table }) + '\n';
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  const fd = openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temp, file);
  } catch (error) {
    unlinkSync(temp);
    throw error;
  }
}

/** Reads, changes and writes the machines file in one step; `change` throws to write nothing. */
export function editMachines(file: string, change: (machines: MachineEntry[]) => MachineEntry[]): MachineEntry[] {
  const next = change(readMachines(file));
  writeMachines(file, next);
  return next;
}

/** A new entry with the defaults, checked. */
export function newMachine(name: string, target: string, opts: { label?: string; session?: string; corral?: string } = {}): MachineEntry {
  return checkEntry(name, { target, label: opts.label, session: opts.session, corral: opts.corral }, 'machine add');
}
