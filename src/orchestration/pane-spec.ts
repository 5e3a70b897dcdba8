/**
 * The pane fields `up` files (`[[panes]]`) and flow `pane` steps share (SPEC §10): where the
 * pane starts, what runs in it, what it is called, and what is typed into its agent.
 */
import { BOUNDS } from '../contract/bounds.js';
import { statSync } from 'node:fs';
import path from 'node:path';
import { AGENT_KINDS } from '../agents/kinds.js';
import { suggest } from '../config/suggest.js';
import type { Checker, KeyPath, Table } from './toml-doc.js';
import { WORKTREE_NAME_PATTERN, WORKTREE_NAME_RULE } from '../contract/protocol.js';

export const PANE_KEYS = ['cwd', 'agent', 'command', 'name', 'prompt', 'focus', 'env', 'restore', 'worktree', 'max_tokens'] as const;

/** At most this many panes in one `up` file or flow (SPEC §10). */
export const MAX_PANES = 32;

/** A validated pane: `cwd` is absolute; at most one of `agent` / `command`. */
export interface PaneSpec {
  cwd: string;
  agent?: string;
  command?: string;
  name?: string;
  /** Typed into the agent once it is ready, not submitted. */
  prompt?: string;
  focus: boolean;
  env: Record<string, string>;
  /** Re-run `command` when a saved session is restored (SPEC §13); other programs are not. */
  restore: boolean;
  /** The pane starts in a new git worktree of this name, made in the repository of `cwd` (SPEC §15). */
  worktree?: string;
  /** The agent's next turn's token budget (SPEC §18): crossing it interrupts the turn. */
  max_tokens?: number;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** How relative and `~` paths resolve, and how a directory is recognised (tests fake it). */
export interface PathContext {
  /** Relative `cwd`s resolve against this (the file's directory); undefined = must be absolute. */
  baseDir?: string;
  home: string;
  isDirectory?: (dir: string) => boolean;
}

function defaultIsDirectory(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Expands `~` and resolves against the base directory; null when the path cannot be resolved. */
export function resolveCwd(raw: string, ctx: PathContext): string | null {
  let p = raw;
  if (p === '~') p = ctx.home;
  else if (p.startsWith('~/')) p = path.join(ctx.home, p.slice(2));
  if (path.isAbsolute(p)) return path.normalize(p);
  return ctx.baseDir === undefined ? null : path.resolve(ctx.baseDir, p);
}

/** Validates one pane table; `context` reads like " in [[panes]] #2". */
export function checkPane(check: Checker, table: Table, at: KeyPath, context: string, ctx: PathContext): PaneSpec {
  check.knownKeys(table, at, PANE_KEYS, context);
  const rawCwd = check.str(table, 'cwd', at, context, { nonEmpty: true });
  let cwd = ctx.baseDir ?? ctx.home;
  if (rawCwd !== undefined) {
    const resolved = resolveCwd(rawCwd, ctx);
    if (resolved === null) check.add([...at, 'cwd'], `key "cwd"${context} must be an absolute path, got ${JSON.stringify(rawCwd)}`);
    else cwd = resolved;
  }
  if (!(ctx.isDirectory ?? defaultIsDirectory)(cwd)) {
    check.add([...at, 'cwd'], `key "cwd"${context}: ${JSON.stringify(cwd)} is not a directory`);
  }
  const agent = check.str(table, 'agent', at, context, { nonEmpty: true });
  if (agent !== undefined && !(AGENT_KINDS as readonly string[]).includes(agent)) {
    const hint = suggest(agent, AGENT_KINDS);
    check.add([...at, 'agent'], `unknown agent kind "${agent}"${context}${hint ? ` (did you mean "${hint}"?)` : `; one of ${AGENT_KINDS.join(', ')}`}`);
  }
  const command = check.str(table, 'command', at, context, { nonEmpty: true });
  if (table.agent !== undefined && table.command !== undefined) {
    check.add([...at, 'command'], `"agent" and "command" cannot both be set${context}: a pane runs one or the other`);
  }
  const name = check.str(table, 'name', at, context, { nonEmpty: true });
  const prompt = check.str(table, 'prompt', at, context);
  if (table.prompt !== undefined && table.agent === undefined) {
    check.add([...at, 'prompt'], `key "prompt"${context} needs "agent": the prompt is typed into the agent`);
  }
  const maxTokens = check.int(table, 'max_tokens', at, context, BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max);
  if (table.max_tokens !== undefined && table.agent === undefined) {
    check.add([...at, 'max_tokens'], `key "max_tokens"${context} needs "agent": it bounds the agent's turn`);
  }
  const focus = check.bool(table, 'focus', at, context) ?? false;
  const restore = check.bool(table, 'restore', at, context) ?? false;
  if (restore && table.command === undefined) {
    check.add([...at, 'restore'], `key "restore"${context} needs "command": it re-runs the command when the session is restored (agents resume on their own)`);
  }
  const worktree = check.str(table, 'worktree', at, context, { nonEmpty: true });
  if (worktree !== undefined && !WORKTREE_NAME_PATTERN.test(worktree)) {
    check.add([...at, 'worktree'], `worktree name "${worktree}"${context} must match ${WORKTREE_NAME_RULE}`);
  }
  const env: Record<string, string> = {};
  const envTable = check.table(table, 'env', at, context);
  if (envTable) {
    for (const [key, value] of Object.entries(envTable)) {
      if (!ENV_NAME.test(key)) check.add([...at, 'env', key], `environment variable name "${key}"${context} must be letters, digits and _, not starting with a digit`);
      else if (typeof value !== 'string') check.add([...at, 'env', key], `env.${key}${context} must be a string, got ${typeof value === 'object' ? 'a table or array' : String(value)}`);
      else env[key] = value;
    }
  }
  const spec: PaneSpec = { cwd, focus, env, restore };
  if (agent !== undefined) spec.agent = agent;
  if (command !== undefined) spec.command = command;
  if (name !== undefined) spec.name = name;
  if (prompt !== undefined) spec.prompt = prompt;
  if (worktree !== undefined) spec.worktree = worktree;
  if (maxTokens !== undefined) spec.max_tokens = maxTokens;
  return spec;
}

/** Cross-pane rules: unique names and worktrees, at most one focused pane. `paths[i]` is pane i's key path. */
export function checkPaneSet(check: Checker, panes: readonly PaneSpec[], paths: readonly KeyPath[], label: (i: number) => string): void {
  const byName = new Map<string, number>();
  panes.forEach((pane, i) => {
    if (pane.name === undefined) return;
    const first = byName.get(pane.name);
    if (first !== undefined) check.add([...paths[i]!, 'name'], `pane name "${pane.name}" in ${label(i)} is already used by ${label(first)}; names select panes, so they must be unique`);
    else byName.set(pane.name, i);
  });
  const byWorktree = new Map<string, number>();
  panes.forEach((pane, i) => {
    if (pane.worktree === undefined) return;
    const first = byWorktree.get(pane.worktree);
    if (first !== undefined) check.add([...paths[i]!, 'worktree'], `worktree "${pane.worktree}" in ${label(i)} is already ${label(first)}'s; each pane's worktree is its own`);
    else byWorktree.set(pane.worktree, i);
  });
  const focused = panes.map((p, i) => (p.focus ? i : -1)).filter((i) => i >= 0);
  for (const i of focused.slice(1)) check.add([...paths[i]!, 'focus'], `only one pane can have focus = true; ${label(focused[0]!)} already has it (${label(i)})`);
}
