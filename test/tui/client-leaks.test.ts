/**
 * A client that leaves leaves nothing behind (issue 27): attach and leave again and again —
 * direct and relayed, by `prefix d`, by `client.detach`, killed, its terminal closed — and the
 * server's open fds come back to where they started, its RSS within a small constant. Each
 * direct attach used to leave the client's `/dev/pts/N` open twice in the server (libuv
 * reopens a terminal for its handles and leaves the fds it was given open; docs/clients.md,
 * "Leaving"). `npm run bench` runs the same cycles 200 times (bench/client-leaks.mjs).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closedAfterEach, pollUntil, rpc, TuiSession } from './tui-harness.js';

const CTRL_B = '\x02';

/** Every way a client leaves, each tried direct and relayed. */
const WAYS = ['prefix d', 'client.detach', 'SIGKILL', 'terminal closed'] as const;

/** Rounds of all eight (way × direct/relay) in `npm test`; the bench does 200 cycles. */
const ROUNDS = 2;

/** Fds the server may hold beyond its start: a socket or timer handle still closing. */
const FD_SLACK = 2;

/** RSS the server may grow by over the cycles: V8 keeps some heap it grew for a while. */
const RSS_SLACK_KB = 40 * 1024;

function openFds(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

function rssKb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
}

async function clients(tui: TuiSession): Promise<any[]> {
  return (await rpc(tui.socketPath, 'client.list')).clients;
}

describe.skipIf(process.platform !== 'linux')('clients leave nothing behind', () => {
  const session = closedAfterEach();

  it(`closes every fd of ${ROUNDS * WAYS.length * 2} clients that came and went, each way they leave`, async () => {
    const owner = session(new TuiSession());
    await owner.waitForText('w1:p1');
    const server = (await owner.json(['sessions', '--json'])).sessions[0].pid as number;
    owner.type(`${CTRL_B}d`);
    await owner.waitExit();

    /** One client attached, shown, and gone by `way`; returns once the server dropped it. */
    const cycle = async (way: (typeof WAYS)[number], relay: boolean): Promise<void> => {
      const client = owner.attach(100, 30, relay ? { CORRAL_CLIENT_RELAY: '1' } : {});
      await client.waitForText('w1:p1');
      // A direct client is counted once the server holds its terminal (the fds under test).
      await pollUntil(() => clients(owner), (list) => list.length === 1 && list[0].direct === !relay, `one ${relay ? 'relayed' : 'direct'} client`);
      if (way === 'prefix d') client.type(`${CTRL_B}d`);
      else if (way === 'client.detach') await owner.json(['detach', '--all']);
      else if (way === 'SIGKILL') client.kill('SIGKILL');
      else client.closeTerminal();
      await client.waitExit();
      await pollUntil(() => clients(owner), (list) => list.length === 0, 'no client');
      await client.close();
    };

    // One of each first: the chrome's views load at the first attach, for good.
    await cycle('prefix d', false);
    await cycle('prefix d', true);
    const fdsBefore = openFds(server);
    const rssBefore = rssKb(server);
    for (let round = 0; round < ROUNDS; round++) {
      for (const way of WAYS) {
        await cycle(way, false);
        await cycle(way, true);
      }
    }
    // A closing socket's fd goes on the next turn of the server's loop: poll, briefly.
    const fdsAfter = await pollUntil(async () => openFds(server), (n) => n <= fdsBefore + FD_SLACK, `at most ${fdsBefore + FD_SLACK} fds (started with ${fdsBefore})`, 5000).catch(() => openFds(server));
    expect(fdsAfter).toBeLessThanOrEqual(fdsBefore + FD_SLACK);
    expect(rssKb(server) - rssBefore).toBeLessThan(RSS_SLACK_KB);
  });
});
