/** `corral wait`: block until panes are idle and/or print a pattern (SPEC §9). Timeout in SECONDS. */
import { connect } from '../../rpc/client.js';
import { formatJsonLine, humanText } from '../output.js';
import { jsonOption } from '../options.js';
import { BOUNDS } from '../../contract/bounds.js';
import { numberOption, TIMEOUT_SECONDS } from '../numbers.js';
import { defineCommand, FROM_FLAGS, out, reportError, socketPathOf, withClient } from '../run.js';
import { PANE_REGEX_SYNTAX } from '../../terminal/pane-regex.js';
import { formatOutcome, runWait } from '../wait.js';
import { compilePattern, WAIT, type WaitOptions } from '../../wait/wait-logic.js';

/** `corral wait`. */
export const waitCommand = defineCommand({
  command: 'wait',
  describe: 'Wait until panes are idle (--idle) and/or new output matches (--pattern); exit 4 on timeout',
  builder: (y) =>
    y
      .option('match', {
        type: 'string',
        demandOption: true,
        describe: 'selector of the pane(s): surface id, pane id, agent or pane name, cmdline:<substr>, cwd:<path>',
      })
      .option('idle', { type: 'boolean', default: false, describe: 'wait for the agent to be idle/done, or a plain pane to be quiet' })
      .option('pattern', { type: 'string', describe: `regular expression that a line of output appearing after the wait began must match (${PANE_REGEX_SYNTAX})` })
      .option('any', { type: 'boolean', describe: 'the selector may match several panes; one satisfying is enough' })
      .option('all', { type: 'boolean', describe: 'the selector may match several panes; all must satisfy' })
      .conflicts('any', 'all')
      .option('timeout', numberOption('timeout', TIMEOUT_SECONDS, 'give up after this many SECONDS (exit 4); default: no timeout, waits forever', 'seconds'))
      .option('for', {
        ...numberOption('for', BOUNDS.timeoutMs, 'MILLISECONDS of quiet that make a pane without an agent idle', 'milliseconds'),
        default: WAIT.defaultQuietMs,
      })
      .option('json', jsonOption)
      .example('$0 wait --match reviewer --idle --timeout 600', 'after the agent finished its turn')
      .example("$0 wait --match backend --pattern '^DONE:' --timeout 300", 'after a sentinel line'),
  handler: async (argv) => {
    let opts: WaitOptions;
    try {
      opts = {
        selector: argv.match,
        // Without --pattern there is nothing else to wait for, so bare `wait --match X` waits for idle.
        idle: argv.idle || argv.pattern === undefined,
        pattern: argv.pattern === undefined ? undefined : compilePattern(argv.pattern),
        mode: argv.any ? 'any' : argv.all ? 'all' : 'single',
        timeoutMs: argv.timeout === undefined ? undefined : Math.round(argv.timeout * 1000),
        quietMs: argv.for,
      };
    } catch (error) {
      return reportError(error);
    }
    await withClient(argv, async (client) => {
      const outcome = await runWait({ client, openEvents: () => connect(socketPathOf(argv)) }, opts);
      out(argv.json ? `${formatJsonLine(outcome)}\n` : humanText(formatOutcome(outcome)));
    }, FROM_FLAGS);
  },
});
