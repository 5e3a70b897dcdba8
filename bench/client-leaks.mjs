/**
 * A client that leaves leaves nothing behind (issue 27), at length: 200 clients attach to one
 * server (`corral server --detach`, one workspace) and leave, each way in turn — `prefix d`,
 * `client.detach`, SIGKILL, its terminal closed — direct and relayed (CORRAL_CLIENT_RELAY=1)
 * alternating. Each client is waited for until it shows `w1:p1` and `client.list` lists it
 * (direct or not, as asked), and after it left until `client.list` is empty. Reported: the
 * server's open fds (/proc/<pid>/fd) and RSS before the cycles (after one warm-up cycle of each
 * kind) and after. test/tui/client-leaks.test.ts runs 16 of these in `npm test`.
 */
import { readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { BIN, removeDir, round, rssMiB, sleep, timeSpawn, waitUntil } from './lib.mjs';
import { OuterTerminal, makeSandbox } from './tui-lib.mjs';

export const description = 'server fds and RSS after 200 clients attached and left, every way (count, MB)';

const WAYS = ['prefix d', 'client.detach', 'SIGKILL', 'terminal closed'];

function openFds(pid) {
  return readdirSync(`/proc/${pid}/fd`).length;
}


/** One JSON-RPC call on a fresh connection; its result. */
function rpc(socketPath, method, params = {}) {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath, () => socket.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) + '\n'));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk;
      if (!text.includes('\n')) return;
      socket.destroy();
      const reply = JSON.parse(text.slice(0, text.indexOf('\n')));
      if (reply.error) reject(new Error(`${method}: ${reply.error.message}`));
      else resolve(reply.result);
    });
    socket.on('error', reject);
  });
}

async function cycle(sandbox, socketPath, way, relay) {
  const env = relay ? { ...sandbox.env, CORRAL_CLIENT_RELAY: '1' } : sandbox.env;
  const term = new OuterTerminal(process.execPath, [BIN, 'attach'], { cols: 100, rows: 30, env, cwd: sandbox.home });
  try {
    await term.waitForText('w1:p1', 30_000);
    const clients = (check) => waitUntil(async () => check((await rpc(socketPath, 'client.list')).clients), { timeoutMs: 20_000, intervalMs: 20 });
    await clients((list) => list.length === 1 && list[0].direct === !relay);
    if (way === 'prefix d') term.write('\x02d');
    else if (way === 'client.detach') await rpc(socketPath, 'client.detach', { all: true });
    else if (way === 'SIGKILL') term.proc.kill('SIGKILL');
    else term.proc.destroy();
    await term.exited;
    await clients((list) => list.length === 0);
  } finally {
    await term.close();
  }
}

export async function run({ quick = false } = {}) {
  const cycles = quick ? 16 : 200;
  const sandbox = makeSandbox('corral-leaks-bench-');
  const cli = (args) => timeSpawn(process.execPath, [BIN, ...args], { env: sandbox.env });
  const socketPath = join(sandbox.env.XDG_RUNTIME_DIR, 'corral', 'default.sock');
  try {
    const started = await cli(['server', '--detach']);
    if (started.code !== 0) throw new Error(`server --detach: ${started.stderr}`);
    await cli(['workspace', 'create', '--cwd', sandbox.home]);
    const server = (await rpc(socketPath, 'system.identify')).pid;
    await cycle(sandbox, socketPath, 'prefix d', false);
    await cycle(sandbox, socketPath, 'prefix d', true);
    const fds0 = openFds(server);
    const rss0 = rssMiB(server);
    const t0 = Date.now();
    for (let i = 0; i < cycles; i++) {
      await cycle(sandbox, socketPath, WAYS[i % WAYS.length], Math.floor(i / WAYS.length) % 2 === 1);
      if ((i + 1) % 50 === 0) process.stderr.write(`  client-leaks: ${i + 1} clients, server fds ${openFds(server)}, RSS ${rssMiB(server).toFixed(1)} MB\n`);
    }
    // A closing socket's fd goes on the server's next loop turn.
    await sleep(200);
    const fds1 = openFds(server);
    const rss1 = rssMiB(server);
    process.stderr.write(`  client-leaks: ${cycles} clients in ${((Date.now() - t0) / 1000).toFixed(0)} s; fds ${fds0} → ${fds1}, RSS ${rss0.toFixed(1)} → ${rss1.toFixed(1)} MB\n`);
    return [
      {
        name: `clients: server open fds after ${cycles} attach/leave cycles (4 ways × direct/relayed)`,
        value: fds1,
        unit: 'fds',
        baseline: 'before',
        baselineValue: fds0,
        target: '± 2',
        pass: Math.abs(fds1 - fds0) <= 2,
      },
      {
        name: `clients: server RSS after ${cycles} attach/leave cycles`,
        value: round(rss1, 1),
        unit: 'MB',
        baseline: 'before',
        baselineValue: round(rss0, 1),
        target: '± 40 MB',
        pass: Math.abs(rss1 - rss0) <= 40,
      },
    ];
  } finally {
    await cli(['kill-server']);
    await removeDir(sandbox.dir);
  }
}
