/**
 * A seeded RPC fuzzer over the method table (issue 42): every method of
 * src/contract/methods.ts, with params of the declared shape holding hostile values
 * (bounds ± 1, ids of things that exist and of things just closed, control bytes, long
 * strings) and params of every wrong shape, in random sequences on several connections at
 * once, with connections that come and go, attached clients, protocol garbage and
 * over-long lines. It checks what the contract promises (SPEC §3):
 * - every request gets one JSON-RPC answer, within its own wait plus a margin;
 * - an error carries a documented `data.code` (errors.ts), never `internal_error`, with the
 *   numeric code that goes with it;
 * - the server closes a connection only for a documented reason (the line bound, a client
 *   that attached: its socket carries frames from then on);
 * - the server never dies, and its fds and RSS come back near the start once the panes it
 *   made are closed.
 * The same code runs a few thousand calls in the suite (test/integration/rpc-fuzz.test.ts)
 * and as long as asked with new seeds from `npm run fuzz` (bench/fuzz.mjs).
 */
import fc from 'fast-check';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { BOUNDS } from '../../src/contract/bounds.js';
import { ERROR_CODES, rpcCodeFor, type ErrorCode } from '../../src/contract/errors.js';
import { LIMITS } from '../../src/contract/limits.js';
import { METHODS } from '../../src/contract/methods.js';
import { readMethodShapes, type PropShape, type Shape } from './method-shapes.js';

/** Codes a server may answer with: every documented one but the failure and the CLI's own. */
export const SERVER_ERROR_CODES: ReadonlySet<string> = new Set<ErrorCode>(ERROR_CODES.filter((c) => c !== 'internal_error' && c !== 'server_not_running' && c !== 'unsafe_socket_dir'));

/** How the fuzzer is bounded; the suite's run and the bench's differ only here. */
export interface FuzzOptions {
  seed: number;
  /** Actions to run (a call, a reconnect, an attach, a garbage line…). */
  actions: number;
  /** Connections used at once. */
  connections?: number;
  /** Requests outstanding at once, over all connections. */
  inFlight?: number;
  /** Panes kept at most (more are closed as the run goes). */
  maxPanes?: number;
  /** A directory the fuzzer may name as a cwd: panes start there, a git repository is made in it. */
  sandbox: string;
  log?: (line: string) => void;
}

export interface FuzzReport {
  seed: number;
  actions: number;
  /** Requests sent that expected an answer. */
  calls: number;
  ms: number;
  /** Answers by `data.code` (`ok` for results). */
  codes: Record<string, number>;
  /** Methods that answered a result at least once. */
  methodsWithResult: string[];
  failures: string[];
  baseline: ProcessSample;
  after: ProcessSample;
}

export interface ProcessSample {
  rssMiB: number;
  fds: number;
}

/** A live server's RSS and open fds, from /proc. */
export function sampleProcess(pid: number): ProcessSample {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  return { rssMiB: Math.round(rss * 10) / 10, fds: readdirSync(`/proc/${pid}/fd`).length };
}

// ---------------------------------------------------------------------------
// Values.

/** A value taken from what the server answered so far (ids that exist, or existed): resolved when sent. */
class PoolPick {
  constructor(
    readonly pool: string,
    readonly n: number,
  ) {}
}

/** The pools results are harvested into: a result's key → the pool its values go to. */
const HARVEST: Record<string, string> = {
  pane_id: 'pane',
  root_pane_id: 'pane',
  tab_id: 'tab',
  workspace_id: 'workspace',
  client_id: 'client',
  surface_id: 'surface',
  agent_name: 'agent',
};

/** Strings that have broken parsers elsewhere, or mean something to corral's selectors and paths. */
const NASTY_STRINGS = [
  '', ' ', '\t', '0', '-1', '1', '01', '1e3', 'null', 'true', '__proto__', 'constructor', 'hasOwnProperty',
  '../../etc/passwd', '/', '.', '~', '$HOME', '`id`', '$(id)', '%s%n%x', '\u0000', 'a\u0000b', '\u001b[2J\u001b[H', '\u001b]0;t\u0007', '\u009b31m',
  '\u202e\u2066', '\ud800', '\udfff', '😀👩‍👩‍👧', 'ǅ', 'ﷺ', '\uFEFF', 'ß'.repeat(40), 'x'.repeat(300), 'y'.repeat(9000),
  '*', '?', '[', '(', '(a+)+$', '(?<x>a)\\k<x>', '\\', '.*', '^$', 'agent:', 'agent:claude', 'pane:', 'w1', 'w1:p1', 'w1:t1:p1', 'build/w1:p2', '@1', '%1', ':', 'claude', 'generic',
];

/** Anything JSON can hold, small: for params of the wrong shape. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

const nastyString = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 24 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 24 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 24 }) },
);

/** Numbers around every declared bound, and the ones JSON and JavaScript disagree on. */
const BOUND_VALUES = Object.values(BOUNDS).flatMap((r) => [r.min - 1, r.min, r.max, r.max + 1, r.min + 0.5]);
const nastyNumber = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -3, max: 120 }) },
  { weight: 3, arbitrary: fc.constantFrom(...BOUND_VALUES, 0, -0, -1, 0.5, 1e-9, 1e308, -1e308, 2 ** 31, 2 ** 32, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER) },
  { weight: 1, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
);

/** Text that reaches a pane's input: never an Enter, nor a readline key that runs the line (the fuzzer runs as root). */
function typed(text: string): string {
  return text.replace(/[\r\n\u000f\u0018\u001b]/g, '');
}

/** Commands a pane may run: harmless ones, some printing escape sequences, one flooding briefly. */
const SAFE_COMMANDS = ['true', 'echo fuzz', 'exit 3', 'sleep 0.3', "printf '\\033[31mred\\033[0m\\033[?1049h\\033[2J'", 'seq 1 3000', 'cat /dev/null', 'printf "\\033]0;title\\007"', ''];

function pick(pool: string): fc.Arbitrary<PoolPick> {
  return fc.nat(1000).map((n) => new PoolPick(pool, n));
}

/**
 * Values for a param by its name, where the name says more than its type: ids from the
 * pools, bounded waits (a valid `timeout_ms` is short, or the run would only wait), paths
 * inside the sandbox only, commands from a harmless list.
 */
function namedValue(name: string, method: string, sandbox: string): fc.Arbitrary<unknown> | null {
  const withNasty = (a: fc.Arbitrary<unknown>) => fc.oneof({ weight: 6, arbitrary: a }, { weight: 1, arbitrary: nastyString }, { weight: 1, arbitrary: anyJson });
  switch (name) {
    case 'pane_id':
    case 'other_pane_id':
      return withNasty(pick('pane'));
    case 'tab_id':
    case 'tab':
      return withNasty(pick('tab'));
    case 'workspace_id':
    case 'workspace':
      return withNasty(pick('workspace'));
    case 'client_id':
      return withNasty(pick('client'));
    case 'target':
      return withNasty(fc.oneof(pick('pane'), pick('surface'), pick('agent'), fc.constantFrom('1', '2', 'agent:claude', 'agent:generic', 'focused')));
    case 'timeout_ms': {
      // Never null: null is no timeout, and a wait for a line that never comes is a wait forever.
      const valid = method === 'agent.start' ? fc.integer({ min: BOUNDS.agentStartTimeoutMs.min, max: BOUNDS.agentStartTimeoutMs.min + 300 }) : fc.integer({ min: 0, max: 300 });
      return fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: fc.constantFrom(-1, 1.5, '100', 2 ** 31, 1e20, BOUNDS.agentStartTimeoutMs.min - 1) });
    }
    case 'cwd':
    case 'repo':
      return fc.constantFrom(sandbox, join(sandbox, 'repo'), join(sandbox, 'repo', 'sub'), join(sandbox, 'missing'), 'relative/dir', '', '/dev/null', '/proc/self', '/');
    case 'cols':
    case 'rows':
      // The protocol takes up to 2000 a side; a pane that size costs seconds a read, so it is rare.
      return fc.oneof({ weight: 12, arbitrary: fc.integer({ min: 1, max: 250 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -1, 1.5, 2000, 2001, '80', null) });
    case 'tty':
      return fc.constantFrom('/dev/pts/999', '', 'x', '/dev/null');
    case 'command':
      return fc.constantFrom(...SAFE_COMMANDS);
    case 'kind':
    case 'agent':
      // A known kind types its own executable (none is installed here): it waits out its timeout.
      return method === 'agent.start' ? fc.oneof(fc.constantFrom('claude', 'codex', 'generic', 'nope'), nastyString) : nastyString;
    case 'text':
    case 'data':
    case 'prompt':
    case 'answer':
      return fc.oneof(nastyString, fc.string({ maxLength: 2000 })).map(typed);
    case 'keys':
      return fc.array(fc.oneof(fc.constantFrom('Enter', 'C-c', 'Up', 'F13', 'x', 'Escape', 'C-Space'), nastyString), { maxLength: 4 });
    case 'args':
      return fc.array(nastyString.map(typed), { maxLength: 3 });
    default:
      return null;
  }
}

function valueOf(shape: Shape, name: string, method: string, sandbox: string, depth: number): fc.Arbitrary<unknown> {
  const named = namedValue(name, method, sandbox);
  if (named) return named;
  switch (shape.kind) {
    case 'string':
      return nastyString;
    case 'number':
      return nastyNumber;
    case 'literal':
      return fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...shape.values) }, { weight: 1, arbitrary: nastyString });
    case 'array':
      return fc.array(valueOf(shape.of, name, method, sandbox, depth + 1), { maxLength: name === 'panes' ? 3 : 4 });
    case 'record':
      return fc.dictionary(nastyString, valueOf(shape.of, '', method, sandbox, depth + 1), { maxKeys: 3 });
    case 'object':
      return objectOf(shape.props, method, sandbox, depth + 1);
    case 'union': {
      // A union of literals (statuses) and arrays of them: each member as likely.
      return fc.oneof(...shape.of.map((s) => valueOf(s, name, method, sandbox, depth + 1)));
    }
    case 'any':
      return anyJson;
  }
}

/** An object of the declared props: required ones always, optional ones sometimes; waits always bounded. */
function objectOf(props: PropShape[], method: string, sandbox: string, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const prop of props) model[prop.name] = valueOf(prop.shape, prop.name, method, sandbox, depth);
  const required = props.filter((p) => !p.optional || p.name === 'timeout_ms').map((p) => p.name);
  return fc.record(model, { requiredKeys: required });
}

/** Params of a wrong shape: not an object, a param of another type, a required one missing, extra ones. */
function wrongShape(props: PropShape[]): fc.Arbitrary<unknown> {
  const names = props.map((p) => p.name);
  const options: fc.Arbitrary<unknown>[] = [fc.constantFrom([], [1, 2], 'params', 42, true, null), fc.dictionary(nastyString, anyJson, { maxKeys: 4 })];
  if (names.length > 0) options.push(fc.tuple(fc.constantFrom(...names), anyJson).map(([name, value]) => ({ [name]: value })));
  return fc.oneof(...options);
}

// ---------------------------------------------------------------------------
// Actions.

type Action =
  | { kind: 'call'; conn: number; method: string; params: unknown; wait: boolean }
  | { kind: 'reconnect'; conn: number }
  | { kind: 'attach'; params: unknown; holdMs: number }
  | { kind: 'raw'; line: string }
  | { kind: 'oversize' }
  | { kind: 'unknown-method'; conn: number; method: string };

/** Raw lines a careless or hostile client sends: each gets at most one error line, with id null. */
const RAW_LINES = [
  '{', 'null', '[]', '[1,2]', '"x"', '{"jsonrpc":"2.0"}', '{"jsonrpc":"1.0","id":1,"method":"system.ping"}', '{"jsonrpc":"2.0","id":{"a":1},"method":"system.ping"}',
  '{"jsonrpc":"2.0","id":1,"method":"pane.get","params":{"__proto__":{"pane_id":"p1"}}}', '{"jsonrpc":"2.0","id":1,"method":"__proto__"}', '{"jsonrpc":"2.0","id":1,"method":"constructor"}',
  '{"jsonrpc":"2.0","id":1,"method":"system.ping","params":[]}', '\u0000\u0000', '\ufeff{"jsonrpc":"2.0","id":1,"method":"system.ping"}', '{"jsonrpc":"2.0","method":"system.ping"}', '   ',
  '[{"jsonrpc":"2.0","id":1,"method":"system.ping"},{"jsonrpc":"2.0","id":2,"method":"nope"},5]',
];

function actionArbitrary(shapes: Map<string, Shape>, sandbox: string, connections: number): fc.Arbitrary<Action> {
  const methods = [...shapes.keys()];
  const conn = fc.nat(connections - 1);
  const rightShaped = fc.constantFrom(...methods).chain((method) => {
    const shape = shapes.get(method)!;
    const params = shape.kind === 'object' ? objectOf(shape.props, method, sandbox, 0) : anyJson;
    return fc.record({ kind: fc.constant('call' as const), conn, method: fc.constant(method), params, wait: fc.boolean() });
  });
  const wrongShaped = fc.constantFrom(...methods).chain((method) => {
    const shape = shapes.get(method)!;
    return fc.record({ kind: fc.constant('call' as const), conn, method: fc.constant(method), params: wrongShape(shape.kind === 'object' ? shape.props : []), wait: fc.boolean() });
  });
  const attachShape = shapes.get('client.attach');
  return fc.oneof(
    { weight: 60, arbitrary: rightShaped },
    { weight: 22, arbitrary: wrongShaped },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('reconnect' as const), conn }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('attach' as const), params: attachShape?.kind === 'object' ? objectOf(attachShape.props, 'client.attach', sandbox, 0) : anyJson, holdMs: fc.integer({ min: 0, max: 300 }) }) },
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('raw' as const), line: fc.oneof(fc.constantFrom(...RAW_LINES), fc.string({ unit: 'binary', maxLength: 60 }).map((s) => s.replace(/\n/g, ''))) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'oversize' as const }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('unknown-method' as const), conn, method: fc.oneof(nastyString, fc.constantFrom('system.pingx', 'pane', 'ai.stop', 'events.event', 'system.')) }) },
  );
}

// ---------------------------------------------------------------------------
// The client.

interface Answer {
  id: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: { code?: string } };
}

/** A connection to the server that matches answers to requests and notices how it was closed. */
class FuzzConnection {
  private buffer = '';
  private readonly pending = new Map<number, (answer: Answer | null) => void>();
  /** Answers with id null (parse errors, invalid requests). */
  readonly orphans: Answer[] = [];
  private nextId = 1;
  closedByUs = false;
  /** The server closed it: fine after an over-long line or an attach; a failure otherwise. */
  closedByServer = false;
  /** Once a client attached, the socket carries binary frames, not JSON. */
  framed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (chunk) => this.onData(chunk));
    socket.on('close', () => {
      if (!this.closedByUs) this.closedByServer = true;
      for (const settle of this.pending.values()) settle(null);
      this.pending.clear();
    });
    socket.on('error', () => {});
  }

  static open(path: string): Promise<FuzzConnection> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      socket.once('connect', () => resolve(new FuzzConnection(socket)));
      socket.once('error', reject);
    });
  }

  private onData(chunk: Buffer): void {
    if (this.framed) return;
    this.buffer += chunk.toString('utf8');
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline);
      this.buffer = this.buffer.slice(newline + 1);
      if (!line.trim()) continue;
      let message: Answer & { method?: string };
      try {
        message = JSON.parse(line);
      } catch {
        // After an attach's reply the frames begin; anything else unparsable is the server's fault.
        if (this.pending.size === 0 && this.attachAnswered) {
          this.framed = true;
          return;
        }
        this.orphans.push({ id: 'unparsable', error: { code: 0, message: line.slice(0, 200) } });
        continue;
      }
      if (message.method !== undefined && message.id === undefined) continue; // a notification
      if (typeof message.id === 'number' && this.pending.has(message.id)) {
        const settle = this.pending.get(message.id)!;
        this.pending.delete(message.id);
        settle(message);
      } else this.orphans.push(message);
    }
  }

  attachAnswered = false;

  /** Sends a request; resolves with its answer, or null when the connection closed first or `deadlineMs` passed. */
  request(method: string, params: unknown, deadlineMs: number): { id: number; answer: Promise<Answer | 'closed' | 'timeout'> } {
    const id = this.nextId++;
    const answer = new Promise<Answer | 'closed' | 'timeout'>((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve('timeout');
      }, deadlineMs);
      this.pending.set(id, (a) => {
        clearTimeout(timer);
        resolve(a ?? 'closed');
      });
    });
    this.socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
    return { id, answer };
  }

  get alive(): boolean {
    return !this.socket.destroyed;
  }

  close(): void {
    this.closedByUs = true;
    this.socket.destroy();
  }
}

// ---------------------------------------------------------------------------
// The run.

/** How long past its own wait a request may take before it counts as unanswered. */
const ANSWER_MARGIN_MS = 20_000;
/** How long the server gets to give back fds and memory once the fuzzer's panes and connections are gone (its collections are ≥ 10 s apart). */
const SETTLE_MS = 20_000;
/** fds and RSS the server may keep past its start once everything the fuzzer made is gone. */
export const RETURN_SLACK = { fds: 6, rssMiB: 96 } as const;

/** Makes the sandbox the fuzzer names as cwds: a git repository with one commit, a subfolder. */
export function prepareSandbox(dir: string): void {
  mkdirSync(join(dir, 'repo', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'repo', 'README'), 'fuzz\n');
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.email=f@z', '-c', 'user.name=fuzz', ...args], { cwd: join(dir, 'repo'), stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  git('add', '.');
  git('commit', '-q', '-m', 'init');
}

/** Runs the fuzzer against the server listening on `socketPath` (pid `pid`) and reports what broke. */
export async function fuzzServer(socketPath: string, pid: number, options: FuzzOptions): Promise<FuzzReport> {
  const log = options.log ?? (() => {});
  const connectionCount = options.connections ?? 3;
  const maxInFlight = options.inFlight ?? 8;
  const maxPanes = options.maxPanes ?? 8;
  const shapes = readMethodShapes();
  const missing = METHODS.filter((m) => !shapes.has(m));
  const failures: string[] = missing.map((m) => `${m}: in the table but its params shape was not read`);
  const codes: Record<string, number> = {};
  const withResult = new Set<string>();
  const pools = new Map<string, unknown[]>();
  const baseline = sampleProcess(pid);

  const resolve = (value: unknown): unknown => {
    if (value instanceof PoolPick) {
      const pool = pools.get(value.pool) ?? [];
      return pool.length === 0 ? `${value.pool}-none` : pool[value.n % pool.length];
    }
    if (Array.isArray(value)) return value.map(resolve);
    if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v)]));
    return value;
  };
  const harvest = (value: unknown, key = ''): void => {
    if (Array.isArray(value)) value.forEach((v) => harvest(v, key));
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) harvest(v, k);
    else if ((typeof value === 'string' || typeof value === 'number') && HARVEST[key]) {
      const pool = pools.get(HARVEST[key]!) ?? [];
      if (!pool.includes(value)) pool.push(value);
      if (pool.length > 200) pool.shift();
      pools.set(HARVEST[key]!, pool);
    }
  };
  const check = (method: string, where: string, answer: Answer | 'closed' | 'timeout', conn: FuzzConnection): void => {
    if (answer === 'timeout') return void failures.push(`${where}: no answer`);
    if (answer === 'closed') {
      if (!conn.closedByUs) failures.push(`${where}: the server closed the connection before answering`);
      return;
    }
    if (answer.error) {
      const code = answer.error.data?.code ?? `numeric ${answer.error.code}`;
      codes[code] = (codes[code] ?? 0) + 1;
      if (!SERVER_ERROR_CODES.has(code)) failures.push(`${where}: error code ${code}: ${answer.error.message.slice(0, 300)}`);
      else if (answer.error.code !== rpcCodeFor(code as ErrorCode)) failures.push(`${where}: ${code} travels with ${answer.error.code}, not ${rpcCodeFor(code as ErrorCode)}`);
    } else if (!('result' in answer)) failures.push(`${where}: an answer with neither result nor error`);
    else {
      codes.ok = (codes.ok ?? 0) + 1;
      withResult.add(method);
      harvest(answer.result);
    }
  };

  const conns: FuzzConnection[] = [];
  for (let i = 0; i < connectionCount; i++) conns.push(await FuzzConnection.open(socketPath));
  const control = await FuzzConnection.open(socketPath);
  const controlCall = async (method: string, params?: unknown): Promise<any> => {
    const answer = await control.request(method, params, 30_000).answer;
    if (answer === 'closed' || answer === 'timeout' || answer.error) throw new Error(`control ${method}: ${JSON.stringify(answer)}`);
    harvest(answer.result);
    return answer.result;
  };
  const outstanding = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    outstanding.add(p);
    void p.finally(() => outstanding.delete(p));
  };
  const throwaways: FuzzConnection[] = [];
  let calls = 0;
  const started = performance.now();
  await controlCall('workspace.create', { cwd: options.sandbox, focus: false });

  const actions = fc.sample(actionArbitrary(shapes, options.sandbox, connectionCount), { seed: options.seed, numRuns: options.actions });
  for (const [index, action] of actions.entries()) {
    const where = (what: string) => `seed ${options.seed} action ${index} ${what}`;
    while (outstanding.size >= maxInFlight) await Promise.race(outstanding);
    switch (action.kind) {
      case 'call':
      case 'unknown-method': {
        let conn = conns[action.conn]!;
        if (!conn.alive) {
          if (!conn.closedByUs) failures.push(where(`connection ${action.conn} was closed by the server`));
          conn = conns[action.conn] = await FuzzConnection.open(socketPath);
        }
        const params = action.kind === 'call' ? resolve(action.params) : undefined;
        const method = action.method;
        if (method === 'client.attach') break; // on its own connection (attach), or this one would carry frames
        const own = (params as { timeout_ms?: unknown } | null)?.timeout_ms;
        const wait = typeof own === 'number' && own >= 0 && own <= 310_000 ? own : 0;
        calls++;
        const sent = conn.request(method, params, wait + ANSWER_MARGIN_MS);
        const text = `${method} ${JSON.stringify(params)?.slice(0, 300)}`;
        const done = sent.answer.then((answer) => check(method, where(text), answer, conn));
        if (action.kind === 'call' && action.wait) await done;
        else track(done);
        break;
      }
      case 'reconnect':
        conns[action.conn]!.close();
        conns[action.conn] = await FuzzConnection.open(socketPath);
        break;
      case 'attach': {
        const conn = await FuzzConnection.open(socketPath);
        throwaways.push(conn);
        calls++;
        const sent = conn.request('client.attach', resolve(action.params), ANSWER_MARGIN_MS);
        track(
          sent.answer.then(async (answer) => {
            if (answer !== 'closed' && answer !== 'timeout' && !answer.error) conn.attachAnswered = true;
            check('client.attach', where(`client.attach ${JSON.stringify(action.params).slice(0, 200)}`), answer, conn);
            await new Promise((r) => setTimeout(r, action.holdMs));
            conn.close();
          }),
        );
        break;
      }
      case 'raw': {
        const conn = await FuzzConnection.open(socketPath);
        calls++;
        conn.socket.write(action.line + '\n');
        const answer = await conn.request('system.ping', undefined, ANSWER_MARGIN_MS).answer;
        check('system.ping', where(`system.ping after the raw line ${JSON.stringify(action.line)}`), answer, conn);
        for (const orphan of conn.orphans) if (orphan.error) check('raw', where(`the raw line ${JSON.stringify(action.line)}`), orphan, conn);
        conn.close();
        break;
      }
      case 'oversize': {
        const conn = await FuzzConnection.open(socketPath);
        conn.socket.write(`{"jsonrpc":"2.0","id":1,"method":"system.ping","params":{"x":"${'z'.repeat(LIMITS.maxLineBytes)}"}}\n`);
        const closed = await new Promise<boolean>((r) => {
          const timer = setTimeout(() => r(false), ANSWER_MARGIN_MS);
          conn.socket.once('close', () => {
            clearTimeout(timer);
            r(true);
          });
        });
        if (!closed) failures.push(where('an over-long line left the connection open'));
        else if (!conn.orphans.some((o) => o.error?.data?.code === 'invalid_request')) failures.push(where('an over-long line was not answered invalid_request before the close'));
        conn.closedByUs = true;
        break;
      }
    }
    // Keep the pane count bounded: a fuzzer that only makes panes measures pty spawns.
    if (index % 40 === 39) {
      await Promise.all(outstanding);
      const { panes } = await controlCall('pane.list');
      for (const pane of (panes as { pane_id: string }[]).slice(0, Math.max(0, panes.length - maxPanes))) await control.request('pane.close', { pane_id: pane.pane_id }, 30_000).answer;
      const ping = await control.request('system.ping', undefined, 30_000).answer;
      if (ping === 'closed' || ping === 'timeout') {
        failures.push(where(`the server stopped answering (${ping})`));
        break;
      }
      if (panes.length < 2) await controlCall('workspace.create', { cwd: options.sandbox, focus: false });
      log(`${index + 1}/${actions.length} actions, ${calls} calls, ${failures.length} failures, ${panes.length} panes, RSS ${sampleProcess(pid).rssMiB} MiB`);
    }
  }
  await Promise.all(outstanding);
  const ms = performance.now() - started;
  for (const [i, conn] of conns.entries()) if (conn.closedByServer && !conn.framed) failures.push(`seed ${options.seed}: connection ${i} was closed by the server`);
  for (const conn of conns) for (const orphan of conn.orphans) failures.push(`seed ${options.seed}: an answer nobody asked for: ${JSON.stringify(orphan).slice(0, 300)}`);

  // Everything it made goes: its workspaces (and their panes), its connections.
  const { workspaces } = await controlCall('workspace.list');
  for (const workspace of workspaces as { workspace_id: string }[]) await control.request('workspace.close', { workspace_id: workspace.workspace_id }, 30_000).answer;
  for (const conn of [...conns, ...throwaways]) conn.close();
  control.close();
  let after = sampleProcess(pid);
  const deadline = Date.now() + SETTLE_MS;
  const returned = (s: ProcessSample) => s.fds <= baseline.fds + RETURN_SLACK.fds && s.rssMiB <= baseline.rssMiB + RETURN_SLACK.rssMiB;
  while (!returned(after) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    after = sampleProcess(pid);
  }
  if (after.fds > baseline.fds + RETURN_SLACK.fds) failures.push(`seed ${options.seed}: ${after.fds} fds open after the run, ${baseline.fds} at its start`);
  if (after.rssMiB > baseline.rssMiB + RETURN_SLACK.rssMiB) failures.push(`seed ${options.seed}: RSS ${after.rssMiB} MiB after the run, ${baseline.rssMiB} MiB at its start`);
  return { seed: options.seed, actions: actions.length, calls, ms, codes, methodsWithResult: [...withResult], failures, baseline, after };
}
