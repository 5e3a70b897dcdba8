/**
 * The environment every pane process starts with (SPEC §1): the server's own environment,
 * then corral's identifiers, which override anything a caller supplied, and a PATH that
 * starts with the directory holding a `corral` launcher for this very version.
 */
import type { PaneRecord } from '../session/model.js';

export interface PaneEnvOptions {
  base: NodeJS.ProcessEnv;
  socketPath: string;
  launcherDir: string | null;
  pane: PaneRecord;
  /** Extra variables from the caller (e.g. an `up` file); corral's own still win. */
  extra?: Record<string, string>;
}

/** Builds the env for a pane's shell. */
export function paneEnvironment(opts: PaneEnvOptions): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(opts.base)) if (value !== undefined) env[key] = value;
  Object.assign(env, opts.extra ?? {});
  // A nested corral started inside a pane must not inherit the outer one's session pins.
  delete env.CORRAL_SESSION;
  Object.assign(env, {
    CORRAL_ENV: '1',
    CORRAL_SOCKET: opts.socketPath,
    CORRAL_WORKSPACE_ID: opts.pane.workspaceId,
    CORRAL_TAB_ID: opts.pane.tabId,
    CORRAL_PANE_ID: opts.pane.id,
    CORRAL_SURFACE_ID: String(opts.pane.surfaceId),
    TERM: 'xterm-256color',
    COLORTERM: 'truecolor',
  });
  if (opts.launcherDir) env.PATH = env.PATH ? `${opts.launcherDir}:${env.PATH}` : opts.launcherDir;
  return env;
}
