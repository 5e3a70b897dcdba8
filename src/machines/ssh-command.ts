/**
 * The ssh command line of a machine link (SPEC §14): the system's OpenSSH, argv only. The ssh
 * program and its leading arguments come from `CORRAL_SSH` (words, like `GIT_SSH_COMMAND`) or
 * `[machines] ssh` (a list), default `ssh`; then corral's options, the target, and the remote
 * command. ssh hands the remote command to the far side's shell as one string, so corral
 * builds it only from checked pieces (machine-config.ts): the remote corral path and the
 * session name hold no shell metacharacter.
 */
import path from 'node:path';
import type { MachineEntry } from './machine-config.js';

/**
 * Options every link uses. BatchMode: a host key or password prompt never appears in the
 * middle of a session (the machine is `unreachable`, `last_error` says what to run). Keep-alives
 * notice a dead link in 15 s. The ControlMaster socket in corral's private runtime directory
 * lets `machine test`, `install` and reconnects reuse one authenticated connection.
 * ConnectTimeout bounds a host that never answers, so it is reported within 10 s.
 */
export function linkOptions(runtimeDir: string): string[] {
  return [
    '-T',
    '-o', 'BatchMode=yes',
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    '-o', 'ConnectTimeout=8',
    '-o', 'ControlMaster=auto',
    '-o', `ControlPath=${path.join(runtimeDir, 'ssh-%C')}`,
    '-o', 'ControlPersist=60',
  ];
}

/** Splits `CORRAL_SSH` into words: whitespace separates, '…' and "…" quote, a leading `~/` is $HOME. No other expansion. */
export function sshWords(text: string, home: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = null;
      else word += ch;
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += ch;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words.map((w) => (w.startsWith('~/') ? path.join(home, w.slice(2)) : w));
}

/** The ssh program and its leading arguments: `CORRAL_SSH`, else `[machines] ssh`, else `ssh`. */
export function sshProgram(env: NodeJS.ProcessEnv, configured: readonly string[] | null): string[] {
  const fromEnv = env.CORRAL_SSH?.trim();
  if (fromEnv) {
    const words = sshWords(fromEnv, env.HOME ?? '');
    if (words.length > 0) return words;
  }
  return configured && configured.length > 0 ? [...configured] : ['ssh'];
}

/** The remote command: corral's `verb` with its session, as the far side's shell reads it. */
export function remoteCommand(entry: MachineEntry, verb: string[]): string {
  return [entry.corral, ...verb, '--session', entry.session].join(' ');
}

/** The whole argv of an ssh that runs `verb` of corral on `entry` (`bridge`, `--version`, …). */
export function sshArgv(entry: MachineEntry, program: readonly string[], runtimeDir: string, verb: string[]): string[] {
  return [...program, ...linkOptions(runtimeDir), entry.target, remoteCommand(entry, verb)];
}
