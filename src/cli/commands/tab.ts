/** `corral tab …`: herdr-style tab verbs; each prints `{"result":…}` (SPEC §5, §6). */
import type { Argv } from 'yargs';
import { absoluteCwd, focusOption } from '../options.js';
import { defineCommand, herdrCall, type GlobalArgs } from '../run.js';

const create = defineCommand({
  command: 'create',
  describe: 'Create a tab with one pane; prints .result.{tab,root_pane}',
  builder: (y) =>
    y
      .option('workspace', { type: 'string', describe: 'workspace id (default: the focused one)' })
      .option('label', { type: 'string', describe: 'label shown in the tab bar' })
      .option('cwd', { type: 'string', describe: 'working directory of the new pane' })
      .option('focus', focusOption),
  handler: (argv) =>
    herdrCall(argv, 'tab.create', () => ({
      workspace: argv.workspace,
      label: argv.label,
      cwd: absoluteCwd(argv.cwd),
      focus: argv.focus,
    })),
});

const list = defineCommand({
  command: 'list',
  describe: 'List tabs',
  builder: (y) => y.option('workspace', { type: 'string', describe: 'only tabs of this workspace' }),
  handler: (argv) => herdrCall(argv, 'tab.list', () => ({ workspace: argv.workspace })),
});

/** `tab get|focus|close <id>`: one id in, one call out. */
function byId(verb: 'get' | 'focus' | 'close', describe: string) {
  return defineCommand({
    command: `${verb} <id>`,
    describe,
    builder: (y) => y.positional('id', { type: 'string', demandOption: true, describe: 'tab id, e.g. w1:t2' }),
    handler: (argv) => herdrCall(argv, `tab.${verb}`, () => ({ tab_id: argv.id })),
  });
}

const rename = defineCommand({
  command: 'rename <id> <label>',
  describe: 'Rename a tab',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'tab id, e.g. w1:t2' })
      .positional('label', { type: 'string', demandOption: true, describe: 'new label' }),
  handler: (argv) => herdrCall(argv, 'tab.rename', () => ({ tab_id: argv.id, label: argv.label })),
});

/** The `tab` verb group. */
export const tabCommand = defineCommand({
  command: 'tab',
  describe: 'Tabs: create, list, get, focus, rename, close (JSON output)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .command(create)
      .command(list)
      .command(byId('get', 'Show one tab'))
      .command(byId('focus', 'Focus a tab'))
      .command(rename)
      .command(byId('close', 'Close a tab and every pane in it'))
      .demandCommand(1, 'tab needs a subcommand'),
  handler: () => {},
});
