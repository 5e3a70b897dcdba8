import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../src/rpc/client.js';
import { CorralError, EVENT_NOTIFICATION } from '../../src/contract/protocol.js';

let dir: string;
let server: Server | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'corral-client-'));
});
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  rmSync(dir, { recursive: true, force: true });
});

/** A tiny NDJSON server that answers each request with `reply(request, socket)`. */
async function serve(reply: (request: { id: number; method: string; params: unknown }, socket: Socket) => unknown): Promise<string> {
  const socketPath = path.join(dir, 's.sock');
  server = createServer((socket) => {
    let buffer = '';
    socket.on('data', (chunk) => {
      buffer += chunk.toString();
      let nl: number;
      while ((nl = buffer.indexOf('\n')) !== -1) {
        const request = JSON.parse(buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
        const response = reply(request, socket);
        if (response !== undefined) socket.write(JSON.stringify(response) + '\n');
      }
    });
  });
  await new Promise<void>((resolve) => server!.listen(socketPath, resolve));
  return socketPath;
}

describe('rpc client', () => {
  it('a missing socket is server_not_running', async () => {
    const missing = path.join(dir, 'none.sock');
    await expect(connect(missing)).rejects.toMatchObject({ code: 'server_not_running' });
    await expect(connect(missing)).rejects.toThrow(/no corral server at .*none\.sock/);
  });

  it('sends requests and matches replies by id, even out of order', async () => {
    const pending: { id: number; method: string }[] = [];
    const socketPath = await serve((request, socket) => {
      pending.push(request);
      if (pending.length === 2) {
        for (const r of [...pending].reverse()) socket.write(JSON.stringify({ jsonrpc: '2.0', id: r.id, result: { m: r.method } }) + '\n');
      }
      return undefined;
    });
    const client = await connect(socketPath);
    const [a, b] = await Promise.all([client.call('system.ping'), client.call('fleet.list')]);
    expect(a).toEqual({ m: 'system.ping' });
    expect(b).toEqual({ m: 'fleet.list' });
    client.close();
  });

  it('drops undefined params and rejects errors as CorralError with data.code', async () => {
    let seen: unknown;
    const socketPath = await serve((request) => {
      seen = request.params;
      return { jsonrpc: '2.0', id: request.id, error: { code: -32000, message: 'no pane "x"', data: { code: 'target_not_found' } } };
    });
    const client = await connect(socketPath);
    const error = await client.call('surface.read', { target: 'x', lines: undefined }).catch((e: unknown) => e);
    expect(seen).toEqual({ target: 'x' });
    expect(error).toBeInstanceOf(CorralError);
    expect(error).toMatchObject({ code: 'target_not_found', message: 'no pane "x"' });
    client.close();
  });

  it('delivers notifications and ends pending calls when the server hangs up', async () => {
    const socketPath = await serve((request, socket) => {
      socket.write(JSON.stringify({ jsonrpc: '2.0', method: EVENT_NOTIFICATION, params: { type: 'pane.created', ts: 1 } }) + '\n');
      setTimeout(() => socket.destroy(), 10);
      return undefined;
    });
    const client = await connect(socketPath);
    const events: unknown[] = [];
    client.onNotification((method, params) => events.push({ method, params }));
    const closed = new Promise((resolve) => client.onClose(resolve));
    await expect(client.call('events.subscribe')).rejects.toBeInstanceOf(CorralError);
    await closed;
    expect(events).toEqual([{ method: EVENT_NOTIFICATION, params: { type: 'pane.created', ts: 1 } }]);
  });

  it('an error reply with id null (server_busy) ends every call', async () => {
    const socketPath = await serve(() => ({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'busy', data: { code: 'server_busy' } } }));
    const client = await connect(socketPath);
    await expect(client.call('fleet.list')).rejects.toMatchObject({ code: 'server_busy' });
  });
});
