/**
 * No request freezes or bloats the server (SPEC §3, issue 10 item 4), each test named after
 * the attack it stops, against the real server through raw sockets and the real CLI:
 * a client that pipelines large reads and never reads the replies, 64 silent connections,
 * SIGTERM with connections open, `max_panes`, and malformed requests (null, bad ids).
 * The regex bomb is in regex-syntax.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { eventually, RawClient, TestServer } from './harness.js';

/** Resident memory of a process in MiB, from /proc. */
function rssMiB(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
  return kb / 1024;
}

/** A bare socket (no line parsing), optionally half-open like `nc` (it keeps its side open after the server's end). */
function rawSocket(path: string, opts: { allowHalfOpen?: boolean } = {}): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path, allowHalfOpen: opts.allowHalfOpen ?? false });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

describe('a client that pipelines large reads and never reads the replies', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    // 3000 lines of 200 characters: about 7500 wrapped rows, so a 2000-line read is ~160 KB.
    writeFileSync(join(server.home, 'fill.sh'), "yes \"$(printf '%0200d' 0)\" | head -n 3000; printf 'FILL-%s\\n' DONE\n");
    await server.cli(['pane', 'run', pane, 'bash fill.sh']);
    const filled = await server.cli(['pane', 'wait-output', pane, '--regex', '^FILL-DONE$', '--timeout', '30000']);
    expect(filled.code, filled.stderr).toBe(0);
  });
  afterAll(async () => {
    await server.stop();
  });

  const readRequest = (i: number) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'surface.read', params: { target: pane, lines: 2000, raw: true } });

  it('pipelining non-reader: server memory stays bounded and another client is served at once', async () => {
    const rssBefore = rssMiB(server.pid!);
    const hog = await rawSocket(server.socketPath);
    hog.pause();
    // 1000 replies of ~200 KB are ~200 MB of JSON (twice that as JS strings); unbounded, the
    // server would build them all, and block everyone while it did.
    hog.write(Array.from({ length: 1000 }, (_, i) => readRequest(i)).join('\n') + '\n');
    const other = await server.connect();
    let rssPeak = 0;
    const statusMs: number[] = [];
    // Three seconds of sampling: long enough to fill the 8 MiB bound ~4 times over at the server's read rate.
    const until = performance.now() + 3000;
    while (performance.now() < until) {
      const { value, ms } = await timed(other.call('surface.status', { target: pane }));
      expect(value.pane_id).toBe(pane);
      statusMs.push(ms);
      rssPeak = Math.max(rssPeak, rssMiB(server.pid!));
      await new Promise((r) => setTimeout(r, 50));
    }
    statusMs.sort((a, b) => a - b);
    const p95 = statusMs[Math.ceil(statusMs.length * 0.95) - 1]!;
    expect(p95, `surface.status p95 ${p95.toFixed(0)} ms`).toBeLessThan(1000);
    expect(rssPeak - rssBefore, `server RSS ${rssBefore.toFixed(0)} → ${rssPeak.toFixed(0)} MiB`).toBeLessThan(100);
    other.close();
    hog.destroy();
    // The server noticed the hog left and serves on.
    expect((await server.json(['status', pane, '--json'])).pane_id).toBe(pane);
  });

  it('pipelining non-reader: nothing is lost, every reply arrives in order once it reads again', async () => {
    const reads = 100; // ~20 MB: more than twice the 8 MiB bound, so reading from it paused and resumed
    const hog = await rawSocket(server.socketPath);
    hog.pause();
    hog.write(Array.from({ length: reads }, (_, i) => readRequest(i)).join('\n') + '\n');
    const ids: number[] = [];
    let rest = '';
    const all = new Promise<void>((resolve) => {
      hog.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString('utf8')).split('\n');
        rest = lines.pop()!;
        for (const line of lines) ids.push(JSON.parse(line).id);
        if (ids.length >= reads) resolve();
      });
    });
    // Let the server reach its bound, then read everything.
    const other = await server.connect();
    for (let i = 0; i < 10; i++) await other.call('surface.status', { target: pane });
    other.close();
    hog.resume();
    await all;
    expect(ids).toEqual(Array.from({ length: reads }, (_, i) => i));
    hog.destroy();
  });
});

describe('a client that pipelines more waits than may run at once', () => {
  let server: TestServer;
  let pane: string;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
  });
  afterAll(async () => {
    await server.stop();
  });

  const waitLine = (id: string, value: string) =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'pane.wait_for_output', params: { pane_id: pane, match: { type: 'substring', value } } }) + '\n';

  it('runs 64 at a time and the rest in turn, answering every one', async () => {
    const client = await server.connect();
    client.write(Array.from({ length: 70 }, (_, i) => waitLine(`w${i}`, 'TURN-MARK')).join('') + '{"jsonrpc":"2.0","id":"ping","method":"system.ping"}\n');
    await server.cli(['pane', 'run', pane, "printf 'TURN-%s\\n' MARK"]);
    for (let i = 0; i < 70; i++) expect((await client.next((m) => m.id === `w${i}`)).result.matched_line).toBe('TURN-MARK');
    expect((await client.next((m) => m.id === 'ping')).result.pong).toBe(true);
    client.close();
  });

  it('a client that leaves with 70 endless waits pending frees its slot', async () => {
    const leaver = await rawSocket(server.socketPath);
    leaver.write(Array.from({ length: 70 }, (_, i) => waitLine(`n${i}`, 'NEVER-PRINTED')).join(''));
    const others: RawClient[] = [];
    for (let i = 0; i < 63; i++) others.push(await server.connect());
    await Promise.all(others.map((c) => c.call('system.ping')));
    leaver.destroy();
    // The 64th slot is the leaver's until the server sees it go: retry (bounded) rather than sleep.
    let pong = false;
    for (let attempt = 0; attempt < 100 && !pong; attempt++) {
      const last = await server.connect();
      pong = await last.call('system.ping').then((r) => r.pong === true, () => false);
      if (!pong) last.close();
      else others.push(last);
    }
    expect(pong).toBe(true);
    others.forEach((c) => c.close());
  });
});

describe('idle connections', () => {
  let server: TestServer;
  const idleMs = 1500;
  beforeAll(async () => {
    server = new TestServer({ scripting: true });
    // The idle close is 60 s; the server honours a shorter one for tests.
    server.env.CORRAL_TEST_IDLE_CONNECTION_MS = String(idleMs);
    await server.start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('64 silent connections: refused at first, then closed when idle, then a new client is served; streams and waits stay', async () => {
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    // A subscriber and a waiter also say nothing after their request: they must not be closed.
    const subscriber = await server.connect();
    await subscriber.call('events.subscribe', { types: ['pane.renamed'] });
    const waiter = await server.connect();
    const wait = waiter.request('pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: 'IDLE-WAIT-DONE' } });
    const silent: Socket[] = [];
    for (let i = 0; i < 62; i++) silent.push(await rawSocket(server.socketPath));
    const lastOpened = performance.now();
    const refused = await server.connect();
    expect((await refused.next()).error.data.code).toBe('server_busy');
    await Promise.all(silent.map(closed));
    // Closed by the server for idleness, not before: the last one idleMs after it connected.
    expect(performance.now() - lastOpened).toBeGreaterThanOrEqual(idleMs - 100);
    const fresh = await server.connect();
    expect((await fresh.call('system.ping')).pong).toBe(true);
    fresh.close();

    // The stream and the wait outlived the idle time, and still work.
    expect(subscriber.closed).toBe(false);
    expect(waiter.closed).toBe(false);
    await server.cli(['pane', 'rename', pane, 'still-subscribed']);
    expect((await subscriber.next((m) => m.method === 'events.event')).params.name).toBe('still-subscribed');
    await server.cli(['pane', 'run', pane, "printf 'IDLE-WAIT-%s\\n' DONE"]);
    expect((await wait).result.matched_line).toBe('IDLE-WAIT-DONE');
    subscriber.close();
    waiter.close();
  });
});

describe('shutdown', () => {
  it('a SIGTERM sent the moment the server says it is listening still shuts it down cleanly', async () => {
    // The line used to go out before the signal handlers were installed: a supervisor that
    // stopped the server on reading it killed it by the signal's default action instead.
    for (let i = 0; i < 10; i++) {
      const server = await new TestServer().start();
      expect(await server.stop()).toBe(0); // null: ended by the signal itself
    }
  });

  it('SIGTERM with 64 silent connections, refused half-open ones and a half line exits promptly', async () => {
    const server = await new TestServer().start();
    const sockets: Socket[] = [];
    for (let i = 0; i < 64; i++) sockets.push(await rawSocket(server.socketPath));
    // Refused clients that, like `nc`, never close their side after the server's end.
    for (let i = 0; i < 5; i++) sockets.push(await rawSocket(server.socketPath, { allowHalfOpen: true }));
    sockets[0]!.write('{"jsonrpc":"2.0","id":1,"method":"system.pi');
    // A shutdown that waited on any of them would hang past the test's timeout.
    expect(await server.stop()).toBe(0);
    sockets.forEach((socket) => socket.destroy());
  });
});

describe('max_panes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await new TestServer({ scripting: true, config: 'max_panes = 3\n' }).start();
  });
  afterAll(async () => {
    await server.stop();
  });

  it('creation beyond max_panes is invalid_params, by every way of creating a pane, and nothing is half-built', async () => {
    const created = await server.json(['workspace', 'create', '--cwd', server.home]);
    const root = created.result.root_pane.pane_id;
    const second = (await server.json(['pane', 'split', root, '--direction', 'right'])).result.pane.pane_id;
    const refusals = [
      ['pane', 'split', root, '--direction', 'down'],
      ['workspace', 'create', '--cwd', server.home],
      ['tab', 'create', '--workspace', created.result.workspace.workspace_id],
    ];
    // Two panes of three: one more fits, then every way is refused.
    await server.json(refusals[0]!);
    for (const args of refusals) {
      const result = await server.cli(args);
      expect(result.code, args.join(' ')).not.toBe(0);
      const error = JSON.parse(result.stderr).error;
      expect(error.code).toBe('invalid_params');
      expect(error.message).toBe('cannot create a pane: this server holds 3 of at most 3 (config key max_panes)');
    }
    const panes = async () => (await server.json(['pane', 'list'])).result.panes.length;
    expect(await panes()).toBe(3);

    // An up file that does not fit is refused whole: no workspace with some of its panes.
    await server.json(['pane', 'close', second]);
    const up = join(server.home, 'two.toml');
    writeFileSync(up, 'name = "two"\n[[panes]]\ncommand = "true"\n[[panes]]\ncommand = "true"\n');
    const refusedUp = await server.cli(['up', up]);
    expect(refusedUp.code).not.toBe(0);
    expect(JSON.parse(refusedUp.stderr).error.message).toBe('cannot create 2 panes: this server holds 2 of at most 3 (config key max_panes)');
    expect(await panes()).toBe(2);
    const workspaces = (await server.json(['workspace', 'list'])).result.workspaces;
    expect(workspaces).toHaveLength(1);
    // Room again after a close.
    expect((await server.cli(['pane', 'split', root, '--direction', 'down'])).code).toBe(0);
  });

  it('an invalid max_panes is a config error naming the key; the default (512) applies', async () => {
    const bad = await new TestServer({ config: 'max_panes = 0\n' }).start();
    try {
      expect(bad.stderr).toContain('key "max_panes" must be an integer between 1 and 65536, got 0');
    } finally {
      await bad.stop();
    }
  });
});

describe('malformed requests are -32600, not internal errors', () => {
  let server: TestServer;
  let client: RawClient;
  beforeAll(async () => {
    server = await new TestServer().start();
    client = await server.connect();
  });
  afterAll(async () => {
    client.close();
    await server.stop();
  });

  const invalid = (response: any) => {
    expect(response.error.code).toBe(-32600);
    expect(response.error.data.code).toBe('invalid_request');
    expect(response.id).toBeNull();
  };

  it('null and [null]', async () => {
    client.write('null\n');
    const single = await client.next();
    invalid(single);
    expect(single.error.message).toBe('invalid request: expected a JSON object, got null');
    client.write('[null]\n');
    const batch = await client.next();
    expect(Array.isArray(batch)).toBe(true);
    expect(batch).toHaveLength(1);
    invalid(batch[0]);
  });

  it('ids that are objects, arrays or booleans', async () => {
    for (const id of ['{}', '[1]', 'true', 'false']) {
      client.write(`{"jsonrpc":"2.0","id":${id},"method":"system.ping"}\n`);
      const response = await client.next();
      invalid(response);
      expect(response.error.message).toMatch(/^invalid request: "id" must be a string, a number or null, got an? (object|array|boolean)$/);
    }
  });

  it('a batch answers its good requests and refuses only its bad ones; the connection stays usable', async () => {
    client.write('[{"jsonrpc":"2.0","id":"a","method":"system.ping"},null,{"jsonrpc":"2.0","id":{"x":1},"method":"system.ping"}]\n');
    const batch = await client.next();
    expect(batch).toHaveLength(3);
    expect(batch.find((r: any) => r.id === 'a').result.pong).toBe(true);
    expect(batch.filter((r: any) => r.id === null && r.error?.code === -32600)).toHaveLength(2);
    expect((await client.call('system.ping')).pong).toBe(true);
  });
});

describe('a script sending text to a pane whose program reads nothing (issue 27)', () => {
  const reader = join(import.meta.dirname, '..', 'fixtures', 'apps', 'slow-reader.mjs');
  let server: TestServer;
  afterAll(async () => {
    await server?.stop();
  });

  it('is refused with pane_input_full at the bound, memory stays bounded, and all it accepted arrives in order once the program reads', async () => {
    server = await new TestServer({ scripting: true }).start();
    const pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
    const out = join(server.dir, 'read.bin');
    const go = join(server.dir, 'go');
    await server.cli(['pane', 'run', pane, `node ${reader} ${out} END-OF-TEXT 1 --wait-for ${go} --steady`]);
    expect((await server.cli(['pane', 'wait-output', pane, '--regex', '^READER-READY', '--timeout', '30000'])).code).toBe(0);
    const client = await server.connect();
    const rssBefore = rssMiB(server.pid!);
    // 64 KiB texts (the most send_text takes): 8 MiB is 128 of them.
    const text = (i: number) => `${String(i).padStart(6, '0')}:${'x'.repeat(64 * 1024 - 7)}`;
    const accepted: string[] = [];
    let refused: any = null;
    for (let i = 0; i < 200 && refused === null; i++) {
      const response = await client.request('pane.send_text', { pane_id: pane, text: text(i) });
      if (response.error) refused = response.error;
      else accepted.push(text(i));
    }
    expect(refused?.data?.code).toBe('pane_input_full');
    expect(refused.data.queued_bytes).toBeGreaterThanOrEqual(8 * 1024 * 1024);
    // What the kernel's pty buffers took, and the 8 MiB queue: no more.
    expect(accepted.length).toBeGreaterThanOrEqual(128);
    expect(accepted.length).toBeLessThan(140);
    expect(rssMiB(server.pid!) - rssBefore).toBeLessThan(60);
    // Still full: refused again, the CLI's exit 1.
    const cli = await server.cli(['pane', 'send-text', pane, 'more']);
    expect(cli.code).toBe(1);
    writeFileSync(go, '');
    const total = accepted.reduce((sum, t) => sum + t.length, 0);
    expect(await eventually(() => existsSync(out) && statSync(out).size >= total, 30_000)).toBe(true);
    await client.call('pane.send_text', { pane_id: pane, text: 'END-OF-TEXT' });
    expect((await server.cli(['pane', 'wait-output', pane, '--regex', '^READ-DONE', '--timeout', '60000'])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe(`${accepted.join('')}END-OF-TEXT`);
    client.close();
  });
});
