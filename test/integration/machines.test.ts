/**
 * Machines over OpenSSH (SPEC §14), against a real sshd on 127.0.0.1 (test/integration/
 * ssh-harness.ts): the far side is a throwaway user's own corral, started by `corral bridge`.
 * Everything goes through the real CLI and socket of a local server.
 */
import { chmodSync, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer, type RawClient } from './harness.js';
import { addSilentMachine, sshUnavailable, TestSshd } from './ssh-harness.js';
import { LINK_TIMING } from '../../src/machines/machine-link.js';

const skip = sshUnavailable();

/** Reads `read()` until `check` holds; the value that held. */
async function pollUntil<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`expected ${what}; read ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Polls `machine list --json` until `name`'s state is one of `states`. */
async function machineState(server: TestServer, name: string, states: string[], timeoutMs = 20_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await server.cli(['machine', 'list', '--json']);
    const machine = JSON.parse(result.stdout).machines.find((m: any) => m.name === name);
    if (machine && states.includes(machine.state)) return machine;
    if (Date.now() > deadline) throw new Error(`machine ${name} never reached ${states.join('|')}: ${JSON.stringify(machine)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(skip)('machines over ssh', () => {
  let sshd: TestSshd;
  let server: TestServer;
  let client: RawClient;
  /** A remote pane that printed something, for the mirror's checks. */
  let printed = '';

  beforeAll(async () => {
    sshd = await TestSshd.start();
    server = new TestServer();
    (server.env as Record<string, string>).CORRAL_SSH = sshd.sshWords.join(' ');
    await server.start();
    client = await server.connect();
  }, 60_000);
  afterAll(async () => {
    client?.close();
    await server?.stop();
    await sshd?.stop();
  });

  it('add → connected, with the remote version and a latency', async () => {
    const added = await server.cli(['machine', 'add', 'build', sshd.target, '--label', 'Build box', '--corral', sshd.remoteCorral]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).result.machine).toMatchObject({ name: 'build', target: sshd.target, enabled: true });
    const machine = await machineState(server, 'build', ['connected']);
    expect(machine).toMatchObject({ label: 'Build box', remote_version: '0.1.0', last_error: null });
    const tested = await server.cli(['machine', 'test', 'build']);
    expect(tested.code, tested.stderr).toBe(0);
    expect(JSON.parse(tested.stdout).result).toMatchObject({ machine: 'build', compatible: true });
  });

  it('a remote workspace made with --machine; pane run on build/w1:p1 is refused by the remote gate, then runs as the remote user; reads agree', async () => {
    const created = await server.cli(['--machine', 'build', 'workspace', 'create', '--cwd', '/tmp']);
    expect(created.code, created.stderr).toBe(0);
    const pane = JSON.parse(created.stdout).result.root_pane.pane_id;
    const command = 'echo REMOTE-$(id -un)-$((6*7))';
    const refused = await server.cli(['pane', 'run', `build/${pane}`, command]);
    // The remote gate is closed: a local script cannot submit there, whatever the local gate says.
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('scripting_disabled');

    // The remote user opens their own gate.
    sshd.writeRemoteFile('.config/corral/config.toml', 'ai_unrestricted = true\n');
    sshd.corral(['kill-server']);
    await machineState(server, 'build', ['reconnecting', 'connecting']);
    await machineState(server, 'build', ['connected']);
    const again = await server.cli(['--machine', 'build', 'workspace', 'create', '--cwd', '/tmp']);
    const fresh = JSON.parse(again.stdout).result.root_pane.pane_id;
    const ran = await server.cli(['pane', 'run', `build/${fresh}`, command]);
    expect(ran.code, ran.stderr).toBe(0);
    const waited = await server.cli(['pane', 'wait-output', `build/${fresh}`, '--regex', `REMOTE-${sshd.user}-42`, '--timeout', '10000']);
    expect(waited.code, waited.stderr).toBe(0);
    const local = await server.cli(['pane', 'read', `build/${fresh}`, '--lines', '20']);
    const remote = sshd.corral(['pane', 'read', fresh, '--lines', '20']);
    expect(local.stdout).toBe(remote);
    expect(local.stdout).toContain(`REMOTE-${sshd.user}-42`);
    printed = fresh;
  }, 60_000);

  it('the mirror reads as the remote does (machine read, no round trip), and follows a remote server killed and restored', async () => {
    const mirrorRead = async () => (await server.cli(['machine', 'read', `build/${printed}`, '--lines', '30'])).stdout;
    const remoteRead = () => sshd.corral(['pane', 'read', printed, '--lines', '30']);
    await pollUntil(mirrorRead, (text) => text === remoteRead(), 'the mirror to read as the remote');
    expect(await mirrorRead()).toContain(`REMOTE-${sshd.user}-42`);
    // kill -9 of the remote server: the link drops, the bridge starts it again, it restores its session.
    sshd.exec(`pkill -KILL -u ${sshd.user} -f '[c]orral.cjs server' || true`);
    await machineState(server, 'build', ['reconnecting']);
    await machineState(server, 'build', ['connected'], 40_000);
    const after = await pollUntil(mirrorRead, (text) => text === remoteRead() && text.includes('restored'), 'the mirror to follow the restored remote', 20_000);
    expect(after).toContain('restored');
  }, 90_000);

  it('ls and ps cover the machine, each row saying where it runs; status of build/… is the remote pane', async () => {
    const ls = JSON.parse((await server.cli(['ls', '--json'])).stdout).surfaces;
    expect(ls.filter((r: any) => r.machine === 'build').length).toBeGreaterThan(0);
    const remotePane = ls.find((r: any) => r.machine === 'build');
    const status = await server.cli(['status', `build/${remotePane.pane_id}`, '--json']);
    expect(status.code, status.stderr).toBe(0);
    expect(JSON.parse(status.stdout).pane_id).toBe(remotePane.pane_id);
    const ps = JSON.parse((await server.cli(['ps', '--json'])).stdout);
    expect(Array.isArray(ps.agents)).toBe(true);
  });

  it('watch carries the remote events with their machine, and local ones with machine null', async () => {
    const events = await server.connect();
    await events.call('events.subscribe', { types: ['workspace.created'] });
    await server.cli(['--machine', 'build', 'workspace', 'create', '--cwd', '/tmp']);
    await server.cli(['workspace', 'create', '--cwd', server.home]);
    const remote = await events.next((m) => m.params?.type === 'workspace.created' && m.params.machine === 'build', 10_000);
    const local = await events.next((m) => m.params?.type === 'workspace.created' && m.params.machine === null, 10_000);
    expect(remote.params.workspace).toMatch(/^w\d+$/);
    expect(local.params.workspace).toMatch(/^w\d+$/);
    events.close();
  });

  it('an unknown machine is machine_not_found (exit 3); a machine that never answers is unreachable within 10 s with what to run, and local verbs stay fast', async () => {
    const unknown = await server.cli(['--machine', 'nope', 'ps']);
    expect(unknown.code).toBe(3);
    expect(unknown.stderr).toContain('machine_not_found');
    // 192.0.2.0/24 is TEST-NET-1: nothing answers there.
    const silent = await addSilentMachine(server, ['void', 'nobody@192.0.2.1', '--corral', sshd.remoteCorral]);
    expect(silent.serverMs).toBeLessThan(10_000);
    expect(silent.event.last_error).toMatch(/192\.0\.2\.1/);
    // An `ls` that waited for the silent machine would take its whole handshake (9 s): none did.
    expect(Math.max(...silent.lsMs)).toBeLessThan(LINK_TIMING.handshakeMs);
    const removed = await server.cli(['machine', 'remove', 'void']);
    expect(removed.code, removed.stderr).toBe(0);
  }, 30_000);

  it('a host key not trusted yet: unreachable, and last_error says to run ssh once', async () => {
    const server2 = new TestServer();
    // Same ssh, but a known_hosts that does not know this host.
    const words = sshd.sshWords.map((w) => (w.startsWith('UserKnownHostsFile=') ? 'UserKnownHostsFile=/dev/null' : w));
    (server2.env as Record<string, string>).CORRAL_SSH = words.join(' ');
    await server2.start();
    try {
      await server2.cli(['machine', 'add', 'build', sshd.target, '--corral', sshd.remoteCorral]);
      const machine = await machineState(server2, 'build', ['unreachable']);
      expect(machine.last_error).toMatch(/host key .* not trusted yet .* run `ssh /);
    } finally {
      await server2.stop();
    }
  });

  it('a remote corral the remote user may not read: unreachable, and last_error and machine test name that path (not a refused login)', async () => {
    // The launcher in a folder only root may enter, as a clone in `mktemp -d` is to any other user.
    const closed = join(sshd.dir, 'closed');
    mkdirSync(join(closed, 'bin'), { recursive: true });
    chmodSync(closed, 0o700);
    const launcher = join(closed, 'bin', 'corral.cjs');
    copyFileSync(join(ROOT, 'bin', 'corral.cjs'), launcher);
    const added = await server.cli(['machine', 'add', 'closed', sshd.target, '--session', 'closed', '--corral', launcher]);
    expect(added.code, added.stderr).toBe(0);
    const machine = await machineState(server, 'closed', ['unreachable']);
    expect(machine.last_error).toContain(`the remote user on ${sshd.target} cannot read or run \`${launcher}\``);
    expect(machine.last_error).not.toContain('log in');
    const tested = await server.cli(['machine', 'test', 'closed']);
    expect(tested.code).not.toBe(0);
    expect(tested.stderr).toContain(`cannot read or run \`${launcher}\``);
    const removed = await server.cli(['machine', 'remove', 'closed']);
    expect(removed.code, removed.stderr).toBe(0);
  });

  it('a killed link reconnects on its own (backoff), and the remote panes are still there', async () => {
    const before = JSON.parse((await server.cli(['--machine', 'build', 'pane', 'list'])).stdout).result.panes.length;
    const remoteBridges = sshd.exec(`pgrep -u ${sshd.user} -f '[c]orral.cjs bridge' || true`).trim().split('\n').filter(Boolean);
    expect(remoteBridges.length).toBeGreaterThan(0);
    sshd.exec(`pkill -u ${sshd.user} -f '[c]orral.cjs bridge' || true`);
    await machineState(server, 'build', ['reconnecting']);
    const machine = await machineState(server, 'build', ['connected']);
    expect(machine.last_error).toBeNull();
    const after = JSON.parse((await server.cli(['--machine', 'build', 'pane', 'list'])).stdout).result.panes.length;
    expect(after).toBe(before);
  }, 40_000);

  it('machine install copies this corral there and the link then runs that copy', async () => {
    // A second machine entry on the same host, with corral not on its PATH: unreachable, saying to install.
    const added = await server.cli(['machine', 'add', 'fresh', sshd.target, '--session', 'fresh']);
    expect(added.code, added.stderr).toBe(0);
    const missing = await machineState(server, 'fresh', ['unreachable']);
    expect(missing.last_error).toContain('corral machine install fresh');
    const installed = await server.cli(['machine', 'install', 'fresh'], { timeoutMs: 120_000 });
    expect(installed.code, installed.stderr).toBe(0);
    const result = JSON.parse(installed.stdout).result;
    expect(result).toMatchObject({ machine: 'fresh', version: '0.1.0', command: '~/.local/share/corral/0.1.0/bin/corral.cjs' });
    expect(sshd.exec('ls ~/.local/share/corral/0.1.0/native/build/Release/')).toContain('peer_cred.node');
    const machine = await machineState(server, 'fresh', ['connected'], 40_000);
    expect(machine.remote_version).toBe('0.1.0');
    await server.cli(['machine', 'remove', 'fresh']);
  }, 180_000);
});
