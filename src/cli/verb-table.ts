/**
 * The shape of a CLI verb that is one RPC call (SPEC §6): which method it calls, its
 * positionals and flags, how the method's params come from them, and how the result prints.
 * Verbs are data in src/cli/verbs.ts, like the TUI's commands in src/config/keybindings.ts;
 * `commandOf` turns an entry into the yargs command, so every such verb connects, calls,
 * prints and maps errors to exit codes the same way (run.ts).
 */
import type { Argv, CommandModule, Options, PositionalOptions } from 'yargs';
import { conductorCall, herdrCall, textCall, type GlobalArgs } from './run.js';

/** What a verb's handler reads: the parsed command line, by option name (camelCase too). */
export type VerbArgs = GlobalArgs & { readonly [name: string]: unknown };

/**
 * How a result prints: `result` is herdr's `{"result":…}`; `text` prints what `pick` takes
 * from the result as plain text (`pane read`); `human` prints text, or the bare result as
 * JSON with `--json` (Conductor verbs).
 */
export type VerbOutput =
  | { kind: 'result' }
  | { kind: 'text'; pick: (result: never) => string }
  | { kind: 'human'; format: (result: never, argv: VerbArgs) => string };

/** One verb that is one call. */
export interface CallVerb {
  /** The yargs command: the verb's word and its positionals (`rename <id> <label>`). */
  command: string;
  describe: string;
  /** The RPC method (SPEC §5). */
  method: string;
  /** Positionals, in the order `command` names them. */
  positionals?: Readonly<Record<string, PositionalOptions>>;
  /** Flags, in the order `--help` lists them. */
  options?: Readonly<Record<string, Options>>;
  /** Flags that exclude each other. */
  conflicts?: readonly (readonly [string, string])[];
  /** The method's params; a UsageError here is reported before any connection is made. */
  params: (argv: VerbArgs) => Record<string, unknown>;
  output: VerbOutput;
}

/** A verb with sub-verbs (`tab create`, `pane split`): each sub-verb is a CallVerb. */
export interface VerbGroup {
  command: string;
  describe: string;
  verbs: readonly CallVerb[];
}

/** Adds a verb's positionals, flags and conflicts to its yargs builder. */
function declare(y: Argv<GlobalArgs>, verb: CallVerb): Argv<GlobalArgs> {
  let built = y;
  for (const [name, spec] of Object.entries(verb.positionals ?? {})) built = built.positional(name, spec);
  for (const [name, spec] of Object.entries(verb.options ?? {})) built = built.option(name, spec);
  for (const [a, b] of verb.conflicts ?? []) built = built.conflicts(a, b);
  return built;
}

/** Runs one verb: build params, call, print as its output says. */
function run(verb: CallVerb, argv: VerbArgs): Promise<void> {
  const params = () => verb.params(argv);
  const { output } = verb;
  // The table is data about many methods at once, so one entry's params and result cannot be
  // tied to its method's types here; the server checks params, and the table's unit test
  // (test/unit/cli-verbs.test.ts) holds each entry to its method.
  const method = verb.method as never;
  switch (output.kind) {
    case 'result':
      return herdrCall(argv, method, params as never);
    case 'text':
      return textCall(argv, method, params as never, output.pick as never);
    case 'human':
      return conductorCall(argv, method, params as never, ((result: unknown) => output.format(result as never, argv)) as never);
  }
}

/** The yargs command of one verb. */
export function commandOf(verb: CallVerb): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: verb.command,
    describe: verb.describe,
    builder: (y) => declare(y, verb),
    handler: (argv) => run(verb, argv as VerbArgs),
  };
}

/** The yargs command of a verb group: its sub-verbs in table order, one of them required. */
export function groupOf(group: VerbGroup): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: group.command,
    describe: group.describe,
    builder: (y) => {
      let built = y;
      for (const verb of group.verbs) built = built.command(commandOf(verb));
      return built.demandCommand(1, `${group.command} needs a subcommand`);
    },
    handler: () => {},
  };
}
