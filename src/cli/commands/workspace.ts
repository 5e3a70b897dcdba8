/** `corral workspace …`: herdr-style workspace verbs; each prints `{"result":…}` (SPEC §5, §6). */
import path from 'node:path';
import type { Argv } from 'yargs';
import { focusOption } from '../options.js';
import { defineCommand, herdrCall, type GlobalArgs } from '../run.js';

const create = defineCommand({
  command: 'create',
  describe: 'Create a workspace with one tab and one pane; prints .result.{workspace,tab,root_pane}',
  builder: (y) =>
    y
      .option('cwd', { type: 'string', describe: 'working directory (default: the current one)' })
      .option('label', { type: 'string', describe: 'label shown in the sidebar' })
      .option('focus', focusOption),
  handler: (argv) =>
    herdrCall(argv, 'workspace.create', () => ({
      cwd: path.resolve(argv.cwd ?? process.cwd()),
      label: argv.label,
      focus: argv.focus,
    })),
});

const list = defineCommand({
  command: 'list',
  describe: 'List workspaces',
  builder: (y) => y,
  handler: (argv) => herdrCall(argv, 'workspace.list', () => ({})),
});

/** `workspace get|focus|close <id>`: one id in, one call out. */
function byId(verb: 'get' | 'focus' | 'close', describe: string) {
  return defineCommand({
    command: `${verb} <id>`,
    describe,
    builder: (y) => y.positional('id', { type: 'string', demandOption: true, describe: 'workspace id, e.g. w1' }),
    handler: (argv) => herdrCall(argv, `workspace.${verb}`, () => ({ workspace_id: argv.id })),
  });
}

const rename = defineCommand({
  command: 'rename <id> <label>',
  describe: 'Rename a workspace',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'workspace id, e.g. w1' })
      .positional('label', { type: 'string', demandOption: true, describe: 'new label' }),
  handler: (argv) => herdrCall(argv, 'workspace.rename', () => ({ workspace_id: argv.id, label: argv.label })),
});

/** The `workspace` verb group. */
export const workspaceCommand = defineCommand({
  command: 'workspace',
  describe: 'Workspaces: create, list, get, focus, rename, close (JSON output)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .command(create)
      .command(list)
      .command(byId('get', 'Show one workspace'))
      .command(byId('focus', 'Focus a workspace'))
      .command(rename)
      .command(byId('close', 'Close a workspace and every pane in it'))
      .demandCommand(1, 'workspace needs a subcommand'),
  handler: () => {},
});
