/**
 * The shared body of every client verb: resolve the socket, connect, call, print, map errors
 * to exit codes. Verbs stay thin: they build params and pick a printer.
 */
import type { CommandModule } from 'yargs';
import { resolveSocketPath } from '../paths.js';
import { connect, type RpcClient } from '../rpc/client.js';
import type { MethodName, MethodParams, MethodResults } from '../contract/protocol.js';
import { asTextBlock, exitCodeForError, formatError, formatJsonLine, formatResult, humanText, UsageError, type ErrorContext } from './output.js';
import { endQuietlyOnClosedPipe } from './closed-pipe.js';

/** Options every verb accepts. */
export interface GlobalArgs {
  socket?: string;
  session?: string;
  /** `--machine NAME`: the verb runs against that saved machine (SPEC §14). */
  machine?: string;
}

/** The socket a verb talks to (SPEC §1). */
export function socketPathOf(argv: GlobalArgs, env: NodeJS.ProcessEnv = process.env): string {
  return resolveSocketPath({ socket: argv.socket, session: argv.session }, env);
}

/** `$CORRAL_PANE_ID`, the calling pane; a usage error outside a corral pane. */
export function currentPaneId(env: NodeJS.ProcessEnv = process.env): string {
  const id = env.CORRAL_PANE_ID;
  if (id === undefined || id === '') {
    throw new UsageError('--current needs CORRAL_PANE_ID, which is set only inside a corral pane');
  }
  return id;
}

/** The pane a verb acts on: the `<pane>` positional, or `--current` (exactly one of them). */
export function paneArg(argv: { pane?: string; current?: boolean }, env: NodeJS.ProcessEnv = process.env): string {
  if (argv.current) {
    if (argv.pane !== undefined) throw new UsageError('give either a pane or --current, not both');
    return currentPaneId(env);
  }
  if (argv.pane === undefined || argv.pane === '') throw new UsageError('missing pane: give a pane id or --current');
  return argv.pane;
}

/** Writes to stdout; a reader that went away ends the CLI quietly (closed-pipe.ts). */
export function out(text: string): void {
  if (text === '') return;
  endQuietlyOnClosedPipe();
  process.stdout.write(text);
}

/** Reports an error on stderr and sets the exit code; never throws. */
export function reportError(error: unknown, context: ErrorContext = {}): void {
  endQuietlyOnClosedPipe();
  if (error instanceof UsageError) {
    process.stderr.write(`corral: ${humanText(error.message)}\n`);
  } else {
    process.stderr.write(`${formatError(error)}\n`);
  }
  process.exitCode = exitCodeForError(error, context);
}

/** Connects, runs `body`, closes; any error is reported with its exit code. */
export async function withClient(argv: GlobalArgs, body: (client: RpcClient) => Promise<void>, context: ErrorContext = {}): Promise<void> {
  let client: RpcClient | undefined;
  try {
    const socketPath = socketPathOf(argv);
    client = await connect(socketPath);
    if (argv.machine !== undefined && argv.machine !== '') client.forMachine(argv.machine);
    await body(client);
  } catch (error) {
    reportError(error, context);
  } finally {
    client?.close();
  }
}

/** The call helpers below build every param from the command line. */
export const FROM_FLAGS: ErrorContext = { paramsFromFlags: true };

/** Builds params before connecting, so a usage mistake is reported as one, not as a missing server. */
function tryParams<P>(buildParams: () => P): P | undefined {
  try {
    return buildParams();
  } catch (error) {
    reportError(error);
    return undefined;
  }
}

/** Runs a herdr-style verb: one call, the whole response printed as `{"result":…}`. */
export async function herdrCall<M extends MethodName>(argv: GlobalArgs, method: M, buildParams: () => MethodParams[M]): Promise<void> {
  const params = tryParams(buildParams);
  if (params === undefined) return;
  await withClient(argv, async (client) => {
    out(`${formatResult(await client.call(method, params))}\n`);
  }, FROM_FLAGS);
}

/**
 * Runs a Conductor verb: one call, then `--json` prints the bare result, else `human(result)`,
 * its control characters made visible — unless `styled`: the formatter made the text from the
 * server visible itself and adds colours of its own (`worktree diff`).
 */
export async function conductorCall<M extends MethodName>(
  argv: GlobalArgs & { json?: boolean },
  method: M,
  buildParams: () => MethodParams[M],
  human: (result: MethodResults[M]) => string,
  opts: { styled?: boolean } = {},
): Promise<void> {
  const params = tryParams(buildParams);
  if (params === undefined) return;
  await withClient(argv, async (client) => {
    const result = await client.call(method, params);
    if (argv.json) return out(`${formatJsonLine(result)}\n`);
    // Only for people: the table of a 100-pane `ps` is not laid out for a script's --json.
    const text = human(result);
    out(asTextBlock(opts.styled ? text : humanText(text)));
  }, FROM_FLAGS);
}

/** Runs a verb that prints text (`pane read`): one call, then `pick(result)` as a text block. */
export async function textCall<M extends MethodName>(
  argv: GlobalArgs,
  method: M,
  buildParams: () => MethodParams[M],
  pick: (result: MethodResults[M]) => string,
): Promise<void> {
  const params = tryParams(buildParams);
  if (params === undefined) return;
  await withClient(argv, async (client) => {
    out(asTextBlock(pick(await client.call(method, params))));
  }, FROM_FLAGS);
}

/** Identity helper that lets TypeScript infer a command's argv type from its builder. */
export function defineCommand<U>(module: CommandModule<GlobalArgs, U>): CommandModule<GlobalArgs, U> {
  return module;
}

/** Arguments after `--` (yargs' populate-- puts them in `argv['--']`), as strings. */
export function afterDashes(argv: object): string[] {
  const rest: unknown = Reflect.get(argv, '--');
  return Array.isArray(rest) ? rest.map(String) : [];
}

/** A positional that may also come after `--` (text starting with `-`); a usage error if absent. */
export function textArg(argv: object, value: string | undefined, name: string): string {
  if (value !== undefined) return value;
  const rest = afterDashes(argv);
  if (rest.length === 0) throw new UsageError(`missing <${name}>`);
  return rest.join(' ');
}

/**
 * Splits a verb's positionals into the pane and the rest (then anything after `--`). Verbs
 * declare `[pane] [rest…]`; with `--current` the user leaves the pane out, so the pane slot
 * holds the first of the rest.
 */
export function paneAndArgs(
  argv: { pane?: string; current?: boolean },
  rest: readonly (string | readonly string[] | undefined)[],
  env: NodeJS.ProcessEnv = process.env,
): { pane: string; args: string[] } {
  const flat = [
    ...rest.flatMap((value) => (value === undefined ? [] : typeof value === 'string' ? [value] : [...value])),
    ...afterDashes(argv),
  ];
  if (argv.current) {
    return { pane: currentPaneId(env), args: argv.pane === undefined ? flat : [argv.pane, ...flat] };
  }
  return { pane: paneArg(argv, env), args: flat };
}

/** Exactly `names.length` arguments, else a usage error naming what is missing or extra. */
export function expectArgs(args: readonly string[], names: readonly string[]): string[] {
  if (args.length < names.length) throw new UsageError(`missing ${names.slice(args.length).map((n) => `<${n}>`).join(' ')}`);
  if (args.length > names.length) throw new UsageError(`unexpected argument: ${args[names.length]}`);
  return [...args];
}
