/**
 * `corral completion [bash|zsh|fish]` (SPEC §17): prints the shell's completion script. The
 * script calls back `corral completion SHELL --complete -- WORDS…` on every TAB, which answers
 * with what yargs' own completion (`--get-yargs-completions`, run on a fresh parser of the
 * whole CLI) offers — verbs, flags, choices — and, where a word takes a pane, an agent, a
 * worktree or a machine, the running server's names (live-names.ts). Completing only reads:
 * one list call, bounded in time, and nothing on stderr whatever happens.
 */
import type { Argv, CommandModule, FallbackCompletionFunction } from 'yargs';
import { visibleControls } from '../../terminal/control-chars.js';
import { COMPLETION_SHELLS, completionScript, shellFromEnv, type CompletionShell } from '../completion-scripts.js';
import { slotOf, type NameKind } from '../completion-slots.js';
import { liveNames, type LiveName } from '../live-names.js';
import { afterDashes, defineCommand, out, socketPathOf, type GlobalArgs } from '../run.js';

/** Builds the CLI's whole parser for `args` (main.ts's buildCli). */
export type BuildCli = (args: readonly string[]) => Argv;

/**
 * The name yargs' completion hook is registered under on the completing parser. yargs'
 * `.completion()` also declares a hidden command of that name; this one is never typed.
 */
const HOOK_COMMAND = '__corral_complete';

/** The `completion` verb, completing with the parser `build` makes. */
export function completionCommand(build: BuildCli): CommandModule<GlobalArgs, any> {
  return defineCommand({
    command: 'completion [shell]',
    describe: 'Print the completion script for bash, zsh or fish: verbs, flags, and the running server’s panes, agents, worktrees and machines (docs/cli.md says how to install it)',
    builder: (y) =>
      y
        .positional('shell', { choices: COMPLETION_SHELLS, describe: 'the shell (default: the one $SHELL names, else bash)' })
        // What the scripts call on TAB, with the command line after --; not for people.
        .option('complete', { type: 'boolean', hidden: true }),
    handler: async (argv) => {
      const shell = argv.shell ?? shellFromEnv();
      if (!argv.complete) return out(completionScript(shell));
      // One entry a line, nothing at all when there is none (an empty line would be an entry).
      out((await completeWords(build, shell, afterDashes(argv))).map((entry) => `${entry}\n`).join(''));
    },
  });
}

/**
 * What may come in place of the last of `words` (the command line up to the cursor, program
 * first), one entry a line in the shape `shell` reads: bash a bare word, zsh `word:what`, fish
 * `word<TAB>what`. Never throws: whatever goes wrong completes nothing.
 */
export async function completeWords(build: BuildCli, shell: CompletionShell, words: readonly string[]): Promise<string[]> {
  if (words.length === 0) return [];
  const asked = await yargsCompletions(build, shell, words);
  if (asked === null) return [];
  const { argv, hasChoices } = asked;
  // yargs lists the default command as `$0`: not a word anyone types.
  const defaults = asked.defaults.filter((entry) => !/^\$0(\W|$)/.test(entry));
  const slot = slotOf(words, (argv._ ?? []).map(String), argv);
  if (slot.type === 'flag') return defaults;
  const names = slot.kind === null ? [] : await namesOf(slot.kind, argv);
  const offered = names.filter((name) => isTypeable(name.value)).map((name) => formatName(shell, slot.type === 'value' ? slot.prefix + name.value : name.value, name.description));
  if (slot.type === 'value') {
    // A flag's value: its names, else its choices; yargs' verbs and flags are no value. Nothing
    // at all lets the shell offer file names.
    if (slot.kind !== null) return offered;
    return hasChoices(slot.flag) ? defaults : [];
  }
  if (offered.length > 0) return offered;
  // Flags come once a `-` is typed, so an empty word offers the verbs, choices or files.
  return defaults.filter((entry) => !entry.startsWith('-'));
}

/** The parsed command line at the completed word, what yargs offers there, and whether a flag has choices. */
interface YargsAnswer {
  defaults: string[];
  argv: GlobalArgs & { _?: unknown[] } & Record<string, unknown>;
  hasChoices: (flag: string) => boolean;
}

/**
 * Runs yargs' own completion of `words` on a fresh parser: `--get-yargs-completions` walks
 * into the verb's builders (yargs' getCompletion() alone stops at the first verb), and the
 * hook registered here receives the parse of the innermost verb. null if yargs fails.
 */
function yargsCompletions(build: BuildCli, shell: CompletionShell, words: readonly string[]): Promise<YargsAnswer | null> {
  // yargs picks the answer's shape (descriptions for zsh and fish) from $SHELL when the parser
  // is made; the script says which shell asks, whatever $SHELL says.
  process.env.SHELL = shell;
  if (shell !== 'zsh') delete process.env.ZSH_NAME;
  return new Promise((resolve) => {
    let answered = false;
    // Called once per verb level; only the innermost level's default completion calls back.
    // Four parameters: yargs tells this shape of hook (given its default completion) by its length.
    const hook: FallbackCompletionFunction = (_current, argv, defaultCompletion, _done) => {
      defaultCompletion((error, completions) => {
        answered = true;
        // Read now: once the parse returns, yargs has put the outer verbs' options back.
        const choices = choicesOf(cli);
        resolve(error ? null : { defaults: completions ?? [], argv, hasChoices: (flag) => (choices[flag]?.length ?? 0) > 0 });
      });
    };
    let cli: Argv;
    try {
      cli = build(['--get-yargs-completions', ...words]);
      cli
        .exitProcess(false)
        .fail(() => {
          // Before main.ts's handler, which would report a usage error on stderr.
          throw new CompletionFailed();
        })
        .completion(HOOK_COMMAND, false, hook)
        .parse();
    } catch {
      // Resolved below.
    }
    if (!answered) resolve(null);
  });
}

class CompletionFailed extends Error {}

/** The choices of the flags of the verb being parsed, by flag (the table yargs offers them from). */
function choicesOf(cli: Argv): Readonly<Record<string, readonly unknown[] | undefined>> {
  // getOptions() is yargs' own (its completion reads it) but not in its published types.
  const options = (cli as unknown as { getOptions?: () => { choices?: Record<string, unknown[]> } }).getOptions?.();
  return { ...options?.choices };
}

/** The names of `kind` from the server the line names; none when it names none that can be (a half-typed --session). */
async function namesOf(kind: NameKind, argv: GlobalArgs): Promise<LiveName[]> {
  let socketPath: string;
  try {
    socketPath = socketPathOf(argv);
  } catch {
    return [];
  }
  return liveNames(kind, { socketPath, machine: argv.machine === '' ? undefined : argv.machine });
}

/** A name a person can type as one word: no control characters (a name set by a program may hold any). */
function isTypeable(value: string): boolean {
  return value !== '' && !/[\u0000-\u001f\u007f-\u009f]/.test(value);
}

/** One completion line as `shell`'s script reads it (yargs' own shapes). */
function formatName(shell: CompletionShell, value: string, description: string): string {
  // The description is shown to a person: control characters made visible (SPEC §8), one line.
  const what = visibleControls(description);
  if (shell === 'zsh') return `${value.replace(/:/g, '\\:')}${what ? `:${what}` : ''}`;
  if (shell === 'fish') return `${value}${what ? `\t${what}` : ''}`;
  return value;
}
