/**
 * `up` files (SPEC §10): a declarative workspace — a name, a layout preset and up to 32
 * panes, each running a command or an agent. Parsing and validation are pure (the
 * directory check is injectable); the CLI validates the file and sends the resulting plan
 * to `workspace.up`, which validates it again with the same rules (other clients call it too).
 */
import { BOUNDS } from '../contract/bounds.js';
import { PRESET_KINDS, type PresetKind } from '../session/layout.js';
import { Checker, FileError, Locator, isTable, locateIssues, parseToml, type KeyPath, type Table } from './toml-doc.js';
import { checkPane, checkPaneSet, MAX_PANES, type PaneSpec, type PathContext } from './pane-spec.js';

export const UP_KEYS = ['name', 'layout', 'panes', 'budget_tokens'] as const;

/** Without a `layout`, panes tile (works for any count; tmux's `select-layout tiled`). */
export const DEFAULT_LAYOUT: PresetKind = 'tiled';

/** Timing of `up`, shared by the server's apply (actions/up-apply.ts) and flow `pane` steps. */
export const UP_TIMING = {
  /**
   * How long each agent may take to be ready. Longer than `agent start`'s 30 s default:
   * several agents start at once here and compete for the CPU (within SPEC's 300 s bound).
   */
  agentStartTimeoutMs: 120_000,
} as const;

/** What `workspace.up` takes and `up --dry-run` prints. */
export interface UpPlan {
  /** Workspace label; the first pane's directory name when absent. */
  name?: string;
  layout: PresetKind;
  panes: PaneSpec[];
  /** Tokens its agents may spend together (SPEC §18): crossing it interrupts them all. */
  budget_tokens?: number;
}

/** `[[panes]] #2` — how messages name a pane table (1-based, as a person counts). */
export function paneLabel(i: number): string {
  return `[[panes]] #${i + 1}`;
}

/** Validates a parsed `up` document (or `workspace.up` params) into a plan, collecting issues. */
export function checkUpDocument(check: Checker, doc: Table, ctx: PathContext, extraKeys: readonly string[] = []): UpPlan {
  check.knownKeys(doc, [], [...UP_KEYS, ...extraKeys], '');
  const name = check.str(doc, 'name', [], '', { nonEmpty: true });
  const layout = check.oneOf(doc, 'layout', [], '', PRESET_KINDS) ?? DEFAULT_LAYOUT;
  const budgetTokens = check.int(doc, 'budget_tokens', [], '', BOUNDS.budgetTokens.min, BOUNDS.budgetTokens.max);
  const panes: PaneSpec[] = [];
  const paths: KeyPath[] = [];
  const raw = doc.panes;
  if (raw === undefined) check.add([], 'no panes: add at least one [[panes]] table');
  else if (!Array.isArray(raw)) check.add(['panes'], 'key "panes" must be an array of tables ([[panes]])');
  else if (raw.length === 0) check.add(['panes'], 'no panes: add at least one [[panes]] table');
  else {
    if (raw.length > MAX_PANES) check.add(['panes', MAX_PANES], `too many panes: ${raw.length}, at most ${MAX_PANES}`);
    raw.slice(0, MAX_PANES).forEach((item, i) => {
      const at: KeyPath = ['panes', i];
      if (!isTable(item)) return check.add(at, `${paneLabel(i)} must be a table`);
      panes.push(checkPane(check, item, at, ` in ${paneLabel(i)}`, ctx));
      paths.push(at);
    });
    checkPaneSet(check, panes, paths, paneLabel);
  }
  const plan: UpPlan = { layout, panes };
  if (name !== undefined) plan.name = name;
  if (budgetTokens !== undefined) plan.budget_tokens = budgetTokens;
  return plan;
}

export interface ParseFileOptions extends Omit<PathContext, 'baseDir'> {
  /** The file's directory: relative `cwd`s resolve against it. */
  baseDir: string;
  /** How the file is named in messages (as the user typed it). */
  shownPath: string;
}

/** Parses and validates an `up` file; throws a FileError listing every problem with its line. */
export function parseUpFile(source: string, opts: ParseFileOptions): UpPlan {
  const doc = parseToml(source, opts.shownPath);
  const check = new Checker();
  const plan = checkUpDocument(check, doc, opts);
  if (check.issues.length > 0) throw new FileError(locateIssues(check.issues, opts.shownPath, new Locator(source)));
  return plan;
}

/** Human summary of a plan (`up --dry-run`). */
export function formatUpPlan(plan: UpPlan, heading: string): string {
  const lines = [`${heading}: workspace ${plan.name ? JSON.stringify(plan.name) : '(named after its directory)'}, layout ${plan.layout}, ${plan.panes.length} pane${plan.panes.length === 1 ? '' : 's'}${plan.budget_tokens !== undefined ? `, budget ${plan.budget_tokens} tokens` : ''}`];
  plan.panes.forEach((pane, i) => {
    const what = pane.agent ? `agent ${pane.agent}` : pane.command ? `run ${JSON.stringify(pane.command)}` : 'shell';
    const extras = [
      pane.name ? `name ${pane.name}` : '',
      pane.prompt !== undefined ? `prompt typed (${pane.prompt.length} chars, not submitted)` : '',
      Object.keys(pane.env).length ? `env ${Object.keys(pane.env).join(',')}` : '',
      pane.focus ? 'focus' : '',
      pane.worktree ? `in a new worktree ${pane.worktree}` : '',
      pane.max_tokens !== undefined ? `turn budget ${pane.max_tokens} tokens` : '',
    ].filter(Boolean);
    lines.push(`  ${i + 1}. ${what} in ${pane.cwd}${extras.length ? `; ${extras.join('; ')}` : ''}`);
  });
  return `${lines.join('\n')}\n`;
}
