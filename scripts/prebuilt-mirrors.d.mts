/** See prebuilt-mirrors.mjs. */
export function prebuiltMirrorEnv(root: string, dir: string): Record<string, string>;
