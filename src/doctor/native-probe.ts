/**
 * Loads corral's native parts in a child process and reports, for each, whether it works:
 * node-pty (and a program run in a pty), re2, better-sqlite3, and corral's own addon. In a child because a
 * binary built for another Node can crash the process that loads it, and because the CLI
 * bundle must never load node-pty itself (scripts/build.mjs).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NATIVE_ADDON } from '../native-addon.js';

export interface ProbeResult {
  ok: boolean;
  /** Why not, in one line ('' when ok). */
  error: string;
}

export interface NativeProbe {
  pty: ProbeResult;
  re2: ProbeResult;
  sqlite: ProbeResult;
  addon: ProbeResult;
}

/** Where scripts/build-native.cjs leaves the reason an install-time build failed. */
const BUILD_ERROR = path.join('native', 'build-error.txt');

/**
 * The child's script: argv[1] is the package root, argv[2] the addon's path. Each part is
 * loaded the way corral loads it (modules resolved from the package root), and each result
 * printed as one JSON object.
 */
const PROBE = String.raw`
const { createRequire } = require('node:module');
const root = process.argv[1];
const load = createRequire(require('node:path').join(root, 'package.json'));
const oneLine = (e) => String(e && e.message || e).split('\n')[0];
const result = { pty: { ok: false, error: '' }, re2: { ok: false, error: '' }, sqlite: { ok: false, error: '' }, addon: { ok: false, error: '' } };
const done = () => { process.stdout.write(JSON.stringify(result)); process.exit(0); };
try { const RE2 = load('re2'); result.re2.ok = new RE2('a+b').test('xaab'); if (!result.re2.ok) result.re2.error = 'a test pattern did not match'; } catch (e) { result.re2.error = oneLine(e); }
try { const Database = load('better-sqlite3'); const db = new Database(':memory:'); result.sqlite.ok = db.prepare('select 7 as x').get().x === 7; db.close(); } catch (e) { result.sqlite.error = oneLine(e); }
try { load(process.argv[2]); result.addon.ok = true; } catch (e) { result.addon.error = oneLine(e); }
let pty;
try { pty = load('node-pty'); } catch (e) { result.pty.error = oneLine(e); done(); }
try {
  const child = pty.spawn('/bin/sh', ['-c', 'exit 7'], { cols: 80, rows: 24, cwd: root, env: process.env });
  const timer = setTimeout(() => { result.pty.error = 'a program started in a pty did not exit within 5 s'; done(); }, 5000);
  child.onExit(({ exitCode }) => {
    clearTimeout(timer);
    result.pty.ok = exitCode === 7;
    if (!result.pty.ok) result.pty.error = 'a program in a pty exited ' + exitCode + ', not 7';
    done();
  });
} catch (e) { result.pty.error = 'loads, but cannot start a program: ' + oneLine(e); done(); }
`;

function failed(error: string): ProbeResult {
  return { ok: false, error };
}

/** The reason the install-time build of corral's addon failed, if it left one. */
function buildError(root: string): string {
  try {
    return readFileSync(path.join(root, BUILD_ERROR), 'utf8').trim().split('\n').slice(-3).join(' ');
  } catch {
    return '';
  }
}

/** Probes the native parts of the corral at `root`; never throws. */
export function probeNative(root: string): Promise<NativeProbe> {
  const addonPath = path.join(root, NATIVE_ADDON);
  return new Promise((resolve) => {
    execFile(process.execPath, ['-e', PROBE, root, addonPath], { timeout: 15_000, maxBuffer: 1 << 20 }, (error, stdout, stderr) => {
      let probe: NativeProbe;
      try {
        probe = JSON.parse(stdout) as NativeProbe;
      } catch {
        const why = `the probe process failed: ${(error?.message ?? '').split('\n')[0]} ${String(stderr).trim().split('\n').pop() ?? ''}`.trim();
        probe = { pty: failed(why), re2: failed(why), sqlite: failed(why), addon: failed(why) };
      }
      if (!probe.addon.ok) {
        const reason = buildError(root);
        if (reason) probe.addon.error = `not built at install: ${reason}`;
      }
      resolve(probe);
    });
  });
}
