/**
 * `corral web`'s HTTP(S) server (SPEC §16). Routes:
 *
 *   GET  /, /app.js, /app.css   public: the page and its one bundle, no data in them
 *   POST /api/login             the one-time token (JSON body) → the session cookie
 *   POST /api/fleet             the fleet, for the first paint (cookie + Origin)
 *   GET  /ws (upgrade)          the live WebSocket (cookie + Origin)
 *
 * Data goes over POST and the WebSocket only: a browser sends `Origin` with both, so the
 * origin check never depends on a header a browser may leave out. A refusal is a bare 401 or
 * 403; no route echoes what it was sent.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { LoginToken, RequestGuard, cookieFrom, sessionCookie, type OriginPolicy } from './web-auth.js';
import type { SessionStore } from './session-store.js';
import type { ServerLink } from './server-link.js';
import { PAGE_LIMITS, PageSession } from './page-session.js';
import type { PredictMode } from '../screen/remote-prediction.js';

export const HTTP_LIMITS = {
  /** A login body holds a 43-character token. */
  maxLoginBytes: 1024,
} as const;

/** The page: no data, no inline script; the bundle does the rest. */
const INDEX_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1, viewport-fit=cover">
<meta name="referrer" content="no-referrer">
<title>corral</title><link rel="stylesheet" href="/app.css"></head>
<body><div id="app"></div><script src="/app.js"></script></body></html>
`;

/** The page may talk to this server only; xterm sets styles from script. */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

export interface WebServerOptions {
  link: ServerLink;
  store: SessionStore;
  token: LoginToken;
  policy: OriginPolicy;
  tls: { cert: Buffer; key: Buffer } | null;
  readOnly: boolean;
  /** The pages' predicted echo (`corral web --predict`). */
  predict: PredictMode;
  /** dist/web: the bundle and its styles. */
  assetsDir: string;
  log: (line: string) => void;
}

function reply(res: ServerResponse, status: number, body = '', headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...SECURITY_HEADERS, ...headers, 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

/** Reads a small body; null when it is larger than `max`. */
function readBody(req: IncomingMessage, max: number): Promise<string | null> {
  return new Promise((resolve) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        resolve(null);
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(null));
  });
}

export function createWebServer(opts: WebServerOptions): { server: Server; closePages: () => void } {
  const guard = new RequestGuard(opts.policy, opts.store);
  const assets = {
    '/app.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(path.join(opts.assetsDir, 'app.js')) },
    '/app.css': { type: 'text/css; charset=utf-8', body: readFileSync(path.join(opts.assetsDir, 'app.css')) },
  } as const;
  const secure = opts.tls !== null;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (req.method === 'GET' && url === '/') return reply(res, 200, INDEX_HTML, { 'Content-Type': 'text/html; charset=utf-8' });
    if (req.method === 'GET' && (url === '/app.js' || url === '/app.css')) {
      const asset = assets[url];
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': asset.type, 'Content-Length': asset.body.length });
      res.end(asset.body);
      return;
    }
    if (req.method === 'POST' && url === '/api/login') {
      if (!guard.sameOrigin(req)) return reply(res, 403);
      const body = await readBody(req, HTTP_LIMITS.maxLoginBytes);
      let token: unknown;
      try {
        token = body === null ? undefined : (JSON.parse(body) as { token?: unknown }).token;
      } catch {
        token = undefined;
      }
      if (!opts.token.exchange(token)) {
        opts.log('a login with a wrong or already used token was refused');
        return reply(res, 401);
      }
      const cookie = await opts.store.create();
      opts.log('a browser logged in with the token (it cannot be used again)');
      return reply(res, 204, '', { 'Set-Cookie': sessionCookie(cookie, secure) });
    }
    if (req.method === 'POST' && url === '/api/fleet') {
      const verdict = guard.check(req);
      if (verdict !== 'ok') return reply(res, verdict === 'forbidden' ? 403 : 401);
      return reply(res, 200, JSON.stringify(opts.link.fleet), { 'Content-Type': 'application/json' });
    }
    return reply(res, 404);
  };

  // A failure inside a route (the state directory became unusable, say) answers 500 and is
  // logged; it never ends `corral web` for every other page.
  const guarded = (req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      opts.log(`a request failed: ${(error as Error)?.message ?? error}`);
      if (!res.headersSent) reply(res, 500);
      else res.destroy();
    });
  };
  const server = opts.tls ? createHttpsServer({ cert: opts.tls.cert, key: opts.tls.key }, guarded) : createHttpServer(guarded);

  const wss = new WebSocketServer({ noServer: true, maxPayload: PAGE_LIMITS.maxFrameBytes });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = (req.url ?? '').split('?')[0];
    const verdict = url === '/ws' ? guard.check(req) : 'notfound';
    if (verdict !== 'ok') {
      const status = verdict === 'forbidden' ? '403 Forbidden' : verdict === 'unauthorized' ? '401 Unauthorized' : '404 Not Found';
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    const cookie = cookieFrom(req.headers.cookie);
    wss.handleUpgrade(req, socket, head, (ws) => {
      new PageSession(ws, opts.link, opts.readOnly, opts.log, () => opts.store.valid(cookie), opts.predict);
    });
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  return {
    server,
    // Upgraded sockets are no longer the HTTP server's to close: they are ended here.
    closePages: () => {
      for (const ws of wss.clients) ws.terminate();
    },
  };
}
