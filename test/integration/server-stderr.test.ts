/**
 * A server whose stderr has nobody reading it any more (the terminal it was started from
 * closed, a log pipe's reader died) must go on serving, quietly. Found on a loaded machine: a
 * test's server outlived its test runner; its next line to stderr failed with EPIPE, the
 * failure was reported as an uncaught error — to stderr, failing again — and the server spun
 * at 70 % of a core for over an hour.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { TestServer } from './harness.js';

/** utime + stime of a process, in clock ticks. */
function cpuTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

describe('a server whose stderr went away', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.stop();
  });

  it('goes on answering and does not spin on the failed writes', async () => {
    server = await new TestServer({ scripting: true }).start();
    const pid = server.pid!;
    server.closeStderr();
    const rpc = await server.connect();
    // Lines to stderr: each SIGUSR1 reports what it did there.
    process.kill(pid, 'SIGUSR1');
    process.kill(pid, 'SIGUSR1');
    await rpc.call('system.ping');
    const before = cpuTicks(pid);
    const windowEnd = Date.now() + 2000;
    let pings = 0;
    while (Date.now() < windowEnd) {
      expect((await rpc.call('system.ping')).pong).toBe(true);
      pings++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // A server spinning on its own error reports uses a core's worth (~200 ticks in 2 s); an
    // idle one answering ~40 pings uses a few.
    expect(cpuTicks(pid) - before).toBeLessThan(60);
    expect(pings).toBeGreaterThan(5);
    expect(server.alive).toBe(true);
    rpc.close();
  });
});
