/**
 * The `corral` launcher put first on every pane's PATH (SPEC §1), so scripts and agents
 * inside a pane reach this very server's version even when corral is not installed.
 *
 * Whoever can write the launcher runs code as every pane's user, so it lives only in corral's
 * own private directory (checked like the socket directory, SPEC §8), never next to a
 * `--socket` the user chose. Its directory is named after its content: every server of one
 * installation shares it, so no server's exit can remove a launcher another one still uses,
 * and nothing needs deleting (a stale one is a few bytes in a private directory).
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir } from '../socket-dir.js';
import { corralEntry } from '../package-root.js';

const LAUNCHER_MODE = 0o700;

function quote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** True when `file` is already a regular file (not a link) with exactly `content` and our mode. */
function isCurrent(file: string, content: string): boolean {
  try {
    const stats = lstatSync(file);
    return stats.isFile() && (stats.mode & 0o7777) === LAUNCHER_MODE && readFileSync(file, 'utf8') === content;
  } catch {
    return false;
  }
}

/** Writes `<runtimeDir>/bin-<hash>/corral` unless it is already there, and returns its directory. */
export function writeLauncher(runtimeDir: string): string {
  const content = `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(corralEntry())} "$@"\n`;
  ensurePrivateDir(runtimeDir);
  const dir = join(runtimeDir, `bin-${createHash('sha256').update(content).digest('hex').slice(0, 12)}`);
  ensurePrivateDir(dir);
  const file = join(dir, 'corral');
  if (isCurrent(file, content)) return dir;
  // A fresh file under a name of our own (O_EXCL: never through a link), then renamed over:
  // a pane starting meanwhile sees the old launcher or the new one, never half of one.
  const temporary = join(dir, `.corral-${process.pid}`);
  try {
    unlinkSync(temporary);
  } catch {
    // Usually absent.
  }
  writeFileSync(temporary, content, { mode: LAUNCHER_MODE, flag: 'wx' });
  renameSync(temporary, file);
  return dir;
}
