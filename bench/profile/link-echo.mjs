/**
 * A remote key's round trip at the link's level (issue 45): a bare JSON-RPC client over
 * `ssh … corral bridge` (no TUI, no mirror here) sends `pane.input` for a remote shell's pane
 * and times the `mirror.event` carrying its echo, and the acknowledgement behind it. Against the
 * TUI's loopback remote echo (bench/machine-predict.mjs), what is left is this side's work.
 *
 *   node bench/profile/link-echo.mjs           through ssh and the bridge to a remote server
 *   node bench/profile/link-echo.mjs --local   straight to a local server's socket (gate open)
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Duplex } from 'node:stream';
import { CorralServer, importBundled, median, percentile, round, sleep } from '../lib.mjs';

const KEYS = 200;
const local = process.argv.includes('--local');
const { mod, dispose } = await importBundled('test/integration/ssh-harness.ts');
const sshd = local ? null : await mod.TestSshd.start();
const server = local ? await new CorralServer().start() : null;
try {
  let child;
  if (local) {
    const socket = connect(server.socketPath);
    await new Promise((resolve) => socket.once('connect', resolve));
    child = { stdin: socket, stdout: socket, kill: () => socket.destroy() };
  } else child = spawn(sshd.sshWords[0], [...sshd.sshWords.slice(1), '-T', '-o', 'BatchMode=yes', sshd.target, `${sshd.remoteCorral} bridge --session prof`], { stdio: ['pipe', 'pipe', 'inherit'] });
  if (process.argv.includes('--duplex')) {
    // As the link speaks to ssh (src/machines/machine-link.ts): one Duplex over its stdio.
    const duplex = Duplex.from({ readable: child.stdout, writable: child.stdin });
    duplex.on('error', () => {});
    const kill = child.kill.bind(child);
    child = { stdin: duplex, stdout: duplex, kill };
  }
  let buffer = '';
  let next = 1;
  const pending = new Map();
  const listeners = new Set();
  child.stdout.on('data', (chunk) => {
    buffer += chunk.toString();
    let nl;
    while ((nl = buffer.indexOf('\n')) !== -1) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.id === undefined) for (const l of listeners) l(message.params);
      else {
        pending.get(message.id)?.(message);
        pending.delete(message.id);
      }
    }
  });
  const call = (method, params) => new Promise((resolve) => {
    const id = next++;
    pending.set(id, resolve);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
  });
  const created = await call('workspace.create', { cwd: '/tmp' });
  const pane = created.result.root_pane;
  await call('mirror.subscribe', {});
  await sleep(1500);
  const echo = [];
  const ack = [];
  for (let i = 0; i < KEYS + 10; i++) {
    const ch = 'abcdefghij'[i % 10];
    const t0 = performance.now();
    let tEcho = 0;
    await new Promise((resolve) => {
      const listener = (event) => {
        if (event.kind === 'output' && event.surface_id === pane.surface_id && Buffer.from(event.data, 'base64').toString().includes(ch) && !tEcho) tEcho = performance.now();
        if (event.kind === 'ack' && event.input === i + 1) {
          listeners.delete(listener);
          if (i >= 10) {
            echo.push(tEcho - t0);
            ack.push(performance.now() - t0);
          }
          resolve();
        }
      };
      listeners.add(listener);
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'pane.input', params: { pane_id: pane.pane_id, data: ch, seq: i + 1 } })}\n`);
    });
    await sleep(20 + Math.random() * 20);
    if (i % 20 === 19) child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'pane.input', params: { pane_id: pane.pane_id, data: '\x15' } })}\n`);
  }
  process.stdout.write(`pane.input → echo batch: p50 ${round(median(echo), 3)} ms (p10 ${round(percentile(echo, 10), 3)}, p90 ${round(percentile(echo, 90), 3)}); → ack: p50 ${round(median(ack), 3)} ms\n`);
  child.kill();
} finally {
  await sshd?.stop();
  await server?.stop();
  dispose();
}
