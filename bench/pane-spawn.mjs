/**
 * New pane to first output: `workspace.create` on the raw socket until the new pane's first
 * `surface_changed` (its shell's first output), against bare node spawning the same bash on
 * a node-pty until its first output. The difference is what corral adds to starting a pane:
 * the request, the model, the fd-closing step that isolates the pane (docs/security.md:
 * one bash start and one exec of env before the shell), the terminal. Runs interleaved.
 */
import { join } from 'node:path';
import * as pty from 'node-pty';
import { CorralServer, interleaved, median, percentile, round } from './lib.mjs';
import { RpcClient } from './agent-lib.mjs';

export const description = 'new pane → first output: corral workspace.create vs bare node-pty spawn (same bash)';

/** Bare node: spawn bash on a pty and resolve with ms until its first output. */
function bareSpawn(env, cwd) {
  return new Promise((resolve) => {
    const start = performance.now();
    const child = pty.spawn('/bin/bash', [], { name: 'xterm-256color', cols: 160, rows: 48, cwd, env });
    const sub = child.onData(() => {
      sub.dispose();
      const ms = performance.now() - start;
      child.onExit(() => resolve(ms));
      child.kill('SIGKILL');
    });
  });
}

export async function run({ quick = false } = {}) {
  const reps = quick ? 5 : 30;
  const server = await new CorralServer().start();
  const socketPath = join(server.dir, 'run', 'corral', 'default.sock');
  const rpc = await RpcClient.open(socketPath);
  const events = await RpcClient.open(socketPath);
  try {
    await events.call('events.subscribe', { types: ['surface_changed'] });
    const corralOnce = async () => {
      const start = Date.now();
      const { result } = await rpc.call('workspace.create', { cwd: server.dir, focus: false });
      const pane = result.root_pane.pane_id;
      const { receivedAt } = await events.nextEvent((e) => e.pane_id === pane, 10_000);
      await rpc.call('workspace.close', { workspace_id: result.workspace.workspace_id });
      return receivedAt - start;
    };
    // Warm-up: page cache, the first pty, JIT.
    await corralOnce();
    await bareSpawn(server.env, server.dir);
    const times = await interleaved(reps, () => corralOnce(), () => bareSpawn(server.env, server.dir));
    const bare = median(times.b);
    const value = median(times.a);
    return [
      {
        name: `pane spawn: new pane → first output (median of ${reps})`,
        value: round(value, 1),
        unit: 'ms',
        p95: round(percentile(times.a, 95), 1),
        baseline: 'node-pty spawn bash',
        baselineValue: round(bare, 1),
        ratio: round(value / bare),
      },
    ];
  } finally {
    rpc.close();
    events.close();
    await server.stop();
  }
}
