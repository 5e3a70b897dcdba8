/**
 * The `corral` command line (SPEC §6). Client verbs are one request over the socket; the
 * server and the TUI are loaded through heavy.ts only when run (separate ESM chunks).
 * Startup time matters (`corral ps` runs in agent loops): import nothing heavy here.
 */
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { VERSION } from '../version.js';
import { lsCommand, psCommand, statusCommand } from './commands/fleet.js';
import { hookCommand } from './commands/hook.js';
import { hooksCommand } from './commands/hooks.js';
import { agentCommand } from './commands/agent.js';
import { attachCommand, serverCommand, tuiCommand } from './commands/server.js';
import { detachCommand, killServerCommand, sessionsCommand } from './commands/clients.js';
import { waitCommand } from './commands/wait.js';
import { watchCommand } from './commands/watch.js';
import { upCommand } from './commands/up.js';
import { flowCommand } from './commands/flow.js';
import { bridgeCommand, machineCommand } from './commands/machine.js';
import { worktreeCommand } from './commands/worktree.js';
import { webCommand } from './commands/web.js';
import { mcpCommand } from './commands/mcp.js';
import { completionCommand } from './commands/completion.js';
import { doctorCommand } from './commands/doctor.js';
import { EXIT } from '../contract/protocol.js';
import { humanText, UsageError } from './output.js';
import { reportError, type GlobalArgs } from './run.js';
import { commandOf, groupOf } from './verb-table.js';
import { CALL_GROUPS, CONDUCTOR } from './verbs.js';
import type { CommandModule } from 'yargs';

/** Widest help text, so `--help` stays readable on wide terminals. */
const MAX_HELP_WIDTH = 100;

/**
 * Every verb, in the order `corral --help` lists them: the one-call verbs come from the table
 * in verbs.ts, the rest from their own modules in commands/.
 */
const VERBS: readonly CommandModule<GlobalArgs, any>[] = [
  tuiCommand,
  serverCommand,
  attachCommand,
  detachCommand,
  killServerCommand,
  sessionsCommand,
  groupOf(CALL_GROUPS.workspace),
  groupOf(CALL_GROUPS.tab),
  groupOf(CALL_GROUPS.pane),
  agentCommand,
  worktreeCommand,
  psCommand,
  lsCommand,
  statusCommand,
  commandOf(CONDUCTOR.read),
  commandOf(CONDUCTOR.search),
  commandOf(CONDUCTOR.send),
  commandOf(CONDUCTOR.key),
  commandOf(CONDUCTOR.focus),
  watchCommand,
  waitCommand,
  upCommand,
  flowCommand,
  hookCommand,
  hooksCommand,
  machineCommand,
  bridgeCommand,
  webCommand,
  mcpCommand,
  completionCommand(buildCli),
  doctorCommand,
];

/** Builds the yargs parser for `args` (without node and script). */
export function buildCli(args: readonly string[]): Argv {
  const cli = yargs([...args])
    .scriptName('corral')
    .usage(
      [
        'corral — a terminal multiplexer for coding agents',
        '',
        '  corral                  open the full-screen multiplexer (attach; start the server if none)',
        '  corral attach           attach to a running server; ctrl+b d detaches, panes keep running',
        '  corral server           run the server without a UI',
        '  corral <verb> [args]    talk to the running server',
        '',
        'Herdr-style verbs (workspace, tab, pane) print {"result":…} as JSON; the others print',
        'text, or the bare result with --json. Errors: {"error":{"code","message"}} on stderr.',
        'Exit codes: 0 ok, 1 error, 2 usage, 3 target not found/ambiguous, 4 timeout.',
      ].join('\n'),
    )
    // Arguments after `--` land in argv['--']; verbs taking text read them (text starting with -).
    // Untyped values stay text: numeric flags parse theirs strictly (numbers.ts).
    .parserConfiguration({ 'populate--': true, 'parse-numbers': false })
    .option('socket', { type: 'string', global: true, describe: 'server socket path (default: $CORRAL_SOCKET, else per session)' })
    .option('session', { type: 'string', global: true, describe: 'session name (default: $CORRAL_SESSION or "default")' })
    .option('machine', { type: 'string', global: true, describe: 'run the verb against a saved machine (docs/machines.md); NAME/… selectors do the same' });
  for (const verb of VERBS) cli.command(verb);
  return cli
    .strict()
    .recommendCommands()
    .help()
    .alias('help', 'h')
    .version(VERSION)
    .wrap(Math.min(MAX_HELP_WIDTH, process.stdout.columns || MAX_HELP_WIDTH))
    .fail((message, error) => onFail(message, error, cli));
}

/** Thrown out of yargs once an error has been reported, so no handler runs after a usage error. */
class Reported extends Error {}

/** yargs calls this for usage errors (message set) and for errors thrown while parsing. */
function onFail(message: string | undefined, error: Error | undefined, y: Argv): never {
  if (error instanceof Reported) throw error;
  if (!message && error) {
    reportError(error);
    throw new Reported();
  }
  const context = commandPath(y);
  process.stderr.write(`corral: ${humanText(message ?? error?.message ?? 'invalid usage')}\n`);
  process.stderr.write(`Run 'corral${context ? ` ${context}` : ''} --help' for usage.\n`);
  process.exitCode = EXIT.usage;
  throw new Reported();
}

/**
 * The verb being parsed when a usage error hit (e.g. `pane split`), for the help hint. Reads
 * yargs' internal parse context (what fail's third argument is in yargs 18 is not the instance).
 */
function commandPath(y: Argv): string {
  const internal = y as unknown as { getInternalMethods?: () => { getContext?: () => { commands?: unknown } } };
  const commands = internal.getInternalMethods?.().getContext?.().commands;
  return Array.isArray(commands) ? commands.filter((c) => typeof c === 'string').join(' ') : '';
}

/** Option-shaped tokens yargs parses: `-x`, `-abc`, `--name`, `--name=any value`. */
const OPTION_TOKEN = /^--?[A-Za-z][\w.-]*(=[\s\S]*)?$/;

/**
 * An argument before `--` that starts with `-` but is neither an option nor a number (say a
 * prompt "- fix the tests") is silently taken apart by yargs; refuse it and say what to do.
 */
export function checkDashArguments(args: readonly string[]): void {
  for (const arg of args) {
    if (arg === '--') return;
    if (arg.length > 1 && arg.startsWith('-') && !OPTION_TOKEN.test(arg) && !/^-\d/.test(arg)) {
      throw new UsageError(
        `argument ${JSON.stringify(arg)} starts with "-": put it after -- (corral send <target> -- ${JSON.stringify(arg)}) or attach it to its option (--pattern=${JSON.stringify(arg)})`,
      );
    }
  }
}

/** Runs the CLI; the exit code is left in process.exitCode so pending output drains. */
export async function main(args: readonly string[] = hideBin(process.argv)): Promise<void> {
  try {
    checkDashArguments(args);
    await buildCli(args).parseAsync();
  } catch (error) {
    if (!(error instanceof Reported)) reportError(error);
  }
}
