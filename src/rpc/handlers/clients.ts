/** `client.*` (SPEC §1): attach a thin client, list and detach attached clients. */
import { CorralError } from '../../contract/protocol.js';
import { CLIENT_PROTOCOL_VERSION, clampSize, type ClientCapabilities, type ClientHello } from '../../client/frame-protocol.js';
import { optBool, optStr, type Params } from '../params.js';
import type { ClientService, HandlerTable } from './context.js';

/** Hello strings are echoed in `client.list`: bounded, and a tty or TERM never holds a newline. */
const MAX_HELLO_STRING = 4096;

function helloString(p: Params, name: string): string {
  const value = p[name];
  if (value === undefined) return '';
  if (typeof value !== 'string' || value.length > MAX_HELLO_STRING) throw new CorralError('invalid_params', `${name} must be a string of at most ${MAX_HELLO_STRING} characters`);
  return value;
}

function helloInt(p: Params, name: string): number {
  const value = p[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw new CorralError('invalid_params', `${name} must be a positive integer`);
  return value;
}

const CAPABILITIES: readonly (keyof ClientCapabilities)[] = ['truecolor', 'mouse', 'bracketedPaste', 'focusEvents', 'osc52', 'synchronizedOutput', 'notifications'];

/** The hello as sent, checked: a bad one is refused, never half-used. */
export function parseHello(p: Params): ClientHello {
  const protocol = p.protocol ?? CLIENT_PROTOCOL_VERSION;
  if (typeof protocol !== 'number') throw new CorralError('invalid_params', 'protocol must be a number');
  const caps = (typeof p.capabilities === 'object' && p.capabilities !== null ? p.capabilities : {}) as Record<string, unknown>;
  const capabilities = Object.fromEntries(CAPABILITIES.map((name) => [name, caps[name] === undefined ? true : caps[name] === true])) as unknown as ClientCapabilities;
  return {
    protocol,
    cols: clampSize(helloInt(p, 'cols')),
    rows: clampSize(helloInt(p, 'rows')),
    pid: typeof p.pid === 'number' && Number.isInteger(p.pid) ? p.pid : 0,
    tty: helloString(p, 'tty'),
    cwd: helloString(p, 'cwd'),
    term: helloString(p, 'term'),
    colorterm: helloString(p, 'colorterm'),
    capabilities,
  };
}

function service(clients: ClientService | null): ClientService {
  if (!clients) throw new CorralError('internal_error', 'this server does not serve attached clients');
  return clients;
}

export const clientHandlers: HandlerTable = {
  'client.attach': async (p, ctx) => {
    const clients = service(ctx.clients);
    const hello = parseHello(p);
    const id = await clients.prepare(hello);
    ctx.takeOver((socket) => {
      clients.attach(id, socket, hello).catch((error: unknown) => {
        process.stderr.write(`corral server: attaching ${id} failed: ${(error as Error)?.stack ?? error}\n`);
        socket.destroy();
      });
    });
    return { client_id: id, protocol: CLIENT_PROTOCOL_VERSION };
  },
  'client.list': (_p, ctx) => ({ clients: ctx.clients ? ctx.clients.list() : [] }),
  'client.detach': (p, ctx) => {
    const clientId = optStr(p, 'client_id');
    const all = optBool(p, 'all');
    const current = optBool(p, 'current');
    if (clientId !== undefined && all) throw new CorralError('invalid_params', 'give client_id or all, not both');
    return { detached: service(ctx.clients).detach({ clientId, all, current }) };
  },
};
