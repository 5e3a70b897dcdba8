/** `corral web` (SPEC §16): the fleet in a browser, served by a client of the session's server (the heavy part loads only when run). */
import { loadWeb } from '../heavy.js';
import { UsageError } from '../output.js';
import { defineCommand, reportError, socketPathOf } from '../run.js';
import { checkTls, parseListen } from '../../web/web-options.js';
import { DEFAULT_PREDICT, PREDICT_MODES, type PredictMode } from '../../screen/remote-prediction.js';

export const webCommand = defineCommand({
  command: 'web',
  describe: 'Serve the fleet to a browser or a phone: who needs you, answer, type (prints a URL with a one-time token)',
  builder: (y) =>
    y
      .option('listen', { type: 'string', describe: 'ADDR:PORT to serve on (default 127.0.0.1:8760); a non-loopback address needs --tls-cert and --tls-key' })
      .option('read-only', { type: 'boolean', default: false, describe: 'show the fleet and panes; send no keys or answers' })
      .option('predict', { type: 'string', choices: PREDICT_MODES, default: DEFAULT_PREDICT, describe: "draw a typed key at once, before its echo comes back (mosh's --predict); adaptive: on a slow link only" })
      .option('tls-cert', { type: 'string', describe: 'PEM certificate file: serve HTTPS (cookies marked Secure)' })
      .option('tls-key', { type: 'string', describe: 'PEM private key file for --tls-cert' })
      .option('revoke-all', { type: 'boolean', default: false, describe: 'end every web session (browsers must log in again) and exit' }),
  handler: async (argv) => {
    // A flag given twice is an array to yargs: the last one wins, as with most CLIs.
    const last = (value: unknown) => (Array.isArray(value) ? (value.at(-1) as string | undefined) : (value as string | undefined));
    const listen = last(argv.listen);
    const tlsCert = last(argv['tls-cert']);
    const tlsKey = last(argv['tls-key']);
    try {
      socketPathOf(argv);
      if (!argv['revoke-all']) {
        // Usage mistakes (a bad address, a network address without TLS) before anything loads or connects.
        try {
          checkTls(parseListen(listen), { cert: tlsCert, key: tlsKey });
        } catch (error) {
          throw new UsageError((error as Error).message);
        }
      }
      const { runWeb } = await loadWeb();
      process.exitCode = await runWeb({
        socket: argv.socket,
        session: argv.session,
        listen,
        readOnly: argv['read-only'],
        predict: last(argv.predict) as PredictMode,
        tlsCert,
        tlsKey,
        revokeAll: argv['revoke-all'],
      });
    } catch (error) {
      reportError(error);
    }
  },
});
