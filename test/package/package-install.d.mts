/** See package-install.mjs. */
export const ALLOW_SCRIPTS: string;
export function installArgs(prefix: string, tarball: string): string[];
export function freshHomeNpmEnv(home: string): NodeJS.ProcessEnv;
export function prebuiltMirrorEnv(root: string, dir: string): Record<string, string>;
