/**
 * Every CLI verb that is one RPC call, as data (SPEC §6): the herdr-style groups
 * (`workspace`, `tab`, `pane`, printing `{"result":…}`) and the Conductor pane verbs (`read`,
 * `search`, `send`, `key`, `focus`, printing text or `--json`). Each entry names its method,
 * positionals, flags, params and output; verb-table.ts turns them into yargs commands. Verbs
 * with more to them than one call (agent, wait, watch, up, flow, hooks, server) keep their
 * own modules in commands/; main.ts lists all of them in one order.
 */
import path from 'node:path';
import {
  READ_SOURCES,
  WORKTREE_NAME_RULE,
  type PaneReadResult,
  type SurfaceFocusResult,
  type SurfaceReadResult,
  type SurfaceSearchResult,
  type SurfaceSendTextResult,
} from '../contract/protocol.js';
import { BOUNDS } from '../contract/bounds.js';
import { PANE_REGEX_SYNTAX } from '../terminal/pane-regex.js';
import { formatFocused, formatSearch, formatSent } from './conductor-format.js';
import { linesOption, numberOption, timeoutMsOption } from './numbers.js';
import { absoluteCwd, focusOption, jsonOption, KEY_NAMES, targetPositional, WORKTREE_OPTIONS, worktreeParams } from './options.js';
import { UsageError } from './output.js';
import { afterDashes, currentPaneId, expectArgs, paneAndArgs, paneArg, textArg } from './run.js';
import type { CallVerb, VerbArgs, VerbGroup, VerbOutput } from './verb-table.js';

/** herdr's `{"result":…}`: the whole response, as JSON. */
const RESULT: VerbOutput = { kind: 'result' };

/** A string flag or positional, or undefined when absent. */
function str(argv: VerbArgs, name: string): string | undefined {
  const value = argv[name];
  return typeof value === 'string' ? value : undefined;
}

/** A list positional (`[keys..]`), or undefined when absent. */
function list(argv: VerbArgs, name: string): string[] | undefined {
  const value = argv[name];
  return Array.isArray(value) ? value.map(String) : undefined;
}

/** The pane flags as run.ts reads them (`[pane]`, `--current`, and what follows `--`). */
function paneFlags(argv: VerbArgs): { pane?: string; current?: boolean } {
  return argv as { pane?: string; current?: boolean };
}

/** The pane a pane verb acts on: `[pane]` or `--current`. */
function pane(argv: VerbArgs): string {
  return paneArg(paneFlags(argv));
}

/** The pane and the verb's other positionals (with `--current` the pane slot holds the first of them). */
function paneAnd(argv: VerbArgs, names: readonly string[]): { pane: string; args: string[] } {
  return paneAndArgs(
    paneFlags(argv),
    names.map((name) => argv[name] as string | string[] | undefined),
  );
}

// ---------------------------------------------------------------------------
// workspace and tab: the same verbs over a different noun.

/** `get|focus|rename|close <id>` of a workspace or tab: one id in, one call out. */
function byIdVerbs(noun: 'workspace' | 'tab', idParam: string, idDescribe: string): CallVerb[] {
  const id = { id: { type: 'string', demandOption: true, describe: idDescribe } } as const;
  const byId = (verb: string, describe: string): CallVerb => ({
    command: `${verb} <id>`,
    describe,
    method: `${noun}.${verb}`,
    positionals: id,
    params: (argv) => ({ [idParam]: argv.id }),
    output: RESULT,
  });
  return [
    byId('get', `Show one ${noun}`),
    byId('focus', `Focus a ${noun}`),
    {
      command: 'rename <id> <label>',
      describe: `Rename a ${noun}`,
      method: `${noun}.rename`,
      positionals: { ...id, label: { type: 'string', demandOption: true, describe: 'new label' } },
      params: (argv) => ({ [idParam]: argv.id, label: argv.label }),
      output: RESULT,
    },
    byId('close', `Close a ${noun} and every pane in it`),
  ];
}

/** `get`, `focus` and `rename` come between `list` and `close`, as `--help` has always listed them. */
function withIdVerbs(create: CallVerb, listVerb: CallVerb, idVerbs: CallVerb[]): CallVerb[] {
  const [get, focus, rename, close] = idVerbs;
  return [create, listVerb, get!, focus!, rename!, close!];
}

const WORKSPACE: VerbGroup = {
  command: 'workspace',
  describe: 'Workspaces: create, list, get, focus, rename, close (JSON output)',
  verbs: withIdVerbs(
    {
      command: 'create',
      describe: 'Create a workspace with one tab and one pane; prints .result.{workspace,tab,root_pane} (and .result.worktree with --worktree)',
      method: 'workspace.create',
      options: {
        cwd: { type: 'string', describe: 'working directory (default: the current one)' },
        label: { type: 'string', describe: 'label shown in the sidebar' },
        focus: focusOption,
        worktree: { type: 'string', describe: `open it in a new git worktree of this name (${WORKTREE_NAME_RULE}) of --cwd's repository` },
        ...WORKTREE_OPTIONS,
      },
      params: (argv) => ({
        cwd: path.resolve(str(argv, 'cwd') ?? process.cwd()),
        label: argv.label,
        focus: argv.focus,
        ...worktreeParams(str(argv, 'worktree'), argv as { branch?: string; base?: string; keepGoing?: boolean }),
      }),
      output: RESULT,
    },
    { command: 'list', describe: 'List workspaces', method: 'workspace.list', params: () => ({}), output: RESULT },
    byIdVerbs('workspace', 'workspace_id', 'workspace id, e.g. w1'),
  ),
};

const TAB: VerbGroup = {
  command: 'tab',
  describe: 'Tabs: create, list, get, focus, rename, close (JSON output)',
  verbs: withIdVerbs(
    {
      command: 'create',
      describe: 'Create a tab with one pane; prints .result.{tab,root_pane}',
      method: 'tab.create',
      options: {
        workspace: { type: 'string', describe: 'workspace id (default: the focused one)' },
        label: { type: 'string', describe: 'label shown in the tab bar' },
        cwd: { type: 'string', describe: 'working directory of the new pane' },
        focus: focusOption,
      },
      params: (argv) => ({ workspace: argv.workspace, label: argv.label, cwd: absoluteCwd(str(argv, 'cwd')), focus: argv.focus }),
      output: RESULT,
    },
    {
      command: 'list',
      describe: 'List tabs',
      method: 'tab.list',
      options: { workspace: { type: 'string', describe: 'only tabs of this workspace' } },
      params: (argv) => ({ workspace: argv.workspace }),
      output: RESULT,
    },
    byIdVerbs('tab', 'tab_id', 'tab id, e.g. w1:t2'),
  ),
};

// ---------------------------------------------------------------------------
// pane: wherever a `<pane>` goes, `--current` means the calling pane ($CORRAL_PANE_ID); the
// pane slot is then left out, so positionals are optional here and checked in paneAndArgs.

/** `[pane]` plus `--current`, shared by every verb that acts on one pane. */
const PANE_POSITIONAL = { pane: { type: 'string', describe: 'pane id, e.g. w1:p2 (or --current)' } } as const;
const CURRENT_OPTION = { current: { type: 'boolean', default: false, describe: 'the calling pane ($CORRAL_PANE_ID)' } } as const;

/** `pane get|focus|close|zoom [pane]`: one pane in, one call out. */
function byPane(verb: string, describe: string): CallVerb {
  return {
    command: `${verb} [pane]`,
    describe,
    method: `pane.${verb}`,
    positionals: PANE_POSITIONAL,
    options: CURRENT_OPTION,
    params: (argv) => ({ pane_id: pane(argv) }),
    output: RESULT,
  };
}

/** `pane <verb> [pane] [<arg>]`: the pane and exactly one more argument. */
function paneWithArg(verb: string, arg: string, argDescribe: string, describe: string, param: string): CallVerb {
  return {
    command: `${verb} [pane] [${arg}]`,
    describe,
    method: `pane.${verb.replace('-', '_')}`,
    positionals: { ...PANE_POSITIONAL, [arg]: { type: 'string', describe: argDescribe } },
    options: CURRENT_OPTION,
    params: (argv) => {
      const { pane: paneId, args } = paneAnd(argv, [arg]);
      const [value] = expectArgs(args, [arg]);
      return { pane_id: paneId, [param]: value };
    },
    output: RESULT,
  };
}

const SOURCE_OPTION = {
  choices: READ_SOURCES,
  describe: 'visible screen, recent rows incl. scrollback, recent with soft wraps joined, or what detection reads',
} as const;

const PANE: VerbGroup = {
  command: 'pane',
  describe: 'Panes: split, move, list, get, read, run, send-text, send-keys, wait-output, … (JSON output)',
  verbs: [
    {
      command: 'split [pane]',
      describe: 'Split a pane; prints the new pane as .result.pane',
      method: 'pane.split',
      positionals: PANE_POSITIONAL,
      options: {
        ...CURRENT_OPTION,
        direction: { choices: ['right', 'down'], demandOption: true, describe: 'where the new pane goes' },
        ratio: numberOption('ratio', BOUNDS.splitRatio, 'share of the space the existing pane keeps (0.05..0.95)'),
        cwd: { type: 'string', describe: 'working directory of the new pane' },
        focus: focusOption,
      },
      params: (argv) => ({ pane_id: pane(argv), direction: argv.direction, ratio: argv.ratio, cwd: absoluteCwd(str(argv, 'cwd')), focus: argv.focus }),
      output: RESULT,
    },
    {
      command: 'move [pane]',
      describe: 'Move a pane to another tab or workspace; prints .result.move_result',
      method: 'pane.move',
      positionals: PANE_POSITIONAL,
      options: {
        ...CURRENT_OPTION,
        workspace: { type: 'string', describe: 'destination workspace id' },
        tab: { type: 'string', describe: 'destination tab id' },
        'new-tab': { type: 'boolean', describe: 'into a new tab' },
        'new-workspace': { type: 'boolean', describe: 'into a new workspace' },
      },
      params: (argv) => ({ pane_id: pane(argv), workspace: argv.workspace, tab: argv.tab, new_tab: argv.newTab, new_workspace: argv.newWorkspace }),
      output: RESULT,
    },
    {
      command: 'list',
      describe: 'List panes',
      method: 'pane.list',
      options: {
        workspace: { type: 'string', describe: 'only panes of this workspace' },
        tab: { type: 'string', describe: 'only panes of this tab' },
      },
      params: (argv) => ({ workspace: argv.workspace, tab: argv.tab }),
      output: RESULT,
    },
    byPane('get', 'Show one pane (an old id of a moved pane answers with the new one)'),
    {
      command: 'current',
      describe: 'Show the calling pane ($CORRAL_PANE_ID)',
      method: 'pane.current',
      params: () => ({ pane_id: currentPaneId() }),
      output: RESULT,
    },
    byPane('focus', 'Focus a pane'),
    paneWithArg('rename', 'name', 'new name', 'Name a pane (an empty name clears it)', 'name'),
    byPane('close', 'Close a pane and end its process'),
    byPane('zoom', 'Toggle zoom: the pane fills its tab'),
    {
      command: 'resize [pane]',
      describe: 'Move the edge of a pane',
      method: 'pane.resize',
      positionals: PANE_POSITIONAL,
      options: {
        ...CURRENT_OPTION,
        direction: { choices: ['left', 'right', 'up', 'down'], demandOption: true, describe: 'edge to move' },
        amount: numberOption('amount', BOUNDS.resizeAmount, 'cells to move it by (default 5)'),
      },
      params: (argv) => ({ pane_id: pane(argv), direction: argv.direction, amount: argv.amount }),
      output: RESULT,
    },
    paneWithArg('swap', 'other', 'the pane to swap with', 'Swap two panes in the layout', 'other_pane_id'),
    {
      command: 'read [pane]',
      describe: 'Print a pane\'s text (plain text, not JSON)',
      method: 'pane.read',
      positionals: PANE_POSITIONAL,
      options: {
        ...CURRENT_OPTION,
        source: { ...SOURCE_OPTION, default: 'recent' },
        lines: linesOption('last N rows, 1..10000 (recent: default 80; visible/detection: whole snapshot)'),
        format: { choices: ['text', 'ansi'], describe: 'ansi keeps escape sequences (default text)' },
        ansi: { type: 'boolean', describe: 'same as --format ansi' },
      },
      params: (argv) => ({ pane_id: pane(argv), source: argv.source, lines: argv.lines, format: argv.ansi ? 'ansi' : argv.format }),
      output: { kind: 'text', pick: (result: PaneReadResult) => result.read.text },
    },
    paneWithArg('run', 'command', 'shell command line', 'Type a command line into a pane and press Enter (needs the scripting gate)', 'command'),
    paneWithArg('send-text', 'text', 'text to type; after -- if it starts with -', 'Type text into a pane without pressing Enter', 'text'),
    {
      command: 'send-keys [pane] [keys..]',
      describe: 'Press keys in a pane, e.g. enter, esc, ctrl+c (needs the scripting gate)',
      method: 'pane.send_keys',
      positionals: { ...PANE_POSITIONAL, keys: { type: 'string', array: true, describe: `key names: ${KEY_NAMES}` } },
      options: CURRENT_OPTION,
      params: (argv) => {
        const { pane: paneId, args } = paneAnd(argv, ['keys']);
        if (args.length === 0) throw new UsageError('missing <keys..>');
        return { pane_id: paneId, keys: args };
      },
      output: RESULT,
    },
    {
      command: 'wait-output [pane]',
      describe: 'Wait until a pane\'s text matches; text already there counts. Prints .result.{matched_line,read}',
      method: 'pane.wait_for_output',
      positionals: PANE_POSITIONAL,
      options: {
        ...CURRENT_OPTION,
        match: { type: 'string', describe: 'substring to wait for' },
        regex: { type: 'string', describe: `regular expression to wait for, matched line by line (${PANE_REGEX_SYNTAX})` },
        source: { ...SOURCE_OPTION, describe: 'snapshot to search (default recent)' },
        lines: linesOption('rows to search, 1..10000 (default 80)'),
        timeout: timeoutMsOption('give up after this many MILLISECONDS (exit 4); default: no timeout, waits forever'),
      },
      conflicts: [['match', 'regex']],
      params: (argv) => {
        const paneId = pane(argv);
        if (argv.match === undefined && argv.regex === undefined) throw new UsageError('wait-output needs --match TEXT or --regex RE');
        return {
          pane_id: paneId,
          source: argv.source,
          lines: argv.lines,
          match: argv.regex !== undefined ? { type: 'regex', value: argv.regex } : { type: 'substring', value: argv.match },
          timeout_ms: argv.timeout,
        };
      },
      output: RESULT,
    },
  ],
};

// ---------------------------------------------------------------------------
// Conductor pane verbs (SPEC §6, §8): `<target>` is a selector; text out, or `--json`.

/** Key names from the positionals and after `--` (so `-` itself can be pressed). */
function keysArg(argv: VerbArgs): string[] {
  const all = [...(list(argv, 'keys') ?? []), ...afterDashes(argv)];
  if (all.length === 0) throw new UsageError('missing <keys..>');
  return all;
}

const TARGET = { target: targetPositional } as const;

const CONDUCTOR_VERBS: readonly CallVerb[] = [
  {
    command: 'read <target>',
    describe: 'Print a pane\'s scrollback, fenced as <untrusted_terminal_output> unless --raw',
    method: 'surface.read',
    positionals: TARGET,
    options: {
      lines: linesOption('last N lines, 1..10000 (default 200)'),
      raw: { type: 'boolean', default: false, describe: 'no injection fence (trusted human scripts only)' },
      json: jsonOption,
    },
    params: (argv) => ({ target: argv.target, lines: argv.lines, raw: argv.raw }),
    output: { kind: 'human', format: (result: SurfaceReadResult) => result.text },
  },
  {
    command: 'search <target> [pattern]',
    describe: 'Find lines in a pane\'s scrollback',
    method: 'surface.search',
    positionals: { ...TARGET, pattern: { type: 'string', describe: 'substring (or regex with --regex); after -- if it starts with -' } },
    options: {
      regex: { type: 'boolean', default: false, describe: `treat the pattern as a regular expression, matched line by line (${PANE_REGEX_SYNTAX})` },
      max: numberOption('max', BOUNDS.maxMatches, 'stop after N matches, 1..10000 (default 50)'),
      json: jsonOption,
    },
    params: (argv) => ({ target: argv.target, pattern: textArg(argv, str(argv, 'pattern'), 'pattern'), regex: argv.regex, max_matches: argv.max }),
    output: { kind: 'human', format: (result: SurfaceSearchResult) => formatSearch(result) },
  },
  {
    command: 'send <target> [text]',
    describe: 'Type text into a pane; --submit also presses Enter (needs the scripting gate)',
    method: 'surface.send_text',
    positionals: { ...TARGET, text: { type: 'string', describe: 'text to type; after -- if it starts with -' } },
    options: {
      submit: { type: 'boolean', default: false, describe: 'press Enter after the text' },
      all: { type: 'boolean', default: false, describe: 'send to every pane the selector matches' },
      json: jsonOption,
    },
    params: (argv) => ({ target: argv.target, text: textArg(argv, str(argv, 'text'), 'text'), submit: argv.submit, all: argv.all }),
    output: { kind: 'human', format: (result: SurfaceSendTextResult) => formatSent(result) },
  },
  {
    command: 'key <target> [keys..]',
    describe: 'Press keys in a pane, e.g. enter, esc, ctrl+c (needs the scripting gate)',
    method: 'surface.send_keys',
    positionals: { ...TARGET, keys: { type: 'string', array: true, describe: `key names: ${KEY_NAMES}` } },
    options: { json: jsonOption },
    params: (argv) => ({ target: argv.target, keys: keysArg(argv) }),
    output: {
      kind: 'human',
      format: (_result: { sent: boolean }, argv) => {
        const count = keysArg(argv).length;
        return `sent ${count} key${count === 1 ? '' : 's'}`;
      },
    },
  },
  {
    command: 'focus <target>',
    describe: 'Focus a pane (and mark a finished agent there as seen)',
    method: 'surface.focus',
    positionals: TARGET,
    options: { json: jsonOption },
    params: (argv) => ({ target: argv.target }),
    output: { kind: 'human', format: (result: SurfaceFocusResult) => formatFocused(result) },
  },
];

/** The verb groups whose sub-verbs are all one call. */
export const CALL_GROUPS = { workspace: WORKSPACE, tab: TAB, pane: PANE } as const;

/** The Conductor verbs, by verb. */
export const CONDUCTOR = Object.fromEntries(CONDUCTOR_VERBS.map((verb) => [verb.command.split(' ')[0]!, verb])) as Readonly<
  Record<'read' | 'search' | 'send' | 'key' | 'focus', CallVerb>
>;
