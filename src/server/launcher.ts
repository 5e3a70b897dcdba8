/**
 * The `corral` launcher put first on every pane's PATH (SPEC §1), so scripts and agents
 * inside a pane reach this very server's version even when corral is not installed.
 */
import { mkdirSync, writeFileSync, chmodSync } from 'node:fs';
import { join } from 'node:path';
import { corralEntry } from './package-root.js';

/** Writes `<dir>/corral` and returns `dir`. */
export function writeLauncher(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'corral');
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
  writeFileSync(file, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(corralEntry())} "$@"\n`);
  chmodSync(file, 0o755);
  return dir;
}
