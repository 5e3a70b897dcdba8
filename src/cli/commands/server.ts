/** `corral server` and the bare `corral` (TUI): the heavy entry points, loaded only when run. */
import { loadServer, loadTui } from '../heavy.js';
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
      .option('fresh', { type: 'boolean', default: false, describe: 'do not restore the saved session; it is moved aside (docs/persistence.md)' }),
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
      });
    } catch (error) {
      reportError(error);
    }
  },
});

/** The default command: the full-screen TUI with the server embedded (SPEC §1). */
export const tuiCommand = defineCommand({
  command: '$0',
  describe: 'Open the full-screen multiplexer (server embedded)',
  builder: (y) =>
    y.option('fresh', { type: 'boolean', default: false, describe: 'do not restore the saved session; it is moved aside (docs/persistence.md)' }),
  handler: async (argv) => {
    try {
      socketPathOf(argv);
      const { runTui } = await loadTui();
      const code = await runTui({ socket: argv.socket, session: argv.session, fresh: argv.fresh });
      if (typeof code === 'number') process.exitCode = code;
    } catch (error) {
      reportError(error);
    }
  },
});
