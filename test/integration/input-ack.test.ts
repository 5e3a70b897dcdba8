/**
 * The far side of a predicted echo (docs/machines.md "Predicted echo"): `pane.input` with a
 * `seq` is acknowledged on the connection's mirror stream behind the pane's first output
 * batch after the keys — so the mirror judges its guesses on a screen that holds the echo —
 * and after a quiet wait, marked `quiet`, when the program printed nothing (echo off).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from './harness.js';

let server: TestServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe('pane.input acknowledgements', () => {
  it('come right behind the echo batch, and quiet when nothing was echoed', async () => {
    // The gate open: a script may send a person's keys (SPEC §14's link is a process sshd started).
    server = new TestServer({ scripting: true });
    await server.start();
    const client = await server.connect();
    const created = await client.request('workspace.create', { cwd: '/tmp' });
    const pane = created.result.root_pane;
    await client.request('mirror.subscribe', {});
    const isEvent = (m: any) => m.method === 'mirror.event';
    // The pane's prompt ($ or #, in its snapshot or a batch after), then a key.
    const text = (event: any): string => (event.kind === 'output' ? Buffer.from(event.data, 'base64').toString() : event.kind === 'snapshot' ? event.data : '');
    await client.next((m) => isEvent(m) && m.params.surface_id === pane.surface_id && /[$#]/.test(text(m.params)));
    client.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'pane.input', params: { pane_id: pane.pane_id, data: 'q', seq: 7 } })}\n`);
    const events: any[] = [];
    for (;;) {
      const event = (await client.next(isEvent)).params;
      if (event.surface_id !== pane.surface_id) continue;
      events.push(event);
      if (event.kind === 'ack') break;
    }
    const ack = events.at(-1);
    expect(ack).toEqual({ kind: 'ack', surface_id: pane.surface_id, input: 7 });
    // Behind the batch that carries the echo.
    const outputs = events.filter((e) => e.kind === 'output').map((e) => Buffer.from(e.data, 'base64').toString());
    expect(outputs.join('')).toContain('q');

    // Echo off, a program reading (as at a password prompt): nothing comes back for a key, and
    // the acknowledgement says it waited.
    client.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'pane.input', params: { pane_id: pane.pane_id, data: '\x15stty -echo; echo READY-$((2+2)); read -r X\r', seq: 8 } })}\n`);
    await client.next((m) => isEvent(m) && text(m.params).includes('READY-4'));
    while ((await client.next((m) => isEvent(m) && m.params.kind === 'ack')).params.input !== 8);
    client.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'pane.input', params: { pane_id: pane.pane_id, data: 'z', seq: 9 } })}\n`);
    const quiet = (await client.next((m) => isEvent(m) && m.params.kind === 'ack' && m.params.input === 9)).params;
    expect(quiet).toEqual({ kind: 'ack', surface_id: pane.surface_id, input: 9, quiet: true });
  }, 30_000);
});
