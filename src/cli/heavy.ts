/**
 * The heavy entry point — the server, which also draws attached clients' screens — loaded only when run. They live in their
 * own ESM chunks; the build routes this module around the CLI's code-cached bundle (see
 * scripts/build.mjs), so keep every dynamic import of them here.
 */

/** Loads `runServer` (src/server/run-server.ts). */
export function loadServer(): Promise<typeof import('../server/run-server.js')> {
  return import('../server/run-server.js');
}


/** Loads `runWeb` (src/web/run-web.ts): the web view's server, with `ws`. */
export function loadWeb(): Promise<typeof import('../web/run-web.js')> {
  return import('../web/run-web.js');
}

/** Loads `runMcp` (src/mcp/run-mcp.ts): `corral mcp`, with the MCP SDK. */
export function loadMcp(): Promise<typeof import('../mcp/run-mcp.js')> {
  return import('../mcp/run-mcp.js');
}
