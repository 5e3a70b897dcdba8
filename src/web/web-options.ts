/**
 * `corral web`'s address (SPEC §16): `--listen ADDR:PORT`, default 127.0.0.1:8760. A page
 * reachable from another machine carries a cookie that types into panes, so a non-loopback
 * address needs TLS (`--tls-cert` and `--tls-key`); without it the start is refused.
 */
import { isIP } from 'node:net';
import { CorralError } from '../contract/protocol.js';

export const WEB_DEFAULTS = { host: '127.0.0.1', port: 8760 } as const;

export interface Listen {
  host: string;
  port: number;
}

/** `ADDR:PORT`, `[v6]:PORT`, `:PORT` or `ADDR`; a usage error names what is wrong. */
export function parseListen(text: string | undefined): Listen {
  if (text === undefined || text === '') return { ...WEB_DEFAULTS };
  let host: string;
  let portText: string | undefined;
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  if (v6) {
    host = v6[1]!;
    portText = v6[2];
  } else {
    const colon = text.lastIndexOf(':');
    if (colon !== -1 && text.indexOf(':') !== colon) throw new CorralError('invalid_params', `--listen ${JSON.stringify(text)}: write an IPv6 address in brackets, [::1]:8760`);
    host = colon === -1 ? text : text.slice(0, colon);
    portText = colon === -1 ? undefined : text.slice(colon + 1);
  }
  if (host === '') host = WEB_DEFAULTS.host;
  if (isIP(host) === 0 && host !== 'localhost') throw new CorralError('invalid_params', `--listen ${JSON.stringify(text)}: give an IP address (or localhost), not a host name`);
  const port = portText === undefined ? WEB_DEFAULTS.port : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65535 || (portText !== undefined && !/^\d+$/.test(portText))) {
    throw new CorralError('invalid_params', `--listen ${JSON.stringify(text)}: the port must be a number from 0 to 65535`);
  }
  return { host, port };
}

/** Whether only this machine can reach `host`. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** Throws a usage error unless the address and the TLS flags fit together. */
export function checkTls(listen: Listen, tls: { cert?: string; key?: string }): void {
  if (Boolean(tls.cert) !== Boolean(tls.key)) throw new CorralError('invalid_params', '--tls-cert and --tls-key go together: give both, or neither');
  if (!isLoopback(listen.host) && !tls.cert) {
    throw new CorralError(
      'invalid_params',
      `refusing to serve on ${listen.host} without TLS: anyone on that network could read the session cookie and type into your panes. ` +
        'Give --tls-cert FILE --tls-key FILE, or listen on 127.0.0.1 and reach it through `ssh -L 8760:127.0.0.1:8760 host`',
    );
  }
}

/** The host:port a browser writes for this address (brackets around IPv6). */
export function hostPort(host: string, port: number): string {
  return `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}
