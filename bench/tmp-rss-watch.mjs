import { readFileSync } from 'node:fs';
import { RpcClient, agentServer } from './agent-lib.mjs';
import { sleep } from './lib.mjs';
const server = agentServer();
if (process.argv[2] === 'off') server.env.CORRAL_COMPACT_SCROLLBACK = '0';
await server.start();
const rpc = await RpcClient.open(server.socketPath);
const rss = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'))[1]) / 1024);
const ids = [];
for (let i = 0; i < 8; i++) ids.push((await rpc.call('workspace.create', { cwd: server.dir, focus: false })).result.root_pane.pane_id);
console.log('start', rss());
await Promise.all(ids.map(async (p, i) => {
  await rpc.call('pane.run', { pane_id: p, command: `seq -f 'scrollback line %06g: the quick brown fox jumps over the lazy dog, twice' 1 20000; printf '%s-%s\\n' DONE ${i}` });
  await rpc.call('pane.wait_for_output', { pane_id: p, match: { type: 'substring', value: `DONE-${i}` }, timeout_ms: 120000 }, 130000);
}));
const t0 = Date.now();
for (let i = 0; i < 12; i++) { console.log(Math.round((Date.now() - t0) / 1000), 's', rss(), 'MB'); await sleep(2500); }
rpc.close();
await server.stop();
