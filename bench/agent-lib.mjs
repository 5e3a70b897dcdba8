/**
 * Shared pieces of the agent benchmarks (agent-detection, agent-cpu, agent-prompt): a
 * sandboxed server whose panes find the fake `claude` (bench/fixtures/fake-claude) first on
 * PATH, a raw NDJSON JSON-RPC client for the server socket, and a client for the fake's
 * control socket. Not a benchmark itself (not in BENCHES).
 */
import { connect } from 'node:net';
import { join } from 'node:path';
import { CorralServer, ROOT, median, percentile, round, sleep, maxOf, minOf } from './lib.mjs';

export const FAKE_DIR = join(ROOT, 'bench', 'fixtures', 'fake-claude');

/** A `corral server --scripting` whose panes run the fake claude for `claude`. */
export function agentServer() {
  const server = new CorralServer();
  server.env.PATH = `${FAKE_DIR}:${server.env.PATH}`;
  return server;
}

/** Starts the fake claude as a named agent in a fresh workspace; returns {pane, name, control}. */
export async function startFakeAgent(server, name, { spinnerMs = 120, workMs = 1000 } = {}) {
  const pane = await server.newWorkspacePane();
  const control = join(server.dir, `${name}.ctl`);
  const r = await server.json(
    ['agent', 'start', name, '--kind', 'claude', '--pane', pane, '--timeout', '20000', '--', '--control', control, '--spinner-ms', String(spinnerMs), '--work-ms', String(workMs)],
    { timeoutMs: 30_000 },
  );
  const agent = r.result.agent;
  if (agent.kind !== 'claude') throw new Error(`expected a claude agent in ${pane}, got ${JSON.stringify(agent)}`);
  return { pane, name, control, agent };
}

/**
 * Runs `command` in a pane over a held socket and waits for it to end: it prints a marker
 * (`DONE-tag`, assembled by printf so the echoed command line never matches it).
 */
export async function runAndWait(rpc, pane, command, tag, timeoutMs = 120_000) {
  await rpc.call('pane.run', { pane_id: pane, command: `${command}; printf '%s-%s\\n' DONE ${tag}` });
  await rpc.call('pane.wait_for_output', { pane_id: pane, match: { type: 'substring', value: `DONE-${tag}` }, timeout_ms: timeoutMs }, timeoutMs + 5000);
}

/** Line-oriented socket client; every parsed line is stamped with its arrival time. */
class LineClient {
  constructor(socket) {
    this.socket = socket;
    this.buffer = '';
    this.inbox = [];
    this.waiters = [];
    this.listeners = [];
    this.closed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      const at = Date.now();
      this.buffer += chunk;
      let nl;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        if (!line.trim()) continue;
        const msg = JSON.parse(line);
        Object.defineProperty(msg, 'receivedAt', { value: at, enumerable: false });
        for (const l of this.listeners) l(msg);
        this.inbox.push(msg);
      }
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => {});
  }

  static open(path) {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new this(socket)));
      socket.once('error', reject);
    });
  }

  wake() {
    const w = this.waiters;
    this.waiters = [];
    w.forEach((f) => f());
  }

  /** Next message matching `pred` (removed from the inbox); throws after timeoutMs. */
  async next(pred = () => true, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.inbox.findIndex(pred);
      if (i !== -1) return this.inbox.splice(i, 1)[0];
      if (this.closed) throw new Error('connection closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a message');
      await new Promise((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Drops everything received so far. */
  drain() {
    const old = this.inbox;
    this.inbox = [];
    return old;
  }

  write(text) {
    this.socket.write(text);
  }

  close() {
    this.socket.destroy();
  }
}

/** JSON-RPC over the server's NDJSON socket. */
export class RpcClient extends LineClient {
  nextId = 1;

  async call(method, params, timeoutMs = 60_000) {
    const id = this.nextId++;
    this.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    const res = await this.next((m) => m.id === id, timeoutMs);
    if (res.error) throw Object.assign(new Error(`${method}: ${res.error.code ?? ''} ${res.error.message}`), { rpc: res.error, receivedAt: res.receivedAt });
    return { result: res.result, receivedAt: res.receivedAt };
  }

  /** Events arrive as notifications; returns the event with its arrival time. */
  async nextEvent(pred, timeoutMs) {
    const m = await this.next((msg) => msg.id === undefined && msg.params && typeof msg.params.type === 'string' && pred(msg.params), timeoutMs);
    return { event: m.params, receivedAt: m.receivedAt };
  }

  drainEvents() {
    const kept = [];
    const dropped = [];
    for (const m of this.inbox) (m.id === undefined ? dropped : kept).push(m);
    this.inbox = kept;
    return dropped.map((m) => m.params);
  }
}

/** The fake's control socket: send "idle"/"working"/"blocked", receive switch reports. */
export class FakeControl extends LineClient {
  /** Switches the fake and returns its report ({state, t, …}: t = just before the one write). */
  async switchTo(state, timeoutMs = 5000) {
    this.write(state + '\n');
    return this.next((m) => m.event === 'switch' && m.state === state && m.cause === 'control', timeoutMs);
  }

  /** The next switch report matching `pred` (e.g. the idle after a prompt's turn). */
  nextSwitch(pred, timeoutMs = 10_000) {
    return this.next((m) => m.event === 'switch' && pred(m), timeoutMs);
  }

  /** Connects, retrying while the fake is still creating its socket. */
  static async connectTo(path, timeoutMs = 10_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        return await this.open(path);
      } catch (e) {
        if (Date.now() > deadline) throw e;
        await sleep(50);
      }
    }
  }
}

/** p50/p95/max/mean of a list of ms values, rounded. */
export function stats(values) {
  if (values.length === 0) return { n: 0, p50: NaN, p95: NaN, max: NaN, min: NaN };
  return {
    n: values.length,
    p50: round(median(values), 1),
    p95: round(percentile(values, 95), 1),
    max: round(maxOf(values), 1),
    min: round(minOf(values), 1),
  };
}

/** A status the canonical vocabulary reports for "the screen shows idle" (unseen idle is done). */
export function isIdleStatus(status) {
  return status === 'idle' || status === 'done';
}
