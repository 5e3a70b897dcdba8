/**
 * The heavy entry points — the server and the TUI — loaded only when run. They live in their
 * own ESM chunks; the build routes this module around the CLI's code-cached bundle (see
 * scripts/build.mjs), so keep every dynamic import of them here.
 */

/** Loads `runServer` (src/server/run-server.ts). */
export function loadServer(): Promise<typeof import('../server/run-server.js')> {
  return import('../server/run-server.js');
}

/** Loads `runTui` (src/tui/run-tui.ts). */
export function loadTui(): Promise<typeof import('../tui/run-tui.js')> {
  return import('../tui/run-tui.js');
}
