/**
 * A web view killed mid-stream (issue 42, item 3): a page's WebSocket cut off while it watches
 * a pane that is printing, and `corral web` itself killed with SIGKILL, twice, at seeded
 * moments of the stream. The server goes on (its fds come back to where they were before the
 * web view started), a restarted `corral web` still honours the session cookie (its store is
 * written atomically), and every stream a page gets is exact: a snapshot, then batches that
 * continue it with no line lost or doubled, ending on the same screen the server shows.
 * No browser: the page's side is a Node WebSocket with the cookie, speaking the page's protocol.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import NodeWebSocket from 'ws';
import xterm from '@xterm/headless';
import { TestServer } from '../integration/harness.js';
import { WebProcess } from './web-harness.js';

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;

/** Logs in with the one-time token the way the page does; the session cookie. */
async function login(web: WebProcess): Promise<string> {
  const res = await fetch(`${web.origin}/api/login`, { method: 'POST', headers: { Origin: web.origin, 'Content-Type': 'application/json' }, body: JSON.stringify({ token: web.token }) });
  expect(res.status).toBe(204);
  return /^[^;]+/.exec(res.headers.get('set-cookie') ?? '')![0];
}

/** One page watching one pane: the stream replayed into a terminal as the page's xterm.js would. */
class Watcher {
  readonly term = new xterm.Terminal({ cols: 80, rows: 24, scrollback: 100_000, allowProposedApi: true });
  batches = 0;
  snapshots = 0;
  private writes: Promise<void> = Promise.resolve();
  private constructor(readonly ws: NodeWebSocket) {}

  static open(web: WebProcess, cookie: string, pane: string): Promise<Watcher> {
    const ws = new NodeWebSocket(`${web.origin.replace('http', 'ws')}/ws`, { headers: { Origin: web.origin, Cookie: cookie } });
    const watcher = new Watcher(ws);
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw));
      if (m.t !== 'screen' || m.pane_id !== pane) return;
      if (m.kind === 'snapshot') {
        watcher.snapshots++;
        watcher.term.resize(m.cols, m.rows);
        watcher.write(m.data);
      } else if (m.kind === 'output') {
        watcher.batches++;
        watcher.write(Buffer.from(m.data, 'base64'));
      } else if (m.kind === 'resize') watcher.term.resize(m.cols, m.rows);
    });
    return new Promise((resolve, reject) => {
      ws.once('open', () => {
        ws.send(JSON.stringify({ t: 'watch', pane }));
        resolve(watcher);
      });
      ws.once('unexpected-response', (_req, res) => reject(new Error(`WebSocket refused: ${res.statusCode}`)));
      ws.once('error', reject);
    });
  }

  private write(data: string | Uint8Array): void {
    this.writes = this.writes.then(() => new Promise<void>((done) => this.term.write(data, done)));
  }

  /** Every line of the replayed terminal, scrollback included, once the writes so far are parsed. */
  async lines(): Promise<string[]> {
    await this.writes;
    const buffer = this.term.buffer.active;
    const out: string[] = [];
    for (let y = 0; y < buffer.length; y++) out.push(buffer.getLine(y)!.translateToString(true));
    return out;
  }

  /** The visible screen, as `pane read` gives it. */
  async screen(): Promise<string[]> {
    const all = await this.lines();
    return all.slice(this.term.buffer.active.baseY, this.term.buffer.active.baseY + this.term.rows);
  }

  async until(check: (w: Watcher) => Promise<boolean> | boolean, what: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check(this))) {
      if (Date.now() > deadline) throw new Error(`waited ${timeoutMs} ms for ${what}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}

/** The numbered lines a stream showed must run on without a gap or a repeat. */
function numbered(lines: string[]): number[] {
  return lines.flatMap((line) => {
    const m = /^WL-(\d+)$/.exec(line.trimEnd());
    return m ? [Number(m[1])] : [];
  });
}

function expectConsecutive(ns: number[], what: string): void {
  for (let i = 1; i < ns.length; i++) if (ns[i] !== ns[i - 1]! + 1) throw new Error(`${what}: WL-${ns[i - 1]} then WL-${ns[i]}`);
}

describe('a web view killed mid-stream', () => {
  let server: TestServer;
  let pane = '';
  const webs: WebProcess[] = [];

  beforeAll(async () => {
    // The gate open, so this test's CLI can start the output (what a person would type).
    server = await new TestServer({ scripting: true }).start();
    pane = (await server.json(['workspace', 'create', '--cwd', server.home])).result.root_pane.pane_id;
  }, 30_000);
  afterAll(async () => {
    for (const web of webs) await web.stop();
    await server?.stop();
  });

  it('loses nothing and leaks nothing when a page is cut off or corral web is killed, at seeded moments', async () => {
    const baseline = fds(server.pid!);
    // The moments (in batches seen) at which round k cuts: a page's socket, then corral web, twice.
    const cuts = fc.sample(fc.integer({ min: 1, max: 12 }), { seed: 4202, numRuns: 4 });
    let web = await WebProcess.start(server);
    webs.push(web);
    const cookie = await login(web);
    const total = 2500;
    await server.json(['pane', 'run', pane, `for i in $(seq 1 ${total}); do echo WL-$i; [ $((i % 50)) = 0 ] && sleep 0.05; done; echo WEB-END-$((6*7))`]);
    let watcher = await Watcher.open(web, cookie, pane);
    for (const [round, after] of cuts.entries()) {
      await watcher.until((w) => w.batches >= after, `${after} batches in round ${round}`);
      expectConsecutive(numbered(await watcher.lines()), `round ${round}'s stream`);
      if (round % 2 === 0) {
        // The page goes away with no close frame: a phone that lost its network.
        watcher.ws.terminate();
      } else {
        await web.kill('SIGKILL');
        web = await WebProcess.start(server);
        webs.push(web);
      }
      // The cookie still opens a socket (the store survived), and a new watch starts from a snapshot.
      watcher = await Watcher.open(web, cookie, pane);
      await watcher.until((w) => w.snapshots === 1, `round ${round}'s snapshot`);
      expect(server.alive).toBe(true);
    }
    await watcher.until(async (w) => (await w.lines()).some((l) => l.includes('WEB-END-42')), 'the end of the output', 60_000);
    expectConsecutive(numbered(await watcher.lines()), 'the last stream');
    // The page's screen is the server's screen.
    const rpc = await server.connect();
    const read = (await rpc.call('pane.read', { pane_id: pane, source: 'visible' })).read.text.split('\n');
    rpc.close();
    expect((await watcher.screen()).map((l) => l.trimEnd()).join('\n').trimEnd()).toBe(read.map((l: string) => l.trimEnd()).join('\n').trimEnd());
    watcher.ws.close();
    await web.stop();
    // Every connection of every corral web, killed or stopped, is gone from the server.
    const deadline = Date.now() + 10_000;
    while (fds(server.pid!) > baseline && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(fds(server.pid!)).toBeLessThanOrEqual(baseline);
    // And it still serves.
    expect((await server.json(['pane', 'list'])).result.panes.length).toBeGreaterThan(0);
  }, 90_000);
});
