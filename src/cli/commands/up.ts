/** `corral up FILE`: a declarative workspace from a TOML file (SPEC §10). */
import type { PaneInfo, WorkspaceInfo } from '../../contract/protocol.js';
import { formatUpPlan, parseUpFile, type UpPlan } from '../../orchestration/up-file.js';
import { readPlanFile } from '../../orchestration/load-file.js';
import { formatResult, humanText } from '../output.js';
import { defineCommand, out, reportError, withClient } from '../run.js';

/** The short human summary of what `up` created. */
export function formatUpResult(result: { workspace: WorkspaceInfo; panes: PaneInfo[] }): string {
  const lines = [`workspace ${result.workspace.workspace_id} "${result.workspace.label}": ${result.panes.length} pane${result.panes.length === 1 ? '' : 's'}`];
  for (const pane of result.panes) {
    const what = pane.agent ? `${pane.agent.kind} (${pane.agent.agent_status})` : pane.cmd || 'shell';
    lines.push(`  ${pane.pane_id.padEnd(7)} ${(pane.name ?? '-').padEnd(12)} ${what}${pane.focused ? '  (focused)' : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** `corral up`. */
export const upCommand = defineCommand({
  command: 'up <file>',
  describe: 'Create a workspace from a TOML file: panes, layout, commands, agents, prompts',
  builder: (y) =>
    y
      .positional('file', { type: 'string', demandOption: true, describe: 'the up file (see docs/orchestration.md)' })
      .option('dry-run', { type: 'boolean', default: false, describe: 'validate and print the plan; contact no server, create nothing' })
      .option('json', { type: 'boolean', default: false, describe: 'print {"result":…} JSON instead of a summary' })
      .example('$0 up dev.toml', 'create the workspace dev.toml describes')
      .example('$0 up dev.toml --dry-run', 'check the file and show what it would create'),
  handler: async (argv) => {
    let plan: UpPlan;
    try {
      const { source, opts } = readPlanFile(argv.file);
      plan = parseUpFile(source, opts);
    } catch (error) {
      return reportError(error);
    }
    if (argv.dryRun) {
      out(argv.json ? `${formatResult({ dry_run: true, plan })}\n` : humanText(formatUpPlan(plan, `${argv.file} (dry run: nothing was created)`)));
      return;
    }
    await withClient(argv, async (client) => {
      const result = await client.call('workspace.up', { ...plan });
      out(argv.json ? `${formatResult(result)}\n` : humanText(formatUpResult(result)));
    });
  },
});
