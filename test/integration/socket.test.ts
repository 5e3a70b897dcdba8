/**
 * The transport and the server's life, through a raw socket: limits, bad input, events,
 * socket claiming and clean shutdown.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname } from 'node:path';
import { RawClient, TestServer, isAlive } from './harness.js';
import { pollUntil } from '../tui/tui-harness.js';

describe('transport limits and bad input', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers malformed JSON with -32700 and keeps the connection usable', async () => {
    const client = await server.connect();
    client.write('{"jsonrpc": "2.0", "id": 1, "method": \n');
    const error = await client.next();
    expect(error.error.code).toBe(-32700);
    expect(error.error.data.code).toBe('parse_error');
    const pong = await client.call('system.ping');
    expect(pong.pong).toBe(true);
    client.close();
  });

  it('refuses a line over 1 MiB with -32600 and closes the connection', async () => {
    const client = await server.connect();
    const huge = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'system.ping', params: { pad: 'x'.repeat(1024 * 1024 + 10) } });
    client.write(huge + '\n');
    const error = await client.next();
    expect(error.error.code).toBe(-32600);
    expect(error.error.data.code).toBe('invalid_request');
    await client.waitClosed();
    const fresh = await server.connect();
    expect((await fresh.call('system.ping')).pong).toBe(true);
    fresh.close();
  });

  it('names unknown methods, wrong param types and unknown targets', async () => {
    const client = await server.connect();
    const unknown = await client.request('pane.frobnicate', {});
    expect(unknown.error.code).toBe(-32601);
    expect(unknown.error.data.code).toBe('method_not_found');

    const wrongType = await client.request('workspace.create', { cwd: 42 });
    expect(wrongType.error.data.code).toBe('invalid_params');
    expect(wrongType.error.message).toMatch(/cwd/);

    const positional = await client.request('pane.get', ['w1:p1']);
    expect(positional.error.data.code).toBe('invalid_params');

    const notFound = await client.request('surface.status', { target: 'nobody-here' });
    expect(notFound.error.data.code).toBe('target_not_found');

    const badDir = await client.request('workspace.create', { cwd: '/definitely/not/here' });
    expect(badDir.error.data.code).toBe('invalid_params');

    const badRegex = await client.request('pane.wait_for_output', { pane_id: 'w1:p1', match: { type: 'regex', value: '(' } });
    expect(['invalid_regex', 'target_not_found', 'pane_not_found']).toContain(badRegex.error.data.code);

    const notObject = await client.request('system.ping', 'string-params');
    expect(notObject.error).toBeDefined();

    client.write('[]\n');
    const emptyBatch = await client.next();
    expect(emptyBatch.error.code).toBe(-32600);

    client.write('{"not":"jsonrpc"}\n');
    const invalid = await client.next();
    expect(invalid.error.code).toBe(-32600);

    expect((await client.call('system.ping')).pong).toBe(true);
    client.close();
  });

  it('refuses a pane name that would read as a selector', async () => {
    const client = await server.connect();
    const created = await client.call('workspace.create', { cwd: server.home });
    for (const name of ['42', 'w1:p9', 'cmdline:vim']) {
      const refused = await client.request('pane.rename', { pane_id: created.root_pane.pane_id, name });
      expect(refused.error.data.code, name).toBe('invalid_params');
    }
    expect((await client.call('pane.rename', { pane_id: created.root_pane.pane_id, name: 'api-1' })).pane.name).toBe('api-1');
    client.close();
  });

  it('refuses oversize text to send and an invalid key name', async () => {
    const client = await server.connect();
    const created = await client.call('workspace.create', { cwd: server.home });
    const pane = created.root_pane.pane_id;
    const big = await client.request('surface.send_text', { target: pane, text: 'y'.repeat(64 * 1024 + 1) });
    expect(big.error.data.code).toBe('invalid_params');
    expect(big.error.message).toMatch(/65536/);
    const badKey = await client.request('pane.send_keys', { pane_id: pane, keys: ['enter', 'hyperspace'] });
    expect(badKey.error.data.code).toBe('invalid_key');
    client.close();
  });

  it('streams lifecycle events and surface_changed after a subscribed frame', async () => {
    const watcher = await server.connect();
    const sub = await watcher.call('events.subscribe', {});
    expect(sub.type).toBe('subscribed');
    const actor = await server.connect();
    const created = await actor.call('workspace.create', { cwd: server.home });
    const pane = created.root_pane;
    const event = (type: string) => watcher.next((m) => m.method === 'events.event' && m.params.type === type && m.params.pane_id === pane.pane_id);
    const paneCreated = await event('pane.created');
    expect(paneCreated.params.surface_id).toBe(pane.surface_id);
    expect(typeof paneCreated.params.ts).toBe('number');
    await actor.call('pane.run', { pane_id: pane.pane_id, command: 'echo changed' });
    const changed = await event('surface_changed');
    expect(changed.params.output_generation).toBeGreaterThan(0);
    await actor.call('pane.close', { pane_id: pane.pane_id });
    await event('pane.closed');
    watcher.close();
    actor.close();
  });

  it('filters by type and surface, and rejects an unknown type', async () => {
    const client = await server.connect();
    const bad = await client.request('events.subscribe', { types: ['pane.exploded'] });
    expect(bad.error.data.code).toBe('invalid_params');
    expect(bad.error.message).toMatch(/pane\.exploded/);

    const a = await client.call('workspace.create', { cwd: server.home });
    const b = await client.call('workspace.create', { cwd: server.home });
    const watcher = await server.connect();
    await watcher.call('events.subscribe', { surfaces: [a.root_pane.pane_id], types: ['pane.closed'] });
    await client.call('pane.close', { pane_id: b.root_pane.pane_id });
    await client.call('pane.close', { pane_id: a.root_pane.pane_id });
    const first = await watcher.next((m) => m.method === 'events.event');
    expect(first.params.type).toBe('pane.closed');
    expect(first.params.pane_id).toBe(a.root_pane.pane_id);
    watcher.close();
    client.close();
  });

  it('a subscriber that stops reading gets a dropped frame, and nobody else slows down', async () => {
    const slow = await server.connect();
    await slow.call('events.subscribe', { types: ['pane.renamed'] });
    slow.socket.pause();
    // A live subscriber alongside: it must get every event, with no drop.
    const live = await server.connect();
    await live.call('events.subscribe', { types: ['pane.renamed'] });
    const actor = await server.connect();
    const created = await actor.call('workspace.create', { cwd: server.home });
    const pane = created.root_pane.pane_id;
    // Enough renames to fill the socket buffers and the 1024-event queue several times over.
    const started = Date.now();
    for (let i = 0; i < 6000; i++) actor.write(JSON.stringify({ jsonrpc: '2.0', id: `r${i}`, method: 'pane.rename', params: { pane_id: pane, name: `n${i}` } }) + '\n');
    await actor.next((m) => m.id === 'r5999', 30_000);
    // The actor was never held up by the stalled subscriber.
    expect(Date.now() - started).toBeLessThan(20_000);
    const lastLive = await live.next((m) => m.method === 'events.event' && m.params.name === 'n5999', 30_000);
    expect(lastLive.params.type).toBe('pane.renamed');
    expect(await live.next((m) => m.method === 'events.event' && m.params.type === 'dropped', 200).catch(() => null)).toBeNull();
    live.close();
    slow.socket.resume();
    const dropped = await slow.next((m) => m.method === 'events.event' && m.params.type === 'dropped', 30_000);
    expect(dropped.params.count).toBeGreaterThan(0);
    // After a drop the stream goes on: a later event still arrives.
    await actor.call('pane.rename', { pane_id: pane, name: 'after-drop' });
    const later = await slow.next((m) => m.method === 'events.event' && m.params.name === 'after-drop', 30_000);
    expect(later.params.type).toBe('pane.renamed');
    slow.close();
    actor.close();
  });

  it('system.stats: server-side time per method, event fan-out time, subscribers and memory', async () => {
    const client = await server.connect();
    const watcher = await server.connect();
    await watcher.call('events.subscribe', { types: ['pane.renamed'] });
    const { root_pane } = await client.call('workspace.create', { cwd: server.home, focus: false });
    const before = await client.call('system.stats');
    for (let i = 0; i < 5; i++) await client.call('surface.status', { target: root_pane.pane_id });
    await client.call('pane.rename', { pane_id: root_pane.pane_id, name: 'stats' });
    await watcher.next((m) => m.method === 'events.event' && m.params.name === 'stats');
    // A made-up method is answered with an error and never becomes a key of the table.
    expect((await client.request('no.such_method', {})).error.data.code).toBe('method_not_found');
    const stats = await client.call('system.stats');
    const status = stats.requests['surface.status'];
    expect(status.count - (before.requests['surface.status']?.count ?? 0)).toBe(5);
    expect(status.p50_ms).toBeGreaterThan(0);
    expect(status.p95_ms).toBeGreaterThanOrEqual(status.p50_ms);
    expect(status.max_ms).toBeGreaterThanOrEqual(status.p95_ms);
    expect(status.cpu_p95_ms).toBeGreaterThanOrEqual(status.cpu_p50_ms);
    expect(status.cpu_p50_ms).toBeGreaterThanOrEqual(0);
    expect(stats.requests['no.such_method']).toBeUndefined();
    expect(stats.events.subscribers).toBeGreaterThanOrEqual(1);
    expect(stats.events.fan_out.count).toBeGreaterThan(before.events.fan_out.count);
    expect(stats.memory.rss).toBeGreaterThan(stats.memory.heap_used);
    watcher.close();
    client.close();
  });

  it('watch prints the subscribed frame then NDJSON events', async () => {
    const { spawn } = await import('node:child_process');
    const { BIN } = await import('./harness.js');
    const child = spawn(process.execPath, [BIN, 'watch', '--type', 'workspace.created'], { env: server.env });
    let out = '';
    const lines = () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l));
    const seen = new Promise<void>((resolve) => {
      child.stdout.on('data', (c) => {
        out += c;
        if (lines().some((l) => l.type === 'workspace.created')) resolve();
        if (lines()[0]?.type === 'subscribed' && !started) {
          started = true;
          void server.cli(['workspace', 'create', '--cwd', server.home]);
        }
      });
    });
    let started = false;
    await seen;
    child.kill();
    expect(lines()[0].type).toBe('subscribed');
    expect(lines().find((l) => l.type === 'workspace.created').workspace).toMatch(/^w\d+$/);
  });

  it('is still alive after all of the above', async () => {
    expect(server.alive).toBe(true);
    const result = await server.cli(['ps', '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ agents: [] });
  });
});

describe('server life', () => {
  it('drops a client that leaves half a line for the partial-line time, and only that client', async () => {
    // SPEC §3's 30 s (LIMITS.partialLineTimeoutMs, checked with the other defaults in
    // test/unit/transport-options.test.ts), shortened here as CORRAL_TEST_PARTIAL_LINE_MS allows.
    const server = new TestServer();
    server.env.CORRAL_TEST_PARTIAL_LINE_MS = '1500';
    await server.start();
    try {
      const idle = await server.connect();
      const started = Date.now();
      idle.write('{"jsonrpc":"2.0","id":1,"method":"system.pi');
      const other = await server.connect();
      // The other client keeps talking meanwhile, a whole line at a time: it stays.
      const talking = (async () => {
        while (Date.now() - started < 2500) {
          expect((await other.call('system.ping')).pong).toBe(true);
          await new Promise((r) => setTimeout(r, 200));
        }
      })();
      await idle.waitClosed(10_000);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      await talking;
      expect((await other.call('system.ping')).pong).toBe(true);
      other.close();
    } finally {
      await server.stop();
    }
  });

  it('answers server_busy beyond 64 connections', async () => {
    // A server of its own, so no connection from another test counts against the limit.
    const server = await new TestServer().start();
    const clients: RawClient[] = [];
    for (let i = 0; i < 64; i++) clients.push(await server.connect());
    // Make sure all 64 are accepted before the 65th arrives.
    await Promise.all(clients.map((c) => c.call('system.ping')));
    const extra = await server.connect();
    const busy = await extra.next();
    expect(busy.error.data.code).toBe('server_busy');
    await extra.waitClosed();
    for (const client of clients) client.close();
    await Promise.all(clients.map((c) => c.waitClosed()));
    // The server hears of those closes a moment after the clients do: once it has, there is room
    // again. Retry (bounded) rather than sleep; every refused attempt is answered at once.
    let pong = false;
    for (let attempt = 0; attempt < 100 && !pong; attempt++) {
      const after = await server.connect();
      pong = await after.call('system.ping').then((r) => r.pong === true, () => false);
      after.close();
    }
    expect(pong).toBe(true);
    await server.stop();
  });

  it('creates the socket 0600 in a 0700 directory and refuses a second server', async () => {
    const server = await new TestServer().start();
    try {
      expect(statSync(server.socketPath).mode & 0o777).toBe(0o600);
      expect(statSync(dirname(server.socketPath)).mode & 0o777).toBe(0o700);
      const second = await server.cli(['server'], { timeoutMs: 10_000 });
      expect(second.code).toBe(1);
      expect(second.stderr).toMatch(/already running/);
      expect(server.alive).toBe(true);
    } finally {
      await server.stop();
    }
  });

  it('replaces a stale socket file left by a dead server', async () => {
    const server = new TestServer();
    mkdirSync(dirname(server.socketPath), { recursive: true, mode: 0o700 });
    // A server killed with SIGKILL cannot remove its socket file: exactly what a crash leaves.
    const script = `require('net').createServer().listen(${JSON.stringify(server.socketPath)}, () => console.log('up'))`;
    const stale = spawn(process.execPath, ['-e', script]);
    await new Promise<void>((r) => stale.stdout.once('data', () => r()));
    const died = new Promise((r) => stale.once('exit', r));
    stale.kill('SIGKILL');
    await died;
    expect(existsSync(server.socketPath)).toBe(true);
    await server.start();
    const ping = await server.cli(['ps', '--json']);
    expect(ping.code).toBe(0);
    await server.stop();
  });

  it('ends pane process groups and removes the socket on SIGTERM', async () => {
    const server = await new TestServer({ scripting: true }).start();
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const pane = created.result.root_pane.pane_id;
    await server.cli(['pane', 'run', pane, 'sleep 1000 & echo BGPID=$!']);
    const waited = await server.json(['pane', 'wait-output', pane, '--regex', '^BGPID=\\d+$', '--timeout', '10000']);
    const bgPid = Number(/BGPID=(\d+)/.exec(waited.result.matched_line)![1]);
    expect(isAlive(bgPid)).toBe(true);
    const socketPath = server.socketPath;
    const code = await server.stop();
    expect(code).toBe(0);
    expect(existsSync(socketPath)).toBe(false);
    expect(isAlive(bgPid)).toBe(false);
  });

  it('a server whose socket file was deleted is found by the CLI and reached again after SIGUSR1, its panes and clients intact', async () => {
    const server = await new TestServer().start();
    try {
      const created = await server.json(['workspace', 'create', '--cwd', server.home]);
      const pane = created.result.root_pane.pane_id;
      const kept = await server.connect();
      rmSync(server.socketPath);
      const lost = await server.cli(['ps']);
      expect(lost.code).toBe(1);
      const error = JSON.parse(lost.stderr).error;
      expect(error.code).toBe('server_not_running');
      expect(error.message).toContain(`kill -USR1 ${server.pid}`);
      // A connection made before the file went stays served.
      expect((await kept.call('system.ping')).pong).toBe(true);

      process.kill(server.pid!, 'SIGUSR1');
      await pollUntil(async () => (await server.cli(['ps'])).code, (code) => code === 0, 'the socket to answer again');
      expect(statSync(server.socketPath).mode & 0o777).toBe(0o600);
      const panes = (await server.json(['pane', 'list'])).result.panes.map((p: any) => p.pane_id);
      expect(panes).toEqual([pane]);
      expect((await kept.call('system.ping')).pong).toBe(true);
      kept.close();
      // Again with the file in place: nothing changes, and a stray signal does not kill it.
      process.kill(server.pid!, 'SIGUSR1');
      await pollUntil(async () => server.stderr, (log) => log.includes('is in place'), 'the server to say its socket is in place');
      expect((await server.cli(['ps'])).code).toBe(0);
    } finally {
      await server.stop();
    }
    // Stopped, it removed its socket: nothing is left for the hint to find.
    expect(JSON.parse((await server.cli(['ps'])).stderr).error.message).not.toContain('USR1');
  });

  it('reports server_not_running with exit 1 when nobody listens', async () => {
    const server = new TestServer();
    const result = await server.cli(['ps']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stderr).error.code).toBe('server_not_running');
    await server.stop();
  });
});
