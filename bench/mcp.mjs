/**
 * `corral mcp` (SPEC §19, issue 40's measures): what a tool call costs next to the CLI verb that
 * does the same, against one server with a pane holding 200 lines of output.
 *
 * 1. `fleet` (a call on a `corral mcp` already running, as an agent's MCP client keeps it) vs
 *    `corral ps --json` (a process per call, as an agent's shell tool runs it).
 * 2. `pane_read` (80 lines, fenced) vs `corral read <pane> --lines 80`.
 * 3. The same two tool calls against the methods themselves on a socket the bench holds
 *    (`fleet.list` + `surface.list`, `surface.read`): the MCP process's own share per call.
 * 4. `corral mcp` cold: spawn, MCP initialize and the first `fleet` call, vs `ps --json`.
 *
 * Calls alternate with their baseline (interleaved), so drift in the machine's load falls on both.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { RpcClient } from './agent-lib.mjs';
import { BIN, CorralServer, corral, interleaved, median, percentile, round, waitUntil } from './lib.mjs';

export const description = 'corral mcp: fleet / pane_read tool calls vs ps --json / read, and vs the RPC methods alone';

async function mcpClient(env) {
  const client = new Client({ name: 'corral-bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env, stderr: 'ignore' }));
  return client;
}

async function timed(fn) {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

async function toolCall(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name}: ${result.content[0]?.text}`);
  return result;
}

function rows(label, times, baselineLabel, target) {
  const value = median(times.a);
  const base = median(times.b);
  const ratio = value / base;
  return {
    name: `${label} (median of ${times.a.length})`,
    value: round(value, 2),
    unit: 'ms',
    p95: round(percentile(times.a, 95), 2),
    baseline: `${baselineLabel} (p95 ${round(percentile(times.b, 95), 2)})`,
    baselineValue: round(base, 2),
    ratio: round(ratio, 3),
    ...(target === undefined ? {} : { target: `≤ ${target}×`, pass: ratio <= target }),
  };
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 10 : 60;
  const coldReps = quick ? 4 : 15;
  const server = await new CorralServer().start();
  let client;
  let rpc;
  try {
    const pane = await server.newWorkspacePane();
    await corral(server, ['pane', 'run', pane, 'seq -f "line %g of the bench output" 1 200']);
    await waitUntil(async () => (await corral(server, ['pane', 'read', pane, '--lines', '5'])).stdout.includes('line 200 of'), { timeoutMs: 10_000 });
    client = await mcpClient(server.env);
    rpc = await RpcClient.open(server.socketPath);
    // Warm-up: both sides' code caches and the server's read path.
    for (let i = 0; i < 5; i++) {
      await toolCall(client, 'fleet', {});
      await toolCall(client, 'pane_read', { pane, lines: 80 });
      await corral(server, ['ps', '--json']);
      await corral(server, ['read', pane, '--lines', '80']);
    }

    const fleetVsPs = await interleaved(
      reps,
      () => timed(() => toolCall(client, 'fleet', {})),
      () => timed(() => corral(server, ['ps', '--json'])),
    );
    const readVsRead = await interleaved(
      reps,
      () => timed(() => toolCall(client, 'pane_read', { pane, lines: 80 })),
      () => timed(() => corral(server, ['read', pane, '--lines', '80'])),
    );
    const fleetVsRpc = await interleaved(
      reps,
      () => timed(() => toolCall(client, 'fleet', {})),
      () => timed(() => Promise.all([rpc.call('fleet.list', {}), rpc.call('surface.list', {})])),
    );
    const readVsRpc = await interleaved(
      reps,
      () => timed(() => toolCall(client, 'pane_read', { pane, lines: 80 })),
      () => timed(() => rpc.call('surface.read', { target: pane, lines: 80 })),
    );
    const cold = await interleaved(
      coldReps,
      () =>
        timed(async () => {
          const c = await mcpClient(server.env);
          await toolCall(c, 'fleet', {});
          await c.close();
        }),
      () => timed(() => corral(server, ['ps', '--json'])),
    );
    return [
      rows('mcp: fleet tool call', fleetVsPs, 'corral ps --json', 1),
      rows('mcp: pane_read tool call, 80 lines', readVsRead, 'corral read --lines 80', 1),
      rows('mcp: fleet tool call over its methods', fleetVsRpc, 'fleet.list + surface.list on a socket'),
      rows('mcp: pane_read tool call over its method', readVsRpc, 'surface.read on a socket'),
      rows('mcp: corral mcp cold (spawn, initialize, fleet)', cold, 'corral ps --json'),
    ];
  } finally {
    await client?.close().catch(() => {});
    rpc?.close?.();
    await server.stop();
  }
}
