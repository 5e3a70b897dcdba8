/** Conductor pane verbs: `read`, `search`, `send`, `key`, `focus` (SPEC §6, §8). */
import { formatFocused, formatSearch, formatSent } from '../conductor-format.js';
import { UsageError } from '../output.js';
import { afterDashes, conductorCall, defineCommand, textArg } from '../run.js';
import { jsonOption, KEY_NAMES, targetPositional } from '../options.js';
import { BOUNDS } from '../../contract/bounds.js';
import { linesOption, numberOption } from '../numbers.js';
import { PANE_REGEX_SYNTAX } from '../../terminal/pane-regex.js';

/** `corral read <target>`. */
export const readCommand = defineCommand({
  command: 'read <target>',
  describe: 'Print a pane\'s scrollback, fenced as <untrusted_terminal_output> unless --raw',
  builder: (y) =>
    y
      .positional('target', targetPositional)
      .option('lines', linesOption('last N lines, 1..10000 (default 200)'))
      .option('raw', { type: 'boolean', default: false, describe: 'no injection fence (trusted human scripts only)' })
      .option('json', jsonOption),
  handler: (argv) =>
    conductorCall(
      argv,
      'surface.read',
      () => ({ target: argv.target, lines: argv.lines, raw: argv.raw }),
      (result) => result.text,
    ),
});

/** `corral search <target> <pattern>`. */
export const searchCommand = defineCommand({
  command: 'search <target> [pattern]',
  describe: 'Find lines in a pane\'s scrollback',
  builder: (y) =>
    y
      .positional('target', targetPositional)
      .positional('pattern', { type: 'string', describe: 'substring (or regex with --regex); after -- if it starts with -' })
      .option('regex', { type: 'boolean', default: false, describe: `treat the pattern as a regular expression, matched line by line (${PANE_REGEX_SYNTAX})` })
      .option('max', numberOption('max', BOUNDS.maxMatches, 'stop after N matches, 1..10000 (default 50)'))
      .option('json', jsonOption),
  handler: (argv) =>
    conductorCall(
      argv,
      'surface.search',
      () => ({ target: argv.target, pattern: textArg(argv, argv.pattern, 'pattern'), regex: argv.regex, max_matches: argv.max }),
      formatSearch,
    ),
});

/** `corral send <target> <text>`. */
export const sendCommand = defineCommand({
  command: 'send <target> [text]',
  describe: 'Type text into a pane; --submit also presses Enter (needs the scripting gate)',
  builder: (y) =>
    y
      .positional('target', targetPositional)
      .positional('text', { type: 'string', describe: 'text to type; after -- if it starts with -' })
      .option('submit', { type: 'boolean', default: false, describe: 'press Enter after the text' })
      .option('all', { type: 'boolean', default: false, describe: 'send to every pane the selector matches' })
      .option('json', jsonOption),
  handler: (argv) =>
    conductorCall(
      argv,
      'surface.send_text',
      () => ({ target: argv.target, text: textArg(argv, argv.text, 'text'), submit: argv.submit, all: argv.all }),
      formatSent,
    ),
});

/** Key names from the positionals and after `--` (so `-` itself can be pressed). */
function keysArg(argv: object, keys: readonly string[] | undefined): string[] {
  const all = [...(keys ?? []), ...afterDashes(argv)];
  if (all.length === 0) throw new UsageError('missing <keys..>');
  return all;
}

/** `corral key <target> <keys…>`. */
export const keyCommand = defineCommand({
  command: 'key <target> [keys..]',
  describe: 'Press keys in a pane, e.g. enter, esc, ctrl+c (needs the scripting gate)',
  builder: (y) =>
    y
      .positional('target', targetPositional)
      .positional('keys', { type: 'string', array: true, describe: `key names: ${KEY_NAMES}` })
      .option('json', jsonOption),
  handler: (argv) =>
    conductorCall(
      argv,
      'surface.send_keys',
      () => ({ target: argv.target, keys: keysArg(argv, argv.keys) }),
      () => {
        const count = keysArg(argv, argv.keys).length;
        return `sent ${count} key${count === 1 ? '' : 's'}`;
      },
    ),
});

/** `corral focus <target>`. */
export const focusCommand = defineCommand({
  command: 'focus <target>',
  describe: 'Focus a pane (and mark a finished agent there as seen)',
  builder: (y) => y.positional('target', targetPositional).option('json', jsonOption),
  handler: (argv) =>
    conductorCall(argv, 'surface.focus', () => ({ target: argv.target }), formatFocused),
});
