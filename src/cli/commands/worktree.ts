/**
 * `corral worktree list|diff|merge|discard|prune` (SPEC §15), and the diff and merge output
 * `agent diff|merge` share. Human text by default — a diff coloured on a terminal, plain when
 * piped — or the bare result with `--json`. `discard` asks first unless `--yes`.
 */
import { createInterface } from 'node:readline/promises';
import type { Argv } from 'yargs';
import type { MethodName, MethodParams, MethodResults, WorktreeDiffResult, WorktreeInfo, WorktreeMergeResult, WorktreePruneResult } from '../../contract/protocol.js';
import { WORKTREE_NAME_RULE } from '../../contract/protocol.js';
import { diffLines, statLines } from '../../terminal/diff-lines.js';
import { visibleControls } from '../../terminal/control-chars.js';
import { cell, formatTable, UsageError } from '../output.js';
import { absoluteCwd, jsonOption } from '../options.js';
import { conductorCall, defineCommand, out, reportError, withClient, type GlobalArgs } from '../run.js';

/** Colour only for a terminal that wants it (https://no-color.org). */
function colourWanted(): boolean {
  return process.stdout.isTTY === true && (process.env.NO_COLOR ?? '') === '';
}

/** One call printed by a formatter that makes the repository's text visible itself (so its colours survive), or `--json`. */
export function printCall<M extends MethodName>(
  argv: GlobalArgs & { json?: boolean },
  method: M,
  params: () => MethodParams[M],
  format: (result: MethodResults[M]) => string,
): Promise<void> {
  return conductorCall(argv, method, params, format, { styled: true });
}

/** How a diff prints: the patch (default), `--stat` or `--name-only`. `statCommand` lists every file of a cut diff. */
export function formatDiff(result: Pick<WorktreeDiffResult, 'files' | 'patch' | 'truncated'>, how: { stat?: boolean; nameOnly?: boolean; statCommand: string }): string {
  if (how.nameOnly) return result.files.map((f) => `${visibleControls(f.path)}\n`).join('');
  const colour = colourWanted();
  if (how.stat) return `${statLines(result.files, colour).join('\n')}\n`;
  const lines = diffLines(result.patch ?? '', colour);
  if (result.truncated) lines.push(`[diff cut at its size limit: ${visibleControls(how.statCommand)} lists every file]`);
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** The options `worktree diff` and `agent diff` share. */
export function diffOptions<T>(y: Argv<T>) {
  return y
    .option('stat', { type: 'boolean', describe: 'the changed files with +added −removed counts, and a total' })
    .option('name-only', { type: 'boolean', describe: 'only the changed files’ paths' })
    .option('json', { ...jsonOption, describe: 'print {worktree, branch, base, files:[{path,status,added,removed}], added, removed, patch} as JSON' })
    .conflicts('stat', 'name-only');
}

/** The options `worktree merge` and `agent merge` share. */
export function mergeOptions<T>(y: Argv<T>) {
  return y
    .option('squash', { type: 'boolean', describe: 'one commit on the main checkout’s branch instead of a merge' })
    .option('rebase', { type: 'boolean', describe: 'rebase the branch onto the main checkout’s branch in the worktree, then fast-forward' })
    .option('message', { type: 'string', alias: 'm', describe: 'message of the commit of uncommitted work (and of a squash); default "corral: NAME"' })
    .option('json', jsonOption)
    .conflicts('squash', 'rebase');
}

/** The merge params from `--squash`/`--rebase`/`--message`. */
export function mergeParams(argv: { squash?: boolean; rebase?: boolean; message?: string }): { mode: 'merge' | 'squash' | 'rebase'; message?: string } {
  return { mode: argv.squash ? 'squash' : argv.rebase ? 'rebase' : 'merge', message: argv.message };
}

export function formatMerge(result: WorktreeMergeResult): string {
  const committed = result.committed ? `committed its uncommitted work as ${result.committed.slice(0, 12)}; ` : '';
  if (result.up_to_date) return `${committed}${visibleControls(result.branch)} is already in ${visibleControls(result.into)}: nothing to merge\n`;
  const how = result.mode === 'squash' ? 'squashed into' : result.mode === 'rebase' ? 'rebased onto and fast-forwarded' : 'merged into';
  return `${committed}${visibleControls(result.branch)} ${how} ${visibleControls(result.into)} (now ${result.head.slice(0, 12)})\n`;
}

function formatList(result: { worktrees: WorktreeInfo[] }): string {
  if (result.worktrees.length === 0) return 'No worktrees.\n';
  const state = (w: WorktreeInfo) =>
    w.missing ? 'missing' : [w.dirty ? 'dirty' : 'clean', w.merged ? 'merged' : `+${w.ahead} unmerged`, w.behind > 0 ? `${w.behind} behind` : ''].filter(Boolean).join(', ');
  return formatTable(
    ['NAME', 'BRANCH', 'AGENT', 'PANES', 'STATE', 'PATH'],
    result.worktrees.map((w) => [cell(w.name), cell(w.branch), cell(w.agent), cell(w.panes.join(',')), cell(state(w)), cell(w.path)]),
  );
}

function formatPrune(result: WorktreePruneResult): string {
  const lines = [
    ...result.removed.map((name) => `${result.dry_run ? 'would remove' : 'removed'} ${visibleControls(name)}`),
    ...result.kept.map((k) => `kept ${visibleControls(k.name)}: ${k.reasons.map((r) => visibleControls(r)).join('; ')}`),
  ];
  return lines.length === 0 ? 'No worktrees.\n' : `${lines.join('\n')}\n`;
}

const NAME = { type: 'string', demandOption: true, describe: `worktree name (${WORKTREE_NAME_RULE})` } as const;

const list = defineCommand({
  command: 'list',
  describe: 'List the worktrees corral made: branch, agent, panes, dirty/merged, path',
  builder: (y) => y.option('repo', { type: 'string', describe: 'only those of the repository holding this directory' }).option('json', jsonOption),
  handler: (argv) => printCall(argv, 'worktree.list', () => ({ repo: absoluteCwd(argv.repo) }), formatList),
});

const diff = defineCommand({
  command: 'diff <name>',
  describe: 'What a worktree changed against its base: commits, staged, unstaged and untracked files',
  builder: (y) => diffOptions(y.positional('name', NAME)),
  handler: (argv) => printCall(argv, 'worktree.diff', () => ({ name: argv.name, patch: !(argv.stat || argv.nameOnly) || argv.json === true }), (r) => formatDiff(r, { stat: argv.stat, nameOnly: argv.nameOnly, statCommand: `corral worktree diff ${r.worktree} --stat` })),
});

const merge = defineCommand({
  command: 'merge <name>',
  describe:
    "Commit a worktree's uncommitted work and merge its branch into the branch the main checkout has checked out; a conflict merges nothing (from inside a pane this needs the scripting gate)",
  builder: (y) => mergeOptions(y.positional('name', NAME)),
  handler: (argv) => printCall(argv, 'worktree.merge', () => ({ name: argv.name, ...mergeParams(argv) }), formatMerge),
});

/** Asks on the terminal whether to go on; false for anything but y/yes. */
export async function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(`${question} [y/N] `)).trim());
  } finally {
    rl.close();
  }
}

const discard = defineCommand({
  command: 'discard <name>',
  describe: 'Remove a worktree and its branch, uncommitted work included (asks first; --yes does not); refused while a process runs inside it',
  builder: (y) => y.positional('name', NAME).option('yes', { type: 'boolean', alias: 'y', describe: 'do not ask' }).option('json', jsonOption),
  handler: async (argv) => {
    if (!argv.yes) {
      if (!process.stdin.isTTY) return reportError(new UsageError('worktree discard asks before it throws work away: run it on a terminal, or pass --yes'));
      let proceed = false;
      await withClient(argv, async (client) => {
        const found = (await client.call('worktree.list', {})).worktrees.find((w) => w.name === argv.name);
        const what = found ? `${found.dirty ? 'uncommitted changes, ' : ''}${found.merged ? 'branch merged' : `${found.ahead} commit${found.ahead === 1 ? '' : 's'} not merged`}` : 'not found';
        proceed = await confirm(`Discard worktree ${visibleControls(argv.name)}${found ? ` at ${visibleControls(found.path)} (${visibleControls(found.branch)}: ${what})` : ` (${what})`}?`);
      });
      if (process.exitCode) return;
      if (!proceed) return out('not discarded\n');
    }
    await printCall(argv, 'worktree.discard', () => ({ name: argv.name }), (r) => `discarded ${visibleControls(r.discarded)} (branch ${visibleControls(r.branch)}, ${visibleControls(r.path)})\n`);
  },
});

const prune = defineCommand({
  command: 'prune',
  describe: 'Remove the worktrees that are merged, clean and have no process inside; --force also the unmerged and dirty ones (never one a process runs in)',
  builder: (y) =>
    y
      .option('dry-run', { type: 'boolean', describe: 'only say what would go' })
      .option('force', { type: 'boolean', describe: 'also remove unmerged and dirty worktrees (from inside a pane this needs the scripting gate)' })
      .option('json', jsonOption),
  handler: (argv) => printCall(argv, 'worktree.prune', () => ({ dry_run: argv.dryRun ?? false, force: argv.force ?? false }), formatPrune),
});

/** The `worktree` verb group. */
export const worktreeCommand = defineCommand({
  command: 'worktree',
  describe: 'Worktrees corral made for agents: list, diff, merge, discard, prune (text, or --json)',
  builder: (y: Argv<GlobalArgs>) => y.command(list).command(diff).command(merge).command(discard).command(prune).demandCommand(1, 'worktree needs a subcommand'),
  handler: () => {},
});
