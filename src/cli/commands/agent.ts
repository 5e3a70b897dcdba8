/**
 * `corral agent …`: herdr-style agent verbs (SPEC §5, §6). Each prints `{"result":…}` except
 * `agent read`, which prints text, and `agent explain`, which prints the explanation.
 * Timeouts are in MILLISECONDS, as in the herdr reference.
 */
import type { Argv } from 'yargs';
import { READ_SOURCES } from '../../contract/protocol.js';
import { BOUNDS } from '../../contract/bounds.js';
import { AGENT_KINDS } from '../../agents/kinds.js';
import { humanText, UsageError } from '../output.js';
import { linesOption, numberOption, timeoutMsOption } from '../numbers.js';
import { KEY_NAMES } from '../options.js';
import { afterDashes, conductorCall, currentPaneId, defineCommand, herdrCall, socketPathOf, textCall, type GlobalArgs } from '../run.js';
import { WORKTREE_OPTIONS, worktreeParams } from '../options.js';
import { mcpLaunch, mcpRunArgs } from '../mcp-config.js';
import { formatUsage } from '../conductor-format.js';
import { confirm, diffOptions, formatDiff, formatMerge, mergeOptions, mergeParams, printCall } from './worktree.js';
import type { AgentCheckpointsResult, RewindResult } from '../../contract/checkpoints.js';
import { visibleControls } from '../../terminal/control-chars.js';
import { cell, formatTable } from '../output.js';
import { jsonOption } from '../options.js';
import { out, reportError, withClient } from '../run.js';

/** A checkpoint id or a turn number (SPEC §20). */
const CHECKPOINT_NUMBER = { min: 1, max: Number.MAX_SAFE_INTEGER, integer: true } as const;

const STATUSES = ['idle', 'working', 'blocked', 'done', 'unknown', 'errored', 'stalled'] as const;

/** `<target>` or `--current`: an agent name or the id of the pane hosting the agent. */
function withTarget<T>(y: Argv<T>) {
  return y
    .positional('target', { type: 'string', describe: 'agent name, or the pane id hosting the agent (w1:p2)' })
    .option('current', { type: 'boolean', describe: 'the agent in the calling pane ($CORRAL_PANE_ID)' });
}

function target(argv: { target?: string; current?: boolean }): string {
  if (argv.current) {
    if (argv.target !== undefined) throw new UsageError('give either a target or --current, not both');
    return currentPaneId();
  }
  if (!argv.target) throw new UsageError('missing <target>: an agent name or a pane id');
  return argv.target;
}

/** `agent wait` and `agent prompt --wait` have no default timeout (herdr: waits may be indefinite). */
const timeoutOption = timeoutMsOption('give up after this many MILLISECONDS (exit 4); default: no timeout, waits forever');
const untilOption = {
  choices: STATUSES,
  array: true,
  describe: 'status to wait for; repeat for several (default: idle, done, blocked; unknown only when named)',
} as const;

/**
 * How the agent of `agent start --mcp` runs `corral mcp`: against this very server's socket,
 * named outright, since some agents (Codex) start MCP servers without the pane's environment.
 * A pane on another machine would get this host's paths: refused.
 */
function mcpRunLaunch(argv: GlobalArgs, pane: string) {
  if ((argv.machine !== undefined && argv.machine !== '') || pane.includes('/')) {
    throw new UsageError('--mcp registers this host\u2019s corral; for an agent on another machine run `corral mcp config KIND --write` on that machine');
  }
  return mcpLaunch({ socket: socketPathOf(argv) });
}

const start = defineCommand({
  command: 'start [name]',
  describe:
    'Start an agent in a shell pane at its prompt; returns once it is detected and ready. --worktree gives it a git worktree of its own name first. Args after -- go to the agent (with --kind generic they are the command, program first)',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'agent name, [a-z][a-z0-9_-]{0,31} (optional)' })
      .option('kind', { type: 'string', demandOption: true, describe: `which agent: ${AGENT_KINDS.join(', ')}; or generic, for a CLI corral has no rules for, with its command after -- (needs the scripting gate)` })
      .option('pane', { type: 'string', describe: 'pane id of a shell at its prompt' })
      .option('current', { type: 'boolean', describe: 'the calling pane' })
      .option(
        'timeout',
        numberOption('timeout', BOUNDS.agentStartTimeoutMs, 'MILLISECONDS to wait for readiness: >3000, ≤300000 (default 30000)', 'milliseconds'),
      )
      .option('worktree', { type: 'boolean', describe: 'first make a git worktree named after the agent in the pane’s repository (branch corral/NAME) and start it there' })
      .option('mcp', { type: 'boolean', describe: 'register `corral mcp` with the agent for this run only (claude: --mcp-config, codex: -c mcp_servers.corral.*; see docs/mcp.md)' })
      .options(WORKTREE_OPTIONS),
  handler: (argv) =>
    herdrCall(argv, 'agent.start', () => {
      const pane = argv.current ? currentPaneId() : argv.pane;
      if (!pane) throw new UsageError('agent start needs --pane <pane> or --current');
      if (argv.worktree && !argv.name) throw new UsageError('agent start --worktree needs the agent’s NAME: the worktree is named after it');
      return {
        name: argv.name,
        kind: argv.kind,
        pane_id: pane,
        args: argv.mcp ? [...mcpRunArgs(argv.kind, mcpRunLaunch(argv, pane)), ...afterDashes(argv)] : afterDashes(argv),
        timeout_ms: argv.timeout,
        ...worktreeParams(argv.worktree ? argv.name : undefined, argv),
      };
    }),
});

const diff = defineCommand({
  command: 'diff [target]',
  describe: 'What the agent changed in its worktree against the base, or with --turn what one of its turns changed (text; --stat, --name-only, --json)',
  builder: (y) =>
    diffOptions(withTarget(y)).option('turn', {
      ...numberOption('turn', CHECKPOINT_NUMBER, 'what turn T changed: from its checkpoint to the next one, or to the files now for the current turn (agent checkpoints lists them)', 'turn'),
    }),
  handler: (argv) =>
    printCall(
      argv,
      'agent.diff',
      () => ({ target: target(argv), patch: !(argv.stat || argv.nameOnly) || argv.json === true, ...(argv.turn !== undefined ? { turn: argv.turn } : {}) }),
      (r) => formatDiff(r, { stat: argv.stat, nameOnly: argv.nameOnly, statCommand: `corral agent diff ${target(argv)}${argv.turn !== undefined ? ` --turn ${argv.turn}` : ''} --stat` }),
    ),
});

/** `agent checkpoints` as a table: id, turn, when, why, cost, prompt. */
function formatCheckpoints(result: AgentCheckpointsResult): string {
  if (result.checkout === null) return `agent ${visibleControls(result.agent)} works in no git repository: no checkpoints\n`;
  if (result.checkpoints.length === 0) return `agent ${visibleControls(result.agent)} has no checkpoints in ${visibleControls(result.checkout)} yet\n`;
  return formatTable(
    ['ID', 'TURN', 'AT', 'REASON', 'MS', 'PROMPT'],
    result.checkpoints.map((c) => [String(c.id), String(c.turn), c.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), c.late ? `${c.reason} (late)` : c.reason, String(c.ms), cell(c.prompt)]),
  );
}

const checkpoints = defineCommand({
  command: 'checkpoints [target]',
  describe: "The agent's checkpoints: the files just before each of its turns (refs/corral/checkpoints/AGENT/ID), oldest first",
  builder: (y) => withTarget(y).option('json', { ...jsonOption, describe: 'print {agent, checkout, checkpoints:[{id, turn, at, prompt, commit, reason, ms}]} as JSON' }),
  handler: (argv) => printCall(argv, 'agent.checkpoints', () => ({ target: target(argv) }), formatCheckpoints),
});

const rewind = defineCommand({
  command: 'rewind [target]',
  describe: "Put the agent's files back as checkpoint ID had them (a checkpoint of them as they are is taken first, so it can be undone); asks first unless --yes; needs the scripting gate",
  builder: (y) =>
    withTarget(y)
      .option('to', { ...numberOption('to', CHECKPOINT_NUMBER, 'the checkpoint id (agent checkpoints lists them)', 'id'), demandOption: true })
      .option('yes', { type: 'boolean', alias: 'y', describe: 'do not ask' })
      .option('json', jsonOption),
  handler: async (argv) => {
    const agent = target(argv);
    if (!argv.yes) {
      if (!process.stdin.isTTY) return reportError(new UsageError('agent rewind asks before it changes files: run it on a terminal, or pass --yes'));
      let proceed = false;
      await withClient(argv, async (client) => {
        const found = (await client.call('agent.checkpoints', { target: agent })).checkpoints.find((c) => c.id === argv.to);
        const what = found ? ` (turn ${found.turn}, ${found.at}${found.prompt ? `: "${visibleControls(found.prompt)}"` : ''})` : ' (no such checkpoint)';
        proceed = await confirm(`Put the files of agent ${visibleControls(agent)} back to checkpoint ${argv.to}${what}? The files as they are now are checkpointed first.`);
      });
      if (process.exitCode) return;
      if (!proceed) return out('not rewound\n');
    }
    await printCall(argv, 'agent.rewind', () => ({ target: agent, to: argv.to }), formatRewind);
  },
});

function formatRewind(result: RewindResult): string {
  const files = result.files.length === 0 ? 'no file changed' : `${result.files.length} file${result.files.length === 1 ? '' : 's'} put back`;
  return `${visibleControls(result.agent)} rewound to checkpoint ${result.rewound_to}: ${files}; undo with: corral agent rewind ${visibleControls(result.agent)} --to ${result.checkpoint.id}\n`;
}

const merge = defineCommand({
  command: 'merge [target]',
  describe: "Commit the agent's uncommitted work and merge its worktree's branch into the main checkout's branch (from inside a pane this needs the scripting gate)",
  builder: (y) => mergeOptions(withTarget(y)),
  handler: (argv) => printCall(argv, 'agent.merge', () => ({ target: target(argv), ...mergeParams(argv) }), formatMerge),
});

const list = defineCommand({
  command: 'list',
  describe: 'List live agents; prints .result.agents',
  builder: (y) =>
    y
      .option('workspace', { type: 'string', describe: 'only agents in this workspace (id, e.g. w1)' })
      .option('tab', { type: 'string', describe: 'only agents in this tab (id, e.g. w1:t2)' }),
  handler: (argv) => herdrCall(argv, 'agent.list', () => ({ workspace: argv.workspace, tab: argv.tab })),
});

/** `agent get|focus|release|explain <target>`. */
function byTarget(verb: 'get' | 'focus' | 'release', describe: string) {
  return defineCommand({
    command: `${verb} [target]`,
    describe,
    builder: (y) => withTarget(y),
    handler: (argv) => herdrCall(argv, `agent.${verb}`, () => ({ target: target(argv) })),
  });
}

const explain = defineCommand({
  command: 'explain [target]',
  describe: 'Print the rule and the screen lines that decided the agent\u2019s status',
  builder: (y) => withTarget(y).option('json', { type: 'boolean', describe: 'print {"result":…} instead' }),
  handler: (argv) =>
    argv.json
      ? herdrCall(argv, 'agent.explain', () => ({ target: target(argv) }))
      : textCall(argv, 'agent.explain', () => ({ target: target(argv) }), (r) => humanText(r.explanation)),
});

const rename = defineCommand({
  command: 'rename <target> <name>',
  describe:
    'Give the agent a name other commands accept as its target; cleared when the agent exits or is replaced (the pane keeps its own name). `agent release` clears it',
  builder: (y) =>
    y
      .positional('target', { type: 'string', demandOption: true, describe: 'agent name, or the pane id hosting the agent (w1:p2)' })
      .positional('name', { type: 'string', demandOption: true, describe: 'new name: [a-z][a-z0-9_-]{0,31}, unique among live agents' }),
  handler: (argv) => herdrCall(argv, 'agent.rename', () => ({ target: argv.target, name: argv.name })),
});

const prompt = defineCommand({
  command: 'prompt [target] [text]',
  describe:
    'Submit a prompt (text, then Enter); --wait waits for activity, then for --until (needs the scripting gate). No default timeout: without --timeout, --wait waits forever',
  builder: (y) =>
    withTarget(y)
      .positional('text', { type: 'string', describe: 'the prompt; after -- if it starts with -' })
      .option('wait', { type: 'boolean', describe: 'wait for activity, then for --until' })
      .option('until', untilOption)
      .option('timeout', timeoutOption)
      .option('max-tokens', numberOption('max-tokens', BOUNDS.budgetTokens, "this turn's token budget: crossing it presses the agent's interrupt keys, and --wait fails budget_exceeded (exit 1)")),
  handler: (argv) =>
    herdrCall(argv, 'agent.prompt', () => {
      const positional = argv.current && argv.target !== undefined ? [argv.target] : argv.text !== undefined ? [argv.text] : [];
      const text = [...positional, ...afterDashes(argv)].join(' ');
      if (text === '') throw new UsageError('missing <text>');
      if (argv.until && !argv.wait) throw new UsageError('--until needs --wait');
      const tgt = argv.current ? currentPaneId() : argv.target;
      if (!tgt) throw new UsageError('missing <target>');
      return { target: tgt, text, wait: argv.wait ?? false, until: argv.until, timeout_ms: argv.timeout, max_tokens: argv['max-tokens'] };
    }),
});

const usage = defineCommand({
  command: 'usage [target]',
  describe: 'What the agent spent, per turn, from its own session record (a table; --json prints {"result":…})',
  builder: (y) => withTarget(y).option('json', { type: 'boolean', describe: 'print {"result":{total, turns, …}} instead' }),
  handler: (argv) => (argv.json ? herdrCall(argv, 'agent.usage', () => ({ target: target(argv) })) : textCall(argv, 'agent.usage', () => ({ target: target(argv) }), formatUsage)),
});

const budget = defineCommand({
  command: 'budget [target]',
  describe: "Set the agent's total token budget (--tokens N), or remove it (--clear); crossing it interrupts the agent. Raising or clearing one needs the scripting gate",
  builder: (y) =>
    withTarget(y)
      .option('tokens', numberOption('tokens', BOUNDS.budgetTokens, 'the most tokens the agent may have spent in all'))
      .option('clear', { type: 'boolean', describe: 'remove the budget' }),
  handler: (argv) =>
    herdrCall(argv, 'agent.budget', () => {
      if ((argv.tokens === undefined) === !argv.clear) throw new UsageError('give either --tokens N or --clear');
      return argv.clear ? { target: target(argv), clear: true } : { target: target(argv), tokens: argv.tokens };
    }),
});

const wait = defineCommand({
  command: 'wait [target]',
  describe:
    'Wait until the agent\u2019s status matches --until (returns at once if it already does). No default timeout: without --timeout it waits forever',
  builder: (y) => withTarget(y).option('until', untilOption).option('timeout', timeoutOption),
  handler: (argv) => herdrCall(argv, 'agent.wait', () => ({ target: target(argv), until: argv.until, timeout_ms: argv.timeout })),
});

const read = defineCommand({
  command: 'read [target]',
  describe: 'Print the agent\u2019s text; for an idle full-screen agent, --lines beyond the screen gathers its transcript; --answer prints what it answered',
  builder: (y) =>
    withTarget(y)
      .option('source', { choices: READ_SOURCES, default: 'recent' as const, describe: 'visible, recent, recent-unwrapped or detection' })
      .option('lines', linesOption('last N rows, 1..10000 (recent: default 80; beyond the screen gathers the transcript)'))
      .option('format', { choices: ['text', 'ansi'] as const, describe: 'text (default) strips escapes; ansi keeps colours and attributes (detection is always text)' })
      .option('ansi', { type: 'boolean', describe: 'same as --format ansi' })
      .option('answer', { type: 'boolean', describe: 'what the agent answered, without its UI: from its session record, else its screen (the agent must be idle)' })
      .option('turns', numberOption('turns', BOUNDS.answerTurns, 'with --answer: its last N answers, 1..20 (default 1), separated by blank lines'))
      .option('json', { type: 'boolean', describe: 'with --answer: print {"result":{"read":…}} with answer_source (session|screen|screen-generic) and each answer' }),
  handler: (argv) => {
    if (!argv.answer) {
      return textCall(
        argv,
        'agent.read',
        () => {
          if (argv.turns !== undefined || argv.json) throw new UsageError(`${argv.turns !== undefined ? '--turns' : '--json'} needs --answer`);
          return { target: target(argv), source: argv.source, lines: argv.lines, format: argv.ansi ? 'ansi' : argv.format };
        },
        (r) => r.read.text,
      );
    }
    const params = () => {
      if (argv.lines !== undefined || argv.format !== undefined || argv.ansi) throw new UsageError('--answer reads plain text: no --lines, --format or --ansi');
      return { target: target(argv), answer: true, turns: argv.turns };
    };
    // Plain: the answer alone on stdout (what `$(corral agent read x --answer)` takes), its
    // control characters made visible: a session record is written by a program in a pane.
    return argv.json ? herdrCall(argv, 'agent.read', params) : conductorCall(argv, 'agent.read', params, (r) => r.read.text);
  },
});

const sendKeys = defineCommand({
  command: 'send-keys [target] [keys..]',
  describe: 'Press keys in the agent, e.g. esc, up, enter, ctrl+c (needs the scripting gate)',
  builder: (y) => withTarget(y).positional('keys', { type: 'string', array: true, describe: `key names: ${KEY_NAMES}` }),
  handler: (argv) =>
    herdrCall(argv, 'agent.send_keys', () => {
      const keys = [...(argv.current && argv.target ? [argv.target] : []), ...(argv.keys ?? []), ...afterDashes(argv)];
      if (keys.length === 0) throw new UsageError('missing <keys..>');
      const tgt = argv.current ? currentPaneId() : argv.target;
      if (!tgt) throw new UsageError('missing <target>');
      return { target: tgt, keys };
    }),
});

/** The `agent` verb group. */
export const agentCommand = defineCommand({
  command: 'agent',
  describe: 'Agents: start, list, get, rename, prompt, usage, budget, wait, read, send-keys, focus, explain, diff, checkpoints, rewind, merge, release (JSON output; diff, checkpoints, rewind and merge print text)',
  builder: (y: Argv<GlobalArgs>) =>
    y
      .command(start)
      .command(list)
      .command(byTarget('get', 'Show the agent'))
      .command(rename)
      .command(prompt)
      .command(usage)
      .command(budget)
      .command(wait)
      .command(read)
      .command(sendKeys)
      .command(byTarget('focus', 'Focus the agent\u2019s pane (marks a finished agent seen)'))
      .command(explain)
      .command(diff)
      .command(checkpoints)
      .command(rewind)
      .command(merge)
      .command(byTarget('release', 'Clear the agent\u2019s name'))
      .demandCommand(1, 'agent needs a subcommand'),
  handler: () => {},
});
