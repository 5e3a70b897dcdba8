/**
 * A machine behind a link that can be cut (SPEC §14): sshd on 127.0.0.1 behind a TCP proxy
 * that holds every byte while cut (a pulled cable: no reset, nothing said; this machine's
 * kernel has no netem, so the link is shaped in userspace, test/integration/ssh-harness.ts). The mirror
 * keeps what it had while the link is cut, the machine goes `reconnecting` once ssh's
 * keep-alives give up, and after the link is back every line printed meanwhile is in the
 * mirror once, in order. A machine that never answers (its packets dropped from the start) is
 * `unreachable` within 10 s with a `last_error` that says what to check, while local verbs stay fast.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestServer, procStat } from './harness.js';
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

/** The n of each ML-n line in a read, in order. */
function mlNumbers(text: string): number[] {
  return text.split('\n').flatMap((line) => {
    const m = /^ML-(\d+)$/.exec(line);
    return m ? [Number(m[1])] : [];
  });
}

/** The highest ML-n line in a read. */
function highest(text: string): number {
  return Math.max(0, ...mlNumbers(text));
}

/** Processes whose parent is `parent` and whose name is `name`, from /proc. */
function childrenNamed(parent: number | null, name: string, uid?: number): number[] {
  return readdirSync('/proc').flatMap((entry) => {
    if (!/^\d+$/.test(entry)) return [];
    const stat = procStat(entry);
    if (!stat || (parent !== null && Number(stat.fields[1]) !== parent)) return [];
    try {
      if (uid !== undefined && statSync(`/proc/${entry}`).uid !== uid) return [];
      return stat.comm === name || readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(name) ? [Number(entry)] : [];
    } catch {
      return [];
    }
  });
}

/** The ssh processes this server runs for its links. */
const linkSsh = (serverPid: number) => childrenNamed(serverPid, 'ssh');

/** How many `corral … bridge` processes the remote user runs (one per live link). */
function remoteBridges(user: string): number {
  const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8' }).trim());
  return childrenNamed(null, 'bridge', uid).length;
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
    // ssh takes the first value given for an option, and these words come before corral's own
    // (5 s × 3): the same keep-alives, given up after ~3 s instead of ~15, so the cut is seen sooner.
    (server.env as Record<string, string>).CORRAL_SSH = [...words, '-o', 'ServerAliveInterval=1', '-o', 'ServerAliveCountMax=3'].join(' ');
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

  it('a link killed mid-stream, three times at seeded moments, loses no line and doubles none, and leaves no bridge behind', async () => {
    if (!(await machine(server, 'far'))) await server.cli(['machine', 'add', 'far', target, '--corral', sshd.remoteCorral]);
    await until(() => machine(server, 'far'), (m) => m?.state === 'connected', 'far to be connected', 40_000);
    const pane = JSON.parse((await server.cli(['--machine', 'far', 'workspace', 'create', '--cwd', '/tmp'])).stdout).result.root_pane.pane_id;
    const read = async (lines: number) => (await server.cli(['machine', 'read', `far/${pane}`, '--lines', String(lines)])).stdout;
    await until(() => read(5), (text) => text.includes('$'), 'the remote prompt in the mirror', 10_000);
    const bridgesBefore = remoteBridges(sshd.user);
    expect(bridgesBefore).toBeGreaterThan(0);
    // Paced, so the kills fall while it streams: 3,000 lines over ~6 s.
    sshd.corral(['pane', 'run', pane, 'for i in $(seq 1 3000); do echo ML-$i; [ $((i % 100)) = 0 ] && sleep 0.2; done; echo KILL-$((6*7))-END']);
    const killAt = fc.sample(fc.integer({ min: 100, max: 2800 }), { seed: 4204, numRuns: 3 }).sort((a, b) => a - b);
    for (const [round, line] of killAt.entries()) {
      await until(() => read(3), (text) => highest(text) >= line || text.includes('KILL-42-END'), `ML-${line} in the mirror`, 30_000);
      const ssh = linkSsh(server.pid!);
      expect(ssh.length, `round ${round}: the link's ssh`).toBe(1);
      process.kill(ssh[0]!, 'SIGKILL');
      await until(() => machine(server, 'far'), (m) => m?.state === 'connected' && linkSsh(server.pid!).some((pid) => pid !== ssh[0]), `far to reconnect after kill ${round}`, 30_000);
    }
    const text = await until(() => read(3500), (t) => t.includes('KILL-42-END'), 'the end of the output', 60_000);
    const numbers = mlNumbers(text);
    // Every line the mirror holds runs on from the one before (it holds the last 2,000 after a re-snapshot).
    for (let i = 1; i < numbers.length; i++) expect(numbers[i], `after ML-${numbers[i - 1]}`).toBe(numbers[i - 1]! + 1);
    expect(numbers.at(-1)).toBe(3000);
    expect(numbers.length).toBeGreaterThanOrEqual(1000);
    expect(await read(200)).toBe(sshd.corral(['pane', 'read', pane, '--lines', '200']));
    // The far side's bridges of the killed links ended with their connections.
    await until(async () => remoteBridges(sshd.user), (n) => n <= bridgesBefore, 'the killed links\' bridges to end', 10_000);
    expect(server.alive).toBe(true);
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
