/**
 * The wire contract between corral's server and its clients (SPEC §3, §5, §7), the one
 * module the rest of the tree imports it through. Its parts, each with one job:
 * errors.ts (error codes, exit codes), methods.ts (the method table: params, results, gating,
 * streaming, CLI verb), objects.ts (the objects the API returns), events.ts (the event
 * union), limits.ts (transport limits), worktrees.ts (the worktree name rule and objects,
 * SPEC §15) and checkpoints.ts (what checkpoints return, SPEC §20).
 * Everything here stays dependency-free: the CLI imports it on its fast path.
 */
export * from './errors.js';
export * from './methods.js';
export * from './objects.js';
export * from './events.js';
export * from './limits.js';
export * from './worktrees.js';
export * from './checkpoints.js';
export * from './web.js';
