/**
 * The socket directory is trusted only when it is private (SPEC §8). Each test plays one
 * attack on the directory against the real server and the real CLI: the server refuses to
 * start there, the CLI refuses to talk to a socket planted there, and neither changes or
 * deletes anything it did not create.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { basename, dirname, join } from 'node:path';
import { BIN, TestServer, eventually, isAlive } from './harness.js';

/** A uid that is not ours (the tests run as root in CI; `nobody` elsewhere too). */
const OTHER_UID = 65534;

/** A socket someone else planted: it counts every byte a client sends it. */
async function plantSocket(path: string): Promise<{ server: Server; bytes: () => number; connections: () => number }> {
  let bytes = 0;
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.on('data', (chunk) => (bytes += chunk.length));
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { server, bytes: () => bytes, connections: () => connections };
}

/** Sends SIGTERM and waits (bounded poll on /proc) until the process is gone. */
async function terminate(pid: number): Promise<void> {
  process.kill(pid, 'SIGTERM');
  if (!(await eventually(() => !isAlive(pid), 15_000))) throw new Error(`process ${pid} did not exit`);
}

function mode(path: string): number {
  return lstatSync(path).mode & 0o7777;
}

/** Starting must fail; returns the server's error object from its stderr. */
async function refusedStart(server: TestServer): Promise<{ code: string; message: string }> {
  const error = await server.start().then(
    () => null,
    (e: Error) => e,
  );
  expect(error, 'the server started').not.toBeNull();
  const line = error!.message.split('\n').find((l) => l.includes('"error"'))!;
  // The harness prefixes the first line of stderr with how the server exited.
  return JSON.parse(line.slice(line.indexOf('{'))).error;
}

/** Runs `corral ps` and expects the CLI to refuse the directory without sending a byte. */
async function expectCliRefuses(server: TestServer, dir: string, args: string[] = []): Promise<void> {
  const result = await server.cli(['ps', ...args]);
  expect(result.code).toBe(1);
  const error = JSON.parse(result.stderr).error;
  expect(error.code).toBe('unsafe_socket_dir');
  expect(error.message).toContain(dir);
}

describe('the socket directory', () => {
  const servers: TestServer[] = [];
  const planted: Server[] = [];
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const s of planted.splice(0)) s.close();
    for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    for (const s of servers.splice(0)) await s.stop();
  });
  function sandbox(options: ConstructorParameters<typeof TestServer>[0] = {}): TestServer {
    const server = new TestServer(options);
    servers.push(server);
    return server;
  }

  it('a pre-created world-writable directory is refused, not chmodded and used', async () => {
    const server = sandbox();
    const dir = dirname(server.socketPath);
    mkdirSync(dir);
    chmodSync(dir, 0o777);
    const error = await refusedStart(server);
    expect(error.code).toBe('unsafe_socket_dir');
    expect(error.message).toContain(dir);
    expect(error.message).toMatch(/mode 0777/);
    expect(error.message).toContain(`chmod 700 ${dir}`);
    expect(mode(dir)).toBe(0o777);
    expect(readdirSync(dir)).toEqual([]);
    // The CLI will not talk to a socket someone planted there either.
    const fake = await plantSocket(server.socketPath);
    planted.push(fake.server);
    await expectCliRefuses(server, dir);
    expect(fake.bytes()).toBe(0);
  });

  it("an agent's hook never reports to a socket planted in an unsafe directory", async () => {
    const server = sandbox();
    const unsafe = join(server.dir, 'unsafe');
    const safe = join(server.dir, 'safe');
    mkdirSync(unsafe);
    chmodSync(unsafe, 0o777);
    mkdirSync(safe, { mode: 0o700 });
    const trap = await plantSocket(join(unsafe, 'default.sock'));
    const control = await plantSocket(join(safe, 'default.sock'));
    planted.push(trap.server, control.server);
    const hook = (socket: string) =>
      server.cli(['hook', 'stop', '--agent', 'claude'], { env: { CORRAL_SOCKET: socket, CORRAL_PANE_ID: 'w1:p1' }, input: '{}' });
    expect((await hook(join(unsafe, 'default.sock'))).code).toBe(0);
    expect((await hook(join(safe, 'default.sock'))).code).toBe(0);
    // The control proves a hook does report; the trap, asked first, got not a byte.
    expect(await eventually(() => control.bytes() > 0, 10_000)).toBe(true);
    expect(trap.bytes()).toBe(0);
  });

  it('a symlinked directory is refused, and nothing is created behind the link', async () => {
    const server = sandbox();
    const dir = dirname(server.socketPath);
    const target = join(server.dir, 'elsewhere');
    mkdirSync(target, { mode: 0o700 });
    symlinkSync(target, dir);
    const error = await refusedStart(server);
    expect(error.code).toBe('unsafe_socket_dir');
    expect(error.message).toContain(`${dir}: it is a symbolic link`);
    expect(lstatSync(dir).isSymbolicLink()).toBe(true);
    expect(readdirSync(target)).toEqual([]);
    const fake = await plantSocket(join(target, 'default.sock'));
    planted.push(fake.server);
    await expectCliRefuses(server, dir);
    expect(fake.bytes()).toBe(0);
  });

  it('a directory owned by another user is refused and left as it is', async () => {
    const server = sandbox();
    const dir = dirname(server.socketPath);
    mkdirSync(dir, { mode: 0o700 });
    chownSync(dir, OTHER_UID, OTHER_UID);
    const error = await refusedStart(server);
    expect(error.code).toBe('unsafe_socket_dir');
    expect(error.message).toContain(`is owned by uid ${OTHER_UID}`);
    expect(statSync(dir).uid).toBe(OTHER_UID);
    expect(mode(dir)).toBe(0o700);
    const fake = await plantSocket(server.socketPath);
    planted.push(fake.server);
    await expectCliRefuses(server, dir);
    expect(fake.bytes()).toBe(0);
  });

  it('--socket in a shared directory is refused; the directory and its files stay as they were', async () => {
    const shared = join(sandbox().dir, 'shared');
    mkdirSync(join(shared, 'x.bin'), { recursive: true });
    chmodSync(shared, 0o1777);
    writeFileSync(join(shared, 'x.bin', 'notes.txt'), 'mine');
    const socket = join(shared, 'x.sock');
    const server = sandbox({ extraArgs: ['--socket', socket] });
    const error = await refusedStart(server);
    expect(error.code).toBe('unsafe_socket_dir');
    expect(error.message).toContain(shared);
    expect(mode(shared)).toBe(0o1777);
    expect(readdirSync(shared)).toEqual(['x.bin']);
    expect(readFileSync(join(shared, 'x.bin', 'notes.txt'), 'utf8')).toBe('mine');
  });

  it('--socket in a private directory it did not create: only its own socket comes and goes', async () => {
    const own = join(sandbox().dir, 'own');
    mkdirSync(join(own, 'x.bin'), { recursive: true, mode: 0o700 });
    chmodSync(own, 0o700);
    writeFileSync(join(own, 'x.bin', 'notes.txt'), 'mine');
    writeFileSync(join(own, 'other.txt'), 'also mine');
    const socket = join(own, 'x.sock');
    const server = sandbox({ extraArgs: ['--socket', socket] });
    await server.start();
    const created = await server.json(['workspace', 'create', '--cwd', server.home, '--socket', socket]);
    expect(created.result.root_pane.exited).toBe(false);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    // The pane launcher lives in corral's own directory, not next to the socket.
    expect(readdirSync(own).sort()).toEqual(['other.txt', 'x.bin', 'x.sock']);
    expect(readdirSync(join(server.dir, 'run', 'corral')).some((name) => name.startsWith('bin-'))).toBe(true);
    await terminate(server.pid!);
    expect(readdirSync(own).sort()).toEqual(['other.txt', 'x.bin']);
    expect(readFileSync(join(own, 'x.bin', 'notes.txt'), 'utf8')).toBe('mine');
    expect(mode(own)).toBe(0o700);
  });

  it('--detach never writes its log through a symlink planted where the log goes', async () => {
    const server = sandbox();
    const dir = dirname(server.socketPath);
    mkdirSync(dir, { mode: 0o700 });
    const victim = join(server.dir, 'victim.txt');
    writeFileSync(victim, 'keep');
    symlinkSync(victim, join(dir, basename(server.socketPath).replace(/\.sock$/, '.log')));
    const detached = await server.cli(['server', '--detach'], { timeoutMs: 20_000 });
    expect(detached.code).not.toBe(0);
    expect(readFileSync(victim, 'utf8')).toBe('keep');
    const ps = await server.cli(['ps']);
    expect(JSON.parse(ps.stderr).error.code).toBe('server_not_running');
  });

  it('a server that takes over from a stopped one keeps its socket when the old one exits', async () => {
    const first = await sandbox().start();
    const launcherDir = readdirSync(dirname(first.socketPath)).find((name) => name.startsWith('bin-'))!;
    // Frozen, it cannot answer: the next server takes the path as stale.
    process.kill(first.pid!, 'SIGSTOP');
    const second = spawn(process.execPath, [BIN, 'server'], { env: first.env, stdio: ['ignore', 'ignore', 'pipe'] });
    children.push(second);
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      second.stderr!.on('data', (chunk) => {
        stderr += chunk;
        if (stderr.includes('listening on')) resolve();
      });
      second.once('exit', () => reject(new Error(`second server exited: ${stderr}`)));
    });
    const before = statSync(first.socketPath).ino;
    // The first one wakes up and shuts down cleanly: its socket is gone, the second one's is not.
    process.kill(first.pid!, 'SIGCONT');
    await terminate(first.pid!);
    expect(statSync(first.socketPath).ino).toBe(before);
    const ps = await first.cli(['ps', '--json']);
    expect(ps.code).toBe(0);
    expect(existsSync(join(dirname(first.socketPath), launcherDir, 'corral'))).toBe(true);
    second.kill('SIGTERM');
    await new Promise((resolve) => second.once('exit', resolve));
  });
});
