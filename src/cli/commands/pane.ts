/**
 * `corral pane …`: herdr-style pane verbs. Each prints `{"result":…}` except `pane read`,
 * which prints the text (SPEC §6). Wherever a `<pane>` goes, `--current` means the calling
 * pane ($CORRAL_PANE_ID); the pane slot is then left out, so positionals are declared
 * optional here and checked in paneAndArgs.
 */
import type { Argv } from 'yargs';
import { READ_SOURCES } from '../../contract/protocol.js';
import { UsageError } from '../output.js';
import { absoluteCwd, focusOption, KEY_NAMES } from '../options.js';
import { BOUNDS } from '../../contract/bounds.js';
import { linesOption, numberOption, timeoutMsOption } from '../numbers.js';
import { PANE_REGEX_SYNTAX } from '../../terminal/pane-regex.js';
import {
  currentPaneId,
  defineCommand,
  expectArgs,
  herdrCall,
  paneAndArgs,
  paneArg,
  textCall,
  type GlobalArgs,
} from '../run.js';

/** `[pane]` plus `--current`, shared by every verb that acts on one pane. */
function withPane<T>(y: Argv<T>) {
  return y
    .positional('pane', { type: 'string', describe: 'pane id, e.g. w1:p2 (or --current)' })
    .option('current', { type: 'boolean', default: false, describe: 'the calling pane ($CORRAL_PANE_ID)' });
}

const split = defineCommand({
  command: 'split [pane]',
  describe: 'Split a pane; prints the new pane as .result.pane',
  builder: (y) =>
    withPane(y)
      .option('direction', { choices: ['right', 'down'] as const, demandOption: true, describe: 'where the new pane goes' })
      .option('ratio', numberOption('ratio', BOUNDS.splitRatio, 'share of the space the existing pane keeps (0.05..0.95)'))
      .option('cwd', { type: 'string', describe: 'working directory of the new pane' })
      .option('focus', focusOption),
  handler: (argv) =>
    herdrCall(argv, 'pane.split', () => ({
      pane_id: paneArg(argv),
      direction: argv.direction,
      ratio: argv.ratio,
      cwd: absoluteCwd(argv.cwd),
      focus: argv.focus,
    })),
});

const move = defineCommand({
  command: 'move [pane]',
  describe: 'Move a pane to another tab or workspace; prints .result.move_result',
  builder: (y) =>
    withPane(y)
      .option('workspace', { type: 'string', describe: 'destination workspace id' })
      .option('tab', { type: 'string', describe: 'destination tab id' })
      .option('new-tab', { type: 'boolean', describe: 'into a new tab' })
      .option('new-workspace', { type: 'boolean', describe: 'into a new workspace' }),
  handler: (argv) =>
    herdrCall(argv, 'pane.move', () => ({
      pane_id: paneArg(argv),
      workspace: argv.workspace,
      tab: argv.tab,
      new_tab: argv.newTab,
      new_workspace: argv.newWorkspace,
    })),
});

const list = defineCommand({
  command: 'list',
  describe: 'List panes',
  builder: (y) =>
    y
      .option('workspace', { type: 'string', describe: 'only panes of this workspace' })
      .option('tab', { type: 'string', describe: 'only panes of this tab' }),
  handler: (argv) => herdrCall(argv, 'pane.list', () => ({ workspace: argv.workspace, tab: argv.tab })),
});

/** `pane get|focus|close|zoom [pane]`: one pane in, one call out. */
function byPane(verb: 'get' | 'focus' | 'close' | 'zoom', describe: string) {
  return defineCommand({
    command: `${verb} [pane]`,
    describe,
    builder: (y) => withPane(y),
    handler: (argv) => herdrCall(argv, `pane.${verb}`, () => ({ pane_id: paneArg(argv) })),
  });
}

const current = defineCommand({
  command: 'current',
  describe: 'Show the calling pane ($CORRAL_PANE_ID)',
  builder: (y) => y,
  handler: (argv) => herdrCall(argv, 'pane.current', () => ({ pane_id: currentPaneId() })),
});

const rename = defineCommand({
  command: 'rename [pane] [name]',
  describe: 'Name a pane (an empty name clears it)',
  builder: (y) => withPane(y).positional('name', { type: 'string', describe: 'new name' }),
  handler: (argv) =>
    herdrCall(argv, 'pane.rename', () => {
      const { pane, args } = paneAndArgs(argv, [argv.name]);
      const [name] = expectArgs(args, ['name']);
      return { pane_id: pane, name };
    }),
});

const resize = defineCommand({
  command: 'resize [pane]',
  describe: 'Move the edge of a pane',
  builder: (y) =>
    withPane(y)
      .option('direction', { choices: ['left', 'right', 'up', 'down'] as const, demandOption: true, describe: 'edge to move' })
      .option('amount', numberOption('amount', BOUNDS.resizeAmount, 'cells to move it by (default 5)')),
  handler: (argv) =>
    herdrCall(argv, 'pane.resize', () => ({
      pane_id: paneArg(argv),
      direction: argv.direction,
      amount: argv.amount,
    })),
});

const swap = defineCommand({
  command: 'swap [pane] [other]',
  describe: 'Swap two panes in the layout',
  builder: (y) => withPane(y).positional('other', { type: 'string', describe: 'the pane to swap with' }),
  handler: (argv) =>
    herdrCall(argv, 'pane.swap', () => {
      const { pane, args } = paneAndArgs(argv, [argv.other]);
      const [other] = expectArgs(args, ['other']);
      return { pane_id: pane, other_pane_id: other };
    }),
});

const sourceOption = {
  choices: READ_SOURCES,
  describe: 'visible screen, recent rows incl. scrollback, recent with soft wraps joined, or what detection reads',
} as const;

const read = defineCommand({
  command: 'read [pane]',
  describe: 'Print a pane\'s text (plain text, not JSON)',
  builder: (y) =>
    withPane(y)
      .option('source', { ...sourceOption, default: 'recent' as const })
      .option('lines', linesOption('last N rows, 1..10000 (recent: default 80; visible/detection: whole snapshot)'))
      .option('format', { choices: ['text', 'ansi'] as const, describe: 'ansi keeps escape sequences (default text)' })
      .option('ansi', { type: 'boolean', describe: 'same as --format ansi' }),
  handler: (argv) =>
    textCall(
      argv,
      'pane.read',
      () => ({
        pane_id: paneArg(argv),
        source: argv.source,
        lines: argv.lines,
        format: argv.ansi ? 'ansi' : argv.format,
      }),
      (result) => result.read.text,
    ),
});

const run = defineCommand({
  command: 'run [pane] [command]',
  describe: 'Type a command line into a pane and press Enter (needs the scripting gate)',
  builder: (y) => withPane(y).positional('command', { type: 'string', describe: 'shell command line' }),
  handler: (argv) =>
    herdrCall(argv, 'pane.run', () => {
      const { pane, args } = paneAndArgs(argv, [argv.command]);
      const [command] = expectArgs(args, ['command']);
      return { pane_id: pane, command };
    }),
});

const sendText = defineCommand({
  command: 'send-text [pane] [text]',
  describe: 'Type text into a pane without pressing Enter',
  builder: (y) => withPane(y).positional('text', { type: 'string', describe: 'text to type; after -- if it starts with -' }),
  handler: (argv) =>
    herdrCall(argv, 'pane.send_text', () => {
      const { pane, args } = paneAndArgs(argv, [argv.text]);
      const [text] = expectArgs(args, ['text']);
      return { pane_id: pane, text };
    }),
});

const sendKeys = defineCommand({
  command: 'send-keys [pane] [keys..]',
  describe: 'Press keys in a pane, e.g. enter, esc, ctrl+c (needs the scripting gate)',
  builder: (y) => withPane(y).positional('keys', { type: 'string', array: true, describe: `key names: ${KEY_NAMES}` }),
  handler: (argv) =>
    herdrCall(argv, 'pane.send_keys', () => {
      const { pane, args } = paneAndArgs(argv, [argv.keys]);
      if (args.length === 0) throw new UsageError('missing <keys..>');
      return { pane_id: pane, keys: args };
    }),
});

const waitOutput = defineCommand({
  command: 'wait-output [pane]',
  describe: 'Wait until a pane\'s text matches; text already there counts. Prints .result.{matched_line,read}',
  builder: (y) =>
    withPane(y)
      .option('match', { type: 'string', describe: 'substring to wait for' })
      .option('regex', { type: 'string', describe: `regular expression to wait for, matched line by line (${PANE_REGEX_SYNTAX})` })
      .conflicts('match', 'regex')
      .option('source', { ...sourceOption, describe: 'snapshot to search (default recent)' })
      .option('lines', linesOption('rows to search, 1..10000 (default 80)'))
      .option('timeout', timeoutMsOption('give up after this many MILLISECONDS (exit 4); default: no timeout, waits forever')),
  handler: (argv) =>
    herdrCall(argv, 'pane.wait_for_output', () => {
      const pane = paneArg(argv);
      const match =
        argv.regex !== undefined ? { type: 'regex' as const, value: argv.regex } : argv.match !== undefined ? { type: 'substring' as const, value: argv.match } : undefined;
      if (match === undefined) throw new UsageError('wait-output needs --match TEXT or --regex RE');
      return { pane_id: pane, source: argv.source, lines: argv.lines, match, timeout_ms: argv.timeout };
    }),
});

/** The `pane` verb group. */
export const paneCommand = defineCommand({
  command: 'pane',
  describe: 'Panes: split, move, list, get, read, run, send-text, send-keys, wait-output, … (JSON output)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .command(split)
      .command(move)
      .command(list)
      .command(byPane('get', 'Show one pane (an old id of a moved pane answers with the new one)'))
      .command(current)
      .command(byPane('focus', 'Focus a pane'))
      .command(rename)
      .command(byPane('close', 'Close a pane and end its process'))
      .command(byPane('zoom', 'Toggle zoom: the pane fills its tab'))
      .command(resize)
      .command(swap)
      .command(read)
      .command(run)
      .command(sendText)
      .command(sendKeys)
      .command(waitOutput)
      .demandCommand(1, 'pane needs a subcommand'),
  handler: () => {},
});
