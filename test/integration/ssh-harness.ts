/**
 * A real OpenSSH server for the machine tests (SPEC §14): `sshd` on 127.0.0.1 with a
 * throwaway host key, a throwaway user whose only way in is a throwaway key, started and
 * stopped by the test. The far side of a machine link is that user's own corral, started by
 * `corral bridge` the way it would be on a build box. Needs root (to add the user and run
 * sshd) and openssh-server (`.ci/run` installs it when missing): `sshAvailable()` says
 * whether this machine has both, and the suites skip with the reason otherwise.
 *
 * Nothing the throwaway user needs lives in the checkout: its keys and home are in a 0755
 * folder of the temporary directory, and its corral is a copy of this checkout's, put in its
 * home by `corral machine install`'s own code. A clone in a folder only its owner may enter
 * (`mktemp -d`, a 0750 home) is out of that user's reach: its remote shell answered `bash:
 * …/bin/corral.cjs: Permission denied` (status 126) after sshd had accepted the key.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, type TestServer } from './harness.js';
import { installMachine } from '../../src/machines/machine-install.js';

const SSHD = '/usr/sbin/sshd';

/** Why the ssh tests cannot run here, or null when they can. */
export function sshUnavailable(): string | null {
  if (process.getuid?.() !== 0) return 'the machine tests add a throwaway user and run sshd: they need root';
  if (!existsSync(SSHD)) return 'openssh-server is not installed (apt-get install openssh-server)';
  return null;
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export class TestSshd {
  private child: ChildProcess | null = null;
  private log = '';

  private constructor(
    readonly dir: string,
    readonly user: string,
    readonly uid: number,
    readonly home: string,
    readonly port: number,
    readonly host: string,
    /** The ssh program and leading arguments a machine link needs (CORRAL_SSH words). */
    readonly sshWords: string[],
  ) {}

  /** `user@host` as a machine's target. */
  get target(): string {
    return `${this.user}@${this.host}`;
  }

  /** The remote command corral runs: the throwaway user's copy of this checkout's corral (`installCorral`). */
  get remoteCorral(): string {
    return join(this.home, 'corral', 'bin', 'corral.cjs');
  }

  /** Starts sshd on `host` (default 127.0.0.1) for a fresh throwaway user. */
  static async start(opts: { host?: string } = {}): Promise<TestSshd> {
    const dir = mkdtempSync(join(tmpdir(), 'corral-sshd-'));
    chmodSync(dir, 0o755);
    const user = `corr${Math.random().toString(36).slice(2, 8)}`;
    const home = join(dir, 'home');
    // '*' as the password: no password login, and not "locked" (sshd without PAM refuses locked accounts).
    execFileSync('useradd', ['--home-dir', home, '--create-home', '--shell', '/bin/bash', '--user-group', user]);
    execFileSync('usermod', ['--password', '*', user]);
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
    const hostKey = join(dir, 'host_ed25519');
    const clientKey = join(dir, 'client_ed25519');
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
    execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', clientKey]);
    const sshDir = join(home, '.ssh');
    mkdirSync(sshDir, { mode: 0o700 });
    writeFileSync(join(sshDir, 'authorized_keys'), readFileSync(`${clientKey}.pub`), { mode: 0o600 });
    for (const path of [sshDir, join(sshDir, 'authorized_keys')]) chownSync(path, uid, uid);
    const port = await freePort();
    const host = opts.host ?? '127.0.0.1';
    const knownHosts = join(dir, 'known_hosts');
    writeFileSync(knownHosts, `[${host}]:${port} ${readFileSync(`${hostKey}.pub`, 'utf8').split(' ').slice(0, 2).join(' ')}\n`);
    const config = join(dir, 'sshd_config');
    writeFileSync(
      config,
      [
        `Port ${port}`,
        `ListenAddress ${host}`,
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AllowUsers ${user}`,
        'AuthorizedKeysFile .ssh/authorized_keys',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'UsePAM no',
        'PermitRootLogin no',
        'X11Forwarding no',
        'PrintMotd no',
        'LogLevel ERROR',
        '',
      ].join('\n'),
    );
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
    const sshWords = [
      'ssh',
      '-F', '/dev/null',
      '-i', clientKey,
      '-p', String(port),
      '-o', `UserKnownHostsFile=${knownHosts}`,
      '-o', 'StrictHostKeyChecking=yes',
      '-o', 'IdentitiesOnly=yes',
      '-o', 'LogLevel=ERROR',
    ];
    const sshd = new TestSshd(dir, user, uid, home, port, host, sshWords);
    try {
      await sshd.run(config);
      await sshd.installCorral();
    } catch (error) {
      await sshd.stop();
      throw error;
    }
    return sshd;
  }

  /**
   * Copies this checkout's corral into the user's home (~/corral) the way `corral machine
   * install` does, then moves it out of ~/.local/share/corral so the install test starts from
   * nothing. `ControlMaster=no` first: ssh keeps the first value of an option, so no master
   * connection outlives the copy.
   */
  private async installCorral(): Promise<void> {
    const entry = { name: 'harness', target: this.target, label: '', session: 'default', enabled: true, corral: 'corral' };
    const installed = await installMachine(entry, [...this.sshWords, '-o', 'ControlMaster=no', '-o', 'ControlPath=none'], this.dir);
    this.exec(`mv ${installed.path} ~/corral && rm -rf ~/.local/share/corral`);
  }

  /** Runs sshd in the foreground (-D) and waits until it accepts connections. */
  private async run(config: string): Promise<void> {
    const child = spawn(SSHD, ['-D', '-e', '-f', config]);
    this.child = child;
    child.stderr!.on('data', (chunk) => (this.log = (this.log + chunk).slice(-8192)));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${this.log}`);
      try {
        execFileSync(this.sshWords[0]!, [...this.sshWords.slice(1), '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=2', this.target, 'true'], { stdio: 'ignore', timeout: 5000 });
        return;
      } catch {
        if (Date.now() > deadline) throw new Error(`sshd did not accept a login: ${this.log}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  }

  /** Runs `command` (a shell line) as the throwaway user through ssh; its stdout. */
  exec(command: string): string {
    return execFileSync(this.sshWords[0]!, [...this.sshWords.slice(1), '-o', 'BatchMode=yes', this.target, command], { encoding: 'utf8', timeout: 30_000 });
  }

  /** Trusts this sshd's host key on another port too (a proxy in front of it). */
  trustPort(port: number): void {
    const known = join(this.dir, 'known_hosts');
    const key = readFileSync(known, 'utf8').split('\n')[0]!.split(' ').slice(1).join(' ');
    writeFileSync(known, `${readFileSync(known, 'utf8')}[${this.host}]:${port} ${key}\n`);
  }

  /** Writes `text` to `file` (relative to the remote user's home) as that user. */
  writeRemoteFile(file: string, text: string): void {
    execFileSync(this.sshWords[0]!, [...this.sshWords.slice(1), '-o', 'BatchMode=yes', this.target, `mkdir -p "$(dirname ~/${file})" && cat > ~/${file}`], { input: text, timeout: 30_000 });
  }

  /** The remote user's own corral CLI (`corral <args>` as that user, on its default session); its stdout. */
  corral(args: string[]): string {
    const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    return this.exec(`${this.remoteCorral} ${quoted}`);
  }

  /** The environment a corral of the remote user would see, for running its CLI directly as that user. */
  get remoteRuntimeDir(): string {
    return `/tmp/corral-${this.uid}`;
  }

  /** Stops sshd (new logins fail; sessions already open end with it). */
  async stopDaemon(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  /** Starts sshd again after `stopDaemon`, same port and keys. */
  async restartDaemon(): Promise<void> {
    await this.run(join(this.dir, 'sshd_config'));
  }

  /** Everything the test made goes: sshd, the user's processes (its corral), the user and the files. */
  async stop(): Promise<void> {
    await this.stopDaemon();
    try {
      execFileSync('pkill', ['-KILL', '-u', this.user], { stdio: 'ignore' });
    } catch {
      // No process left.
    }
    for (let i = 0; i < 50; i++) {
      try {
        execFileSync('userdel', ['--force', '--remove', this.user], { stdio: 'ignore' });
        break;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
    rmSync(this.remoteRuntimeDir, { recursive: true, force: true });
  }
}

/**
 * A link between this host and a machine that the test can slow down and cut: a TCP proxy on
 * 127.0.0.1 in front of sshd (test/fixtures/link-proxy.mjs, in a process of its own so the
 * test's own work never delays the link), forwarding each direction after `delayMs`, in order.
 * `cut()` holds every byte, both ways, on every connection, new ones included — the link is gone
 * and nothing says so (as a pulled cable: no reset, no error; ssh's keep-alives notice).
 * `restore()` lets bytes through again. Userspace on purpose: this machine's kernel has no netem.
 */
export class TestLinkProxy {
  private replies: Array<() => void> = [];

  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('ok ')) this.replies.shift()?.();
    });
  }

  static async start(targetPort: number, delayMs = 0): Promise<TestLinkProxy> {
    const child = spawn(process.execPath, [join(ROOT, 'test', 'fixtures', 'link-proxy.mjs'), String(targetPort), String(delayMs)], { stdio: ['pipe', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.once('line', (line) => {
        lines.close();
        const match = /^port (\d+)$/.exec(line);
        if (match) resolve(Number(match[1]));
        else reject(new Error(`link proxy: ${line}`));
      });
      child.once('exit', (code) => reject(new Error(`link proxy exited ${code}`)));
    });
    return new TestLinkProxy(child, port);
  }

  private command(line: string): Promise<void> {
    return new Promise((resolve) => {
      this.replies.push(resolve);
      this.child.stdin!.write(`${line}\n`);
    });
  }

  cut(): Promise<void> {
    return this.command('cut');
  }

  restore(): Promise<void> {
    return this.command('restore');
  }

  close(): void {
    this.child.stdin!.end();
    this.child.kill();
  }
}

/** What `addSilentMachine` saw. */
export interface SilentMachine {
  /** Server time from the add's reply to the `unreachable` event (the event's own `ts`). */
  serverMs: number;
  /** The `machine.state_changed` event that said `unreachable`. */
  event: { state: string; last_error: string | null; ts: number };
  /** How long each `corral ls --json` run meanwhile took. */
  lsMs: number[];
}

/**
 * Adds a machine that never answers (`args`: what follows `corral machine add`, its name
 * first) and follows it to `unreachable` through the server's own event, running
 * `corral ls --json` the whole time. The time is the server's: from the add's reply to the
 * event's timestamp, so a loaded machine's slow CLI starts and polling do not count.
 */
export async function addSilentMachine(server: TestServer, args: string[]): Promise<SilentMachine> {
  const events = await server.connect();
  try {
    await events.call('events.subscribe', { types: ['machine.state_changed'] });
    const added = await server.cli(['machine', 'add', ...args]);
    if (added.code !== 0) throw new Error(`machine add failed: ${added.stderr}`);
    const addedAt = Date.now();
    let seen = false;
    const unreachable = events
      .next((m) => m.params?.type === 'machine.state_changed' && m.params.machine === args[0] && m.params.state === 'unreachable', 20_000)
      .finally(() => {
        seen = true;
      });
    const lsMs: number[] = [];
    while (!seen) {
      const t0 = performance.now();
      const ls = await server.cli(['ls', '--json']);
      lsMs.push(performance.now() - t0);
      if (ls.code !== 0) throw new Error(`ls failed while a machine was silent: ${ls.stderr}`);
    }
    const event = (await unreachable).params;
    return { serverMs: event.ts - addedAt, event, lsMs };
  } finally {
    events.close();
  }
}
