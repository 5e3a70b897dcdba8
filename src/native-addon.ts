/**
 * corral's one native addon of its own (`native/peer_cred.c`, built by scripts/build.mjs with
 * node-gyp, like node-pty): a few thin wrappers over system calls Node does not offer — the
 * peer credentials of a socket (src/pty/peer-cred.ts), a pty's line modes
 * (src/pty/line-mode.ts), and giving the C heap's free pages back (src/terminal/memory-release.ts).
 * Each caller works without it, less well, and says so where it matters.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { packageRoot } from './package-root.js';

export interface NativeAddon {
  peerCred(fd: number): { pid: number; uid: number; gid: number } | null;
  peerPidfd(fd: number): number;
  pidfdAlive(pidfd: number): boolean;
  ttyLocalFlags(fd: number): number;
  /** glibc's malloc_trim(0): free pages inside the C heap go back to the system; false if none did (or not glibc). */
  mallocTrim(): boolean;
}

/** Where scripts/build.mjs leaves the addon, under the package root. */
export const NATIVE_ADDON = join('native', 'build', 'Release', 'peer_cred.node');

let addon: NativeAddon | null | undefined;
let loadError = '';

/** The addon, or null when it cannot load (not built, not Linux). */
export function loadAddon(): NativeAddon | null {
  if (addon !== undefined) return addon;
  try {
    // createRequire keeps the bundler from inlining a native addon.
    addon = createRequire(import.meta.url)(join(packageRoot(), NATIVE_ADDON)) as NativeAddon;
  } catch (error) {
    addon = null;
    // Node's message goes on with a require stack: the first line says what is missing.
    loadError = (error as Error).message.split('\n')[0] ?? '';
  }
  return addon;
}

/** Why the addon did not load ('' when it did or was not tried). */
export function addonLoadError(): string {
  return loadError;
}
