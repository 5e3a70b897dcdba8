/**
 * One machine's link (SPEC §14): an `ssh` child running `corral bridge` on the far side, the
 * socket's JSON-RPC over its stdio, and the life around it — connect, check the remote's
 * version, measure the round trip, notice the end, retry with backoff (1 s doubling to 30 s,
 * ±20 % jitter). A failure becomes `last_error` in words that say what to run.
 *
 * The link never blocks anything local: every call has a deadline, a dead link fails calls at
 * once, and what the link carries is bounded by its owner (machine-hub.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Duplex } from 'node:stream';
import { CorralError, MACHINE_PROTOCOL, type MachineState } from '../contract/protocol.js';
import { RpcClient } from '../rpc/client.js';
import type { MachineEntry } from './machine-config.js';
import { sshArgv } from './ssh-command.js';

export const LINK_TIMING = {
  /** First retry after a failure; doubles per failure up to `maxBackoffMs`. */
  firstBackoffMs: 1000,
  maxBackoffMs: 30_000,
  /** ± this share of each delay, so links that fell together do not retry in step. */
  jitter: 0.2,
  /** The remote must have said who it is within this long, so a silent host is reported within 10 s (ssh's ConnectTimeout is 8 s). */
  handshakeMs: 9_000,
  /** A round trip is measured this often while connected (the latency the sidebar shows). */
  pingEveryMs: 10_000,
  /** A forwarded call that has no answer by then fails with `timeout`, unless it asked for longer. */
  callMs: 30_000,
} as const;

/** The last stderr kept from ssh, to explain a failure. */
const STDERR_KEEP = 4096;

export interface LinkStatus {
  state: MachineState;
  latencyMs: number | null;
  remoteVersion: string | null;
  lastError: string | null;
}

export interface LinkEvents {
  /** The state, latency or error changed. */
  onStatus(status: LinkStatus, previous: MachineState): void;
  /** Connected and checked: the owner may subscribe and mirror over `client`. */
  onUp(client: RpcClient): void;
  /** The connection ended (the owner drops what it held on it). */
  onDown(): void;
}

/** Words for a failure, from ssh's exit and what it printed: what happened and what to run. */
export function explainFailure(entry: MachineEntry, code: number | null, stderr: string): string {
  const text = stderr.trim();
  const target = entry.target;
  if (/Host key verification failed|REMOTE HOST IDENTIFICATION HAS CHANGED|No .*host key is known/i.test(text)) {
    return `the host key of ${target} is not trusted yet (or changed): run \`ssh ${target}\` once to check and accept it`;
  }
  const unreadable = remoteAccessDenied(text);
  // ssh's own refusal is `user@host: Permission denied (publickey).`; a remote shell's or node's
  // "Permission denied" comes after the login and is about a file (below), not about the key.
  if (/Permission denied \(|Permission denied, please try again/i.test(text) || (code === 255 && !unreadable && /Permission denied/i.test(text))) {
    const key = /Load key "([^"]+)": ([^\n]+)/.exec(text);
    const why = key ? `: ssh could not use the key ${key[1]} (${key[2]!.trim()})` : '';
    return `ssh could not log in to ${target} without a prompt (BatchMode)${why}: add your key there (\`ssh-copy-id ${target}\`) or load it into ssh-agent; if it is there, sshd's log on that host says why it was refused (StrictModes ignores an authorized_keys that others can write)`;
  }
  if (unreadable?.by === 'shell' || (code === 126 && !unreadable)) {
    const file = unreadable?.path ?? entry.corral;
    return `the remote user on ${target} cannot read or run \`${file}\` (Permission denied): make it readable and executable for that user, with every folder above it enterable, or run \`corral machine install ${entry.name}\` to copy corral into that user's home`;
  }
  if (unreadable) {
    return `the corral on ${target} (\`${entry.corral}\`) cannot ${unreadable.op} \`${unreadable.path}\` (permission denied for the remote user): corral's files must be readable by that user, with every folder above them enterable; or run \`corral machine install ${entry.name}\``;
  }
  if (code === 127 || /command not found|No such file or directory/i.test(text)) {
    return `corral is not installed on ${target} (\`${entry.corral}\` not found): run \`corral machine install ${entry.name}\``;
  }
  const missing = /Cannot find module '([^']+)'/.exec(text);
  if (missing) {
    return `the corral on ${target} (\`${entry.corral}\`) cannot load ${missing[1]} (missing, or not readable by the remote user): run \`corral machine install ${entry.name}\``;
  }
  if (/Unknown argument: bridge|Unknown command/i.test(text)) {
    return `the corral on ${target} is too old for machine links: run \`corral machine install ${entry.name}\``;
  }
  if (/Could not resolve hostname/i.test(text)) return `${target}: the host name does not resolve (check it, or your ~/.ssh/config)`;
  if (/Connection refused/i.test(text)) return `${target} refused the connection: is sshd running there, on that port?`;
  if (/timed out|Connection timed out|Network is unreachable|No route to host/i.test(text)) return `${target} does not answer (${firstLine(text)}): check the network, then \`ssh ${target}\``;
  if (/Timeout, server .* not responding|Broken pipe|Connection reset|closed by remote host/i.test(text)) return `the link to ${target} was lost (${firstLine(text)})`;
  const tail = firstLine(text);
  return `ssh to ${target} ended${code === null ? '' : ` with status ${code}`}${tail ? `: ${tail}` : ''}; try \`ssh ${target}\``;
}

/**
 * A file the remote user was refused after logging in, from what the far side printed: the
 * shell's `bash: line 1: /path: Permission denied` (dash: `sh: 1: /path: …`, zsh:
 * `permission denied: /path`) when it cannot run the remote corral, or node's `EACCES:
 * permission denied, open '/path'` when that corral cannot read one of its own files.
 */
function remoteAccessDenied(text: string): { by: 'shell' | 'node'; path: string; op: string } | null {
  const node = /EACCES: permission denied, (\w+) '([^']+)'/.exec(text);
  if (node) return { by: 'node', op: node[1]!, path: node[2]! };
  const shell = /: ([/~][^\n]*?): Permission denied$/m.exec(text) ?? /permission denied: ([/~][^\n]*)$/m.exec(text);
  return shell ? { by: 'shell', op: 'run', path: shell[1]!.trim() } : null;
}

function firstLine(text: string): string {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).pop() ?? '';
}

export class MachineLink {
  private status: LinkStatus = { state: 'disabled', latencyMs: null, remoteVersion: null, lastError: null };
  private child: ChildProcess | null = null;
  private client: RpcClient | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private failures = 0;
  private everConnected = false;
  private stopped = true;

  constructor(
    readonly entry: MachineEntry,
    private readonly ssh: { program: readonly string[]; runtimeDir: string },
    private readonly events: LinkEvents,
  ) {}

  get state(): LinkStatus {
    return this.status;
  }

  /** The connection while connected (for the owner's calls), else null. */
  get connection(): RpcClient | null {
    return this.status.state === 'connected' ? this.client : null;
  }

  /** Starts connecting (and keeps the link up until `stop`). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.connect();
  }

  /** Ends the link and any retry; `disabled` says so in its state. */
  stop(state: MachineState = 'disabled'): void {
    this.stopped = true;
    this.clearTimers();
    this.teardown();
    this.setStatus({ state, latencyMs: null });
  }

  /** Calls a method on the remote server; fails at once while the link is not up. */
  call(method: string, params: object = {}, timeoutMs: number = LINK_TIMING.callMs): Promise<unknown> {
    const client = this.connection;
    if (!client) {
      const why = this.status.lastError ? `: ${this.status.lastError}` : '';
      return Promise.reject(new CorralError('machine_unreachable', `machine ${this.entry.name} is ${this.status.state}${why}`, { machine: this.entry.name }));
    }
    return withDeadline(client.request(method, params), timeoutMs, `machine ${this.entry.name} did not answer ${method} within ${timeoutMs} ms`);
  }

  private connect(): void {
    if (this.stopped) return;
    // A machine that failed stays `unreachable` (with what failed) while it tries again.
    if (this.status.state !== 'unreachable') this.setStatus({ state: this.everConnected ? 'reconnecting' : 'connecting' });
    const argv = sshArgv(this.entry, this.ssh.program, this.ssh.runtimeDir, ['bridge']);
    let child: ChildProcess;
    try {
      child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'pipe', 'pipe'] });
    } catch (error) {
      return this.failed(`cannot run ${argv[0]}: ${(error as Error).message}`);
    }
    this.child = child;
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    const client = RpcClient.over(Duplex.from({ readable: child.stdout!, writable: child.stdin! }), `machine ${this.entry.name}`);
    this.client = client;
    let up = false;
    const ended = new Promise<number | null>((resolve) => {
      child.once('error', () => resolve(null));
      child.once('exit', (code) => resolve(code));
    });
    void ended.then((code) => {
      if (this.child !== child) return;
      // Give the last stderr a turn to arrive before it explains the end.
      setImmediate(() => {
        if (this.child !== child) return;
        this.teardown();
        if (up) this.events.onDown();
        this.failed(explainFailure(this.entry, code, stderr));
      });
    });
    void withDeadline(client.request('system.identify', {}), LINK_TIMING.handshakeMs, `${this.entry.target} did not answer within ${LINK_TIMING.handshakeMs / 1000} s`)
      .then((identity) => {
        if (this.child !== child) return;
        const remote = identity as { version?: string; machine_protocol?: number };
        if (remote.machine_protocol !== MACHINE_PROTOCOL) {
          this.teardown();
          return this.failed(
            `the corral on ${this.entry.target} is ${remote.version ?? 'unknown'}, which speaks machine protocol ${remote.machine_protocol ?? 'none'} (this one: ${MACHINE_PROTOCOL}): run \`corral machine install ${this.entry.name}\``,
            remote.version ?? null,
          );
        }
        up = true;
        this.failures = 0;
        this.everConnected = true;
        this.setStatus({ state: 'connected', remoteVersion: remote.version ?? null, lastError: null });
        this.ping();
        this.events.onUp(client);
      })
      .catch((error: unknown) => {
        if (this.child !== child) return;
        // The exit handler explains an ssh that ended; a remote that never answered is explained here.
        if (child.exitCode === null) {
          this.teardown();
          this.failed((error as Error).message + (stderr.trim() ? ` (${firstLine(stderr)})` : ''));
        }
      });
  }

  /** Measures a round trip now and again every `pingEveryMs` while connected. */
  private ping(): void {
    const client = this.connection;
    if (!client) return;
    const started = performance.now();
    void withDeadline(client.request('system.ping', {}), LINK_TIMING.pingEveryMs, 'ping')
      .then(() => {
        if (this.connection === client) this.setStatus({ latencyMs: Math.round((performance.now() - started) * 10) / 10 });
      })
      .catch(() => {})
      .finally(() => {
        if (this.connection !== client) return;
        this.pingTimer = setTimeout(() => this.ping(), LINK_TIMING.pingEveryMs);
        this.pingTimer.unref();
      });
  }

  private failed(lastError: string, remoteVersion: string | null = this.status.remoteVersion): void {
    if (this.stopped) return;
    const delay = Math.min(LINK_TIMING.maxBackoffMs, LINK_TIMING.firstBackoffMs * 2 ** this.failures);
    this.failures++;
    const jittered = delay * (1 - LINK_TIMING.jitter + 2 * LINK_TIMING.jitter * Math.random());
    this.setStatus({ state: this.everConnected ? 'reconnecting' : 'unreachable', lastError, remoteVersion, latencyMs: null });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.connect();
    }, jittered);
    this.retryTimer.unref();
  }

  private teardown(): void {
    if (this.pingTimer) clearTimeout(this.pingTimer);
    this.pingTimer = null;
    const child = this.child;
    const client = this.client;
    this.child = null;
    this.client = null;
    client?.close();
    if (child && child.exitCode === null) child.kill('SIGTERM');
  }

  private clearTimers(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.pingTimer) clearTimeout(this.pingTimer);
    this.pingTimer = null;
  }

  private setStatus(change: Partial<LinkStatus>): void {
    const previous = this.status.state;
    const next = { ...this.status, ...change };
    if (next.state === previous && next.latencyMs === this.status.latencyMs && next.lastError === this.status.lastError && next.remoteVersion === this.status.remoteVersion) return;
    this.status = next;
    this.events.onStatus(next, previous);
  }
}

/** `promise`, or a `timeout` error after `ms`. */
export function withDeadline<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CorralError('timeout', message)), ms);
    timer.unref();
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}
