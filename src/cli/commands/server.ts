/** `corral server` (the heavy entry point, loaded only when run) and the bare `corral` (the thin client). */
import { loadServer } from '../heavy.js';
import { runClientCommand } from '../../client/client-main.js';
import { defineCommand, reportError, socketPathOf } from '../run.js';

/** `corral server`. */
export const serverCommand = defineCommand({
  command: 'server',
  describe: 'Run the corral server without a UI, in the foreground (for scripts, CI and tests)',
  builder: (y) =>
    y
      .option('scripting', {
        type: 'boolean',
        default: false,
        describe: 'open the scripting gate: allow verbs that submit input (also CORRAL_SCRIPTING=1)',
      })
      .option('detach', { type: 'boolean', default: false, describe: 'fork into the background; return once the socket answers' })
      .option('fresh', { type: 'boolean', default: false, describe: 'do not restore the saved session; it is moved aside (docs/persistence.md)' })
      // Set by `corral` on the server it starts for itself (tmux's exit-empty); not for scripts.
      .option('exit-empty', { type: 'boolean', default: false, hidden: true }),
  handler: async (argv) => {
    try {
      socketPathOf(argv); // a bad --session is a plain error here, before anything heavy loads
      const { runServer } = await loadServer();
      process.exitCode = await runServer({
        socket: argv.socket,
        session: argv.session,
        scripting: argv.scripting,
        detach: argv.detach,
        fresh: argv.fresh,
        exitEmpty: argv['exit-empty'],
      });
    } catch (error) {
      reportError(error);
    }
  },
});

/** A client verb: `attach` only attaches, the default command also starts a server. */
function clientCommand(command: string, describe: string, attach: boolean) {
  return defineCommand({
    command,
    describe,
    builder: (y) => y,
    handler: async (argv) => {
      try {
        socketPathOf(argv); // a bad --session is a usage error before anything connects
      } catch (error) {
        return reportError(error);
      }
      await runClientCommand({ attach, socket: argv.socket, session: argv.session });
    },
  });
}

/** The default command: attach a client to the session's server, starting it first when none answers (SPEC §1). */
export const tuiCommand = clientCommand('$0', "Open the full-screen multiplexer: attach to the session's server, starting it in the background when none runs", false);

/** `corral attach`: only to a running server. */
export const attachCommand = clientCommand('attach', 'Attach to a running server (none: server_not_running, exit 1)', true);
