/**
 * `corral web` (SPEC §16): serves the fleet to a browser as a client of the session's server.
 * The server itself never listens on a network; this process does, on the address given
 * (loopback by default, anything else only with TLS), and speaks to the server over its
 * private socket like `corral attach`. It prints one URL with a one-time token in the
 * fragment, then logs (stderr) logins and answers — never the token, never a cookie.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';
import { CorralError } from '../contract/protocol.js';
import { packageRoot } from '../package-root.js';
import { resolveSocketPath } from '../paths.js';
import { resolveStateDir, stateSessionName } from '../persist/state-files.js';
import { visibleControls } from '../terminal/control-chars.js';
import { ServerLink } from './server-link.js';
import { SessionStore, randomSecret, sessionStoreFile } from './session-store.js';
import { LoginToken } from './web-auth.js';
import { checkTls, hostPort, isLoopback, parseListen } from './web-options.js';
import { createWebServer } from './web-server.js';
import { DEFAULT_PREDICT, type PredictMode } from '../screen/remote-prediction.js';

export interface WebOptions {
  socket?: string;
  session?: string;
  listen?: string;
  readOnly: boolean;
  /** `--predict`: the page's predicted echo (src/web/page/echo-overlay.ts). */
  predict?: PredictMode;
  tlsCert?: string;
  tlsKey?: string;
  revokeAll: boolean;
}

function storeFor(opts: WebOptions): SessionStore {
  return new SessionStore(sessionStoreFile(resolveStateDir(), stateSessionName({ socket: opts.socket, session: opts.session })));
}

/** Runs until the server goes away or a signal; resolves with the exit code. */
export async function runWeb(opts: WebOptions): Promise<number> {
  const log = (line: string) => process.stderr.write(`corral web: ${visibleControls(line)}\n`);
  const store = storeFor(opts);
  if (opts.revokeAll) {
    const ended = await store.revokeAll();
    process.stdout.write(`corral web: revoked every web session (${ended} live); every browser must log in again with a new token\n`);
    return 0;
  }
  const listen = parseListen(opts.listen);
  checkTls(listen, { cert: opts.tlsCert, key: opts.tlsKey });
  const tls = opts.tlsCert && opts.tlsKey ? { cert: readFileSync(opts.tlsCert), key: readFileSync(opts.tlsKey) } : null;
  const socketPath = resolveSocketPath({ socket: opts.socket, session: opts.session });
  const link = await ServerLink.open(socketPath);

  const scheme = tls ? 'https' : 'http';
  const wildcard = listen.host === '0.0.0.0' || listen.host === '::';
  const token = randomSecret();
  // The Host values a browser may send, filled in once the port is known (port 0 picks one);
  // until then the set is empty and every data request is refused.
  const hosts: Set<string> | null = wildcard ? null : new Set();
  const { server, closePages } = createWebServer({
    link,
    store,
    token: new LoginToken(token),
    policy: { scheme, hosts },
    tls,
    readOnly: opts.readOnly,
    predict: opts.predict ?? DEFAULT_PREDICT,
    assetsDir: path.join(packageRoot(), 'dist', 'web'),
    log,
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new CorralError('internal_error', error.code === 'EADDRINUSE' ? `${hostPort(listen.host, listen.port)} is in use: give another with --listen ADDR:PORT` : `cannot listen on ${hostPort(listen.host, listen.port)}: ${error.message}`)),
    );
    server.listen(listen.port, listen.host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : listen.port);
    });
  });
  // The Host a browser may send: the address itself, and `localhost` for loopback. A DNS name
  // rebound to this address sends its own Host and is refused.
  if (hosts) {
    hosts.add(hostPort(listen.host, port));
    if (isLoopback(listen.host)) for (const h of ['localhost', '127.0.0.1', '[::1]']) hosts.add(`${h}:${port}`);
  }

  const shown = wildcard ? hostname() : listen.host === '::1' ? '[::1]' : listen.host;
  const readOnly = opts.readOnly ? ' (read-only: --read-only)' : !link.hello.person && !link.fleet.scripting ? ` (read-only: ${link.hello.why} while the scripting gate is closed)` : '';
  process.stdout.write(`corral web: open ${scheme}://${shown}:${port}/#token=${token}${readOnly}\n` + 'corral web: the token works once; the browser keeps a session cookie for 12 h (`corral web --revoke-all` ends every session)\n');

  return new Promise<number>((resolve) => {
    const stop = (code: number) => {
      closePages();
      server.close();
      server.closeAllConnections?.();
      link.close();
      resolve(code);
    };
    link.onClose(() => {
      log('the corral server went away');
      stop(1);
    });
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => stop(0));
  });
}
