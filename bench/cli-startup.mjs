/**
 * CLI start-up: wall time of `corral ps --json` (one round trip to a running server) and
 * `corral --version` (no socket), each against bare `node -e 0`, spawned interleaved.
 * Target (issue): `ps --json` ≤ 1.5× `node -e 0`.
 */
import { BIN, CorralServer, median, percentile, round, timeSpawn } from './lib.mjs';

export const description = 'corral ps --json / --version vs node -e 0 (wall time, interleaved)';

export async function run({ quick = false } = {}) {
  const reps = quick ? 8 : 30;
  const server = await new CorralServer().start();
  try {
    // One pane, so `ps` has a real fleet to look at (empty: no agents running).
    await server.newWorkspacePane();
    const commands = {
      node: [process.execPath, ['-e', '0']],
      ps: [process.execPath, [BIN, 'ps', '--json']],
      version: [process.execPath, [BIN, '--version']],
    };
    const times = { node: [], ps: [], version: [] };
    // Warm-up: page cache, the V8 code cache.
    for (const [file, args] of Object.values(commands)) await timeSpawn(file, args, { env: server.env });
    const order = Object.keys(commands);
    for (let i = 0; i < reps; i++) {
      // Rotate the order each round so no command always runs right after another.
      for (let k = 0; k < order.length; k++) {
        const name = order[(i + k) % order.length];
        const [file, args] = commands[name];
        const r = await timeSpawn(file, args, { env: server.env, timeoutMs: 30_000 });
        if (r.code !== 0) throw new Error(`${name} exited ${r.code}: ${r.stderr.trim()}`);
        times[name].push(r.ms);
      }
    }
    const node = median(times.node);
    const row = (name, label, target) => {
      const value = median(times[name]);
      const ratio = value / node;
      return {
        name: label,
        value: round(value, 1),
        unit: 'ms',
        p95: round(percentile(times[name], 95), 1),
        baseline: 'node -e 0',
        baselineValue: round(node, 1),
        ratio: round(ratio),
        ...(target === undefined ? {} : { target: `≤ ${target}×`, pass: ratio <= target }),
      };
    };
    return [
      row('ps', `cli: corral ps --json (median of ${reps})`, 1.5),
      row('version', `cli: corral --version (median of ${reps})`),
    ];
  } finally {
    await server.stop();
  }
}
