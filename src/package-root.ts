/** Locates corral's own files at run time, whether running from `dist/` or from `src/`. */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder holding corral's package.json (found by walking up from this module). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'corral.cjs'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find corral package root');
    dir = parent;
  }
}

/** The `bin/corral.cjs` entry that starts this very version. */
export function corralEntry(): string {
  return join(packageRoot(), 'bin', 'corral.cjs');
}

/** True in a git checkout (it has the build script), false in an installed package, which does not ship it. */
export function isCheckout(root: string = packageRoot()): boolean {
  return existsSync(join(root, 'scripts', 'build.mjs'));
}
