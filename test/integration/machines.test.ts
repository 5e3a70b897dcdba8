/**
 * Machines over OpenSSH (SPEC §14), against a real sshd on 127.0.0.1 (test/integration/
 * ssh-harness.ts): the far side is a throwaway user's own corral, started by `corral bridge`.
 * Everything goes through the real CLI and socket of a local server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer, type RawClient } from './harness.js';
import { sshUnavailable, TestSshd } from './ssh-harness.js';

const skip = sshUnavailable();

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
    const added = await server.cli(['machine', 'add', 'build', sshd.target, '--label', 'Build box', '--corral', TestSshd.remoteCorral]);
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout).result.machine).toMatchObject({ name: 'build', target: sshd.target, enabled: true });
    const machine = await machineState(server, 'build', ['connected']);
    expect(machine).toMatchObject({ label: 'Build box', remote_version: '0.1.0', last_error: null });
    const tested = await server.cli(['machine', 'test', 'build']);
    expect(tested.code, tested.stderr).toBe(0);
    expect(JSON.parse(tested.stdout).result).toMatchObject({ machine: 'build', compatible: true });
  });

  it('a remote workspace made with --machine; pane run on build/w1:p1 runs as the remote user; reads agree', async () => {
    const created = await server.cli(['--machine', 'build', 'workspace', 'create', '--cwd', '/tmp']);
    expect(created.code, created.stderr).toBe(0);
    const pane = JSON.parse(created.stdout).result.root_pane.pane_id;
    const run = await server.cli(['pane', 'run', `build/${pane}`, 'echo REMOTE-$(id -un)-$((6*7))']);
    // The remote gate is closed: a local script cannot submit there.
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('scripting_disabled');
  });

  it('ls and ps cover the machine, every row saying where it runs', async () => {
    const ls = await server.cli(['ls', '--json']);
    const rows = JSON.parse(ls.stdout).surfaces;
    expect(rows.some((r: any) => r.machine === 'build')).toBe(true);
    expect(rows.filter((r: any) => r.machine === null).length).toBeGreaterThanOrEqual(0);
  });
});
