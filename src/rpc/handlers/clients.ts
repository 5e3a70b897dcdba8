/** `client.*` (SPEC §1): attach a thin client, list and detach attached clients. */
import { CorralError } from '../../contract/protocol.js';
import { CLIENT_PROTOCOL_VERSION, fitTerminalSize, type ClientCapabilities, type ClientHello } from '../../contract/frame-protocol.js';
import { optBool, optStr, type Params } from '../params.js';
import type { ClientService, HandlerGroup } from './context.js';

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

const CAPABILITIES = ['truecolor', 'mouse', 'bracketedPaste', 'focusEvents', 'osc52', 'synchronizedOutput', 'notifications'] as const;
const COLOR_DEPTHS: readonly ClientCapabilities['colors'][] = [16, 256, 16777216];

/** The colours the client's terminal shows; absent (an older client): as its `truecolor` says. */
function helloColors(value: unknown, truecolor: boolean): ClientCapabilities['colors'] {
  if (value === undefined) return truecolor ? 16777216 : 256;
  if (!COLOR_DEPTHS.includes(value as ClientCapabilities['colors'])) throw new CorralError('invalid_params', `capabilities.colors must be one of ${COLOR_DEPTHS.join(', ')}`);
  return value as ClientCapabilities['colors'];
}

/** The hello as sent, checked: a bad one is refused, never half-used. */
export function parseHello(p: Params): ClientHello {
  const protocol = p.protocol ?? CLIENT_PROTOCOL_VERSION;
  if (typeof protocol !== 'number') throw new CorralError('invalid_params', 'protocol must be a number');
  const caps = (typeof p.capabilities === 'object' && p.capabilities !== null ? p.capabilities : {}) as Record<string, unknown>;
  const flags = Object.fromEntries(CAPABILITIES.map((name) => [name, caps[name] === undefined ? true : caps[name] === true])) as Omit<ClientCapabilities, 'colors'>;
  const colors = helloColors(caps.colors, flags.truecolor);
  const capabilities: ClientCapabilities = { ...flags, truecolor: colors === 16777216, colors };
  return {
    protocol,
    ...fitTerminalSize(helloInt(p, 'cols'), helloInt(p, 'rows')),
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

export const clientHandlers = {
  'client.attach': async (p, ctx) => {
    const clients = service(ctx.clients);
    const hello = parseHello(p);
    const id = await clients.prepare(hello);
    // Read while the client waits for this reply, so it is alive to be placed (SPEC §8).
    const place = ctx.peer.place(true);
    ctx.takeOver((socket) => {
      clients.attach(id, socket, hello, place).catch((error: unknown) => {
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
    return { detached: service(ctx.clients).detach({ clientId, all, current }, ctx.peer.place(false)) };
  },
} satisfies HandlerGroup;
