/**
 * The npm package (SPEC §17): how big it is packed, how long `npm install -g` of the tarball
 * takes with npm's cache warm, and whether the installed `corral ps --json` starts as fast as
 * this checkout's (the same server, spawned interleaved).
 *
 * Two install rows: every install script run for real (re2 and better-sqlite3 compiled from
 * their sources, as on a machine that cannot reach their download hosts, like this one), and
 * their prebuilt binaries taken from mirrors (test/package/package-install.mjs; what a connected
 * Linux x64 machine downloads) — node-pty and corral's own addon are compiled in both.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshHomeNpmEnv, installArgs, prebuiltMirrorEnv } from '../test/package/package-install.mjs';
import { BIN, CorralServer, interleaved, median, percentile, ROOT, round, timeSpawn } from './lib.mjs';

export const description = 'npm pack size, npm install -g time (cache warm), installed ps --json start vs the checkout';

async function install(dir, tarball, name, extraEnv = {}) {
  const prefix = join(dir, name);
  const home = join(dir, `${name}-home`);
  mkdirSync(home);
  const r = await timeSpawn('npm', installArgs(prefix, tarball), { env: { ...freshHomeNpmEnv(home), ...extraEnv }, timeoutMs: 1_200_000, cwd: dir });
  if (r.code !== 0) throw new Error(`npm install -g (${name}) exited ${r.code}: ${r.stderr.slice(-2000)}`);
  return { ms: r.ms, bin: join(prefix, 'lib', 'node_modules', 'corral', 'bin', 'corral.cjs') };
}

export async function run({ quick = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'corral-bench-package-'));
  const server = await new CorralServer().start();
  try {
    // --ignore-scripts: `npm run bench` built dist/ already (prepack would only build it again).
    const [packed] = JSON.parse(execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, encoding: 'utf8', maxBuffer: 16 << 20 }));
    const tarball = join(dir, packed.filename);
    const rows = [
      { name: 'package: packed size', value: round(packed.size / 1e6, 2), unit: 'MB', target: '≤ 5 MB', pass: packed.size <= 5 * 1024 * 1024 },
      { name: 'package: files in the tarball', value: packed.entryCount, unit: 'files' },
      { name: 'package: unpacked size (corral alone)', value: round(packed.unpackedSize / 1e6, 2), unit: 'MB' },
    ];

    const prebuilt = await install(dir, tarball, 'prebuilt', prebuiltMirrorEnv(ROOT, dir));
    rows.push({ name: 'package: npm install -g, re2 and better-sqlite3 prebuilt (cache warm)', value: round(prebuilt.ms / 1000, 1), unit: 's' });
    if (!quick) {
      const compiled = await install(dir, tarball, 'compiled');
      rows.push({ name: 'package: npm install -g, every addon compiled (cache warm)', value: round(compiled.ms / 1000, 1), unit: 's' });
    }

    await server.newWorkspacePane();
    const reps = quick ? 8 : 30;
    const ps = (bin) => async () => {
      const r = await timeSpawn(process.execPath, [bin, 'ps', '--json'], { env: server.env, timeoutMs: 30_000 });
      if (r.code !== 0) throw new Error(`ps --json exited ${r.code}: ${r.stderr}`);
      return r.ms;
    };
    // Warm-up: page cache; the installed CLI writes its V8 code cache on its first runs if its folder lets it.
    for (let i = 0; i < 3; i++) {
      await ps(prebuilt.bin)();
      await ps(BIN)();
    }
    const times = await interleaved(reps, ps(prebuilt.bin), ps(BIN));
    const installed = median(times.a);
    const checkout = median(times.b);
    rows.push({
      name: `package: installed corral ps --json (median of ${reps})`,
      value: round(installed, 1),
      unit: 'ms',
      p95: round(percentile(times.a, 95), 1),
      baseline: 'the checkout\'s ps --json',
      baselineValue: round(checkout, 1),
      ratio: round(installed / checkout),
      target: '≤ 1.1×',
      pass: installed / checkout <= 1.1,
    });
    return rows;
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
