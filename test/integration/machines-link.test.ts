/**
 * A machine behind a link that can be cut (SPEC §14): sshd on 127.0.0.1 behind a TCP proxy
 * that holds every byte while cut (a pulled cable: no reset, nothing said; this machine's
 * kernel has no netem, so the link is shaped in userspace, test/integration/ssh-harness.ts). The mirror
 * keeps what it had while the link is cut, the machine goes `reconnecting` once ssh's
 * keep-alives give up, and after the link is back every line printed meanwhile is in the
 * mirror once, in order. A machine that never answers (its packets dropped from the start) is
 * `unreachable` within 10 s with a `last_error` that says what to check, while local verbs stay fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer } from './harness.js';
import { LINK_TIMING } from '../../src/machines/machine-link.js';
import { addSilentMachine, sshUnavailable, TestLinkProxy, TestSshd } from './ssh-harness.js';

async function machine(server: TestServer, name: string): Promise<any> {
  return JSON.parse((await server.cli(['machine', 'list', '--json'])).stdout).machines.find((m: any) => m.name === name);
}

async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > deadline) throw new Error(`expected ${what}; read ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.skipIf(sshUnavailable())('a machine behind a cut link', () => {
  let proxy: TestLinkProxy;
  let sshd: TestSshd;
  let server: TestServer;
  /** The machine's target through the proxy. */
  let target: string;

  beforeAll(async () => {
    sshd = await TestSshd.start();
    proxy = await TestLinkProxy.start(sshd.port);
    sshd.trustPort(proxy.port);
    sshd.writeRemoteFile('.config/corral/config.toml', 'ai_unrestricted = true\n');
    target = `ssh://${sshd.user}@127.0.0.1:${proxy.port}`;
    server = new TestServer();
    // The port is the target's: drop the harness's -p.
    const words = sshd.sshWords.filter((word, i, all) => word !== '-p' && all[i - 1] !== '-p');
    (server.env as Record<string, string>).CORRAL_SSH = words.join(' ');
    await server.start();
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    proxy?.close();
    await sshd?.stop();
  });

  it('output made while the link is cut reaches the mirror after the reconnect, every line once and in order', async () => {
    await server.cli(['machine', 'add', 'far', target, '--corral', sshd.remoteCorral]);
    await until(() => machine(server, 'far'), (m) => m?.state === 'connected', 'far to connect', 20_000);
    const pane = JSON.parse((await server.cli(['--machine', 'far', 'workspace', 'create', '--cwd', '/tmp'])).stdout).result.root_pane.pane_id;
    const read = async (lines: number) => (await server.cli(['machine', 'read', `far/${pane}`, '--lines', String(lines)])).stdout;
    await until(() => read(5), (text) => text.includes('$'), 'the remote prompt in the mirror', 10_000);

    await proxy.cut();
    // Printed there while nothing gets through (the remote gate is open for this test).
    sshd.corral(['pane', 'run', pane, 'for i in $(seq 1 60); do echo CUT-LINE-$i; done; echo CUT-$((5*5))-END']);
    await until(() => machine(server, 'far'), (m) => m?.state === 'reconnecting', 'far to notice the cut', 30_000);
    expect(await read(100)).not.toContain('CUT-25-END');

    await proxy.restore();
    await until(() => machine(server, 'far'), (m) => m?.state === 'connected', 'far to reconnect', 40_000);
    const text = await until(() => read(200), (t) => t.includes('CUT-25-END'), 'the lines printed during the cut', 15_000);
    const lines = text.split('\n').filter((line) => /^CUT-LINE-\d+$/.test(line));
    expect(lines).toEqual(Array.from({ length: 60 }, (_, i) => `CUT-LINE-${i + 1}`));
    expect(text).toBe(sshd.corral(['pane', 'read', pane, '--lines', '200']));
  }, 120_000);

  it('a machine whose packets are dropped from the start is unreachable within 10 s, and local verbs stay fast', async () => {
    await proxy.cut();
    try {
      const silent = await addSilentMachine(server, ['silent', target.replace(sshd.user, 'nobody'), '--corral', sshd.remoteCorral]);
      expect(silent.serverMs).toBeLessThan(10_000);
      expect(silent.event.last_error).toMatch(/does not answer|timed out/);
      expect((await machine(server, 'silent')).state).toBe('unreachable');
      // An `ls` that waited for the silent machine would take its whole handshake (9 s): none did.
      expect(Math.max(...silent.lsMs)).toBeLessThan(LINK_TIMING.handshakeMs);
    } finally {
      await proxy.restore();
      await server.cli(['machine', 'remove', 'silent']);
    }
  }, 30_000);
});
