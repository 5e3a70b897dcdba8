/**
 * corral as people install it (SPEC §17): `npm pack` of this checkout, `npm install -g` of the
 * tarball into a fresh prefix with a fresh HOME, and the installed `corral` — with no checkout
 * around it — running a server, a pane, a read, the TUI, `corral web`'s page, `corral mcp`, `doctor`, and
 * running on (saying so) when its own native addon is gone.
 *
 * One install serves every case. It is the user's path but for one shortcut: re2's and
 * better-sqlite3's install scripts take this checkout's compiled binaries through their own
 * mirror settings (test/package/package-install.mjs) instead of compiling them again; node-pty and
 * corral's own addon are compiled by the install. `.ci/run` installs with no shortcut at all
 * before the suite (scripts/smoke-installed.sh).
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestServer } from '../integration/harness.js';
import { TuiSession } from '../tui/tui-harness.js';
import { VERSION } from '../../src/version.js';
import { runtimePackages } from '../../src/machines/machine-install.js';
import { freshHomeNpmEnv, installArgs, prebuiltMirrorEnv } from './package-install.mjs';

const run = promisify(execFile);

/** SPEC §17: packed ≤ 5 MB. */
const MAX_PACKED_BYTES = 5 * 1024 * 1024;
const INSTALL_TIMEOUT_MS = 300_000;

interface PackFile {
  path: string;
  size: number;
}

const npmMissing = await run('npm', ['--version']).then(
  () => '',
  () => 'npm is not on PATH: the package cannot be packed or installed here',
);

describe.skipIf(npmMissing !== '')('the npm package', () => {
  describe('npm pack --dry-run', () => {
    let files: PackFile[] = [];
    let packedSize = 0;

    beforeAll(async () => {
      // --ignore-scripts: prepack would rebuild dist/ under the other tests' feet; `npm test` built it.
      const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 16 << 20 });
      const [report] = JSON.parse(stdout) as [{ files: PackFile[]; size: number }];
      files = report.files;
      packedSize = report.size;
    });

    it('ships what the runtime loads and no tests, benchmarks, fixtures or sources', () => {
      const paths = files.map((file) => file.path);
      for (const needed of ['bin/corral.cjs', 'dist/boot.cjs', 'dist/cli.cjs', 'dist/server.js', 'dist/client.cjs', 'dist/web/app.js', 'assets/agents/claude.toml', 'assets/agents/generic.toml', 'native/peer_cred.c', 'native/binding.gyp', 'scripts/build-native.cjs', 'LICENSE', 'README.md', 'npm-shrinkwrap.json']) {
        expect(paths, needed).toContain(needed);
      }
      const stray = paths.filter((p) => /^(test|bench|src|components|docs|\.ci|\.cache)\//.test(p) || /fixtures|\.map$|\.test\.|native\/build\//.test(p));
      expect(stray).toEqual([]);
      expect(packedSize).toBeLessThanOrEqual(MAX_PACKED_BYTES);
    });

    it('builds before packing and builds the addon at install', () => {
      const manifest = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      expect(manifest.scripts.prepack).toMatch(/\bbuild\b/);
      expect(manifest.scripts.install).toBe('node scripts/build-native.cjs');
    });
  });

  describe('installed with npm install -g', () => {
    let dir = '';
    let prefix = '';
    let installed = '';
    let bin = '';

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'corral-package-'));
      prefix = path.join(dir, 'prefix');
      const home = path.join(dir, 'npm-home');
      mkdirSync(home);
      const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 16 << 20 });
      const tarball = path.join(dir, (JSON.parse(stdout) as [{ filename: string }])[0].filename);
      await run('npm', installArgs(prefix, tarball), {
        cwd: dir,
        env: { ...freshHomeNpmEnv(home), ...prebuiltMirrorEnv(ROOT, dir) },
        timeout: INSTALL_TIMEOUT_MS,
        maxBuffer: 16 << 20,
      });
      installed = path.join(prefix, 'lib', 'node_modules', 'corral');
      bin = path.join(prefix, 'bin', 'corral');
    }, INSTALL_TIMEOUT_MS + 30_000);

    afterAll(() => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('puts a corral on the prefix PATH that is not this checkout', async () => {
      expect(realpathSync(bin)).toBe(path.join(installed, 'bin', 'corral.cjs'));
      expect(existsSync(path.join(installed, 'src'))).toBe(false);
      expect(existsSync(path.join(installed, 'native', 'build', 'Release', 'peer_cred.node'))).toBe(true);
      // What the build bundles into dist/ is not installed again (package.json: only what is loaded from node_modules).
      for (const bundled of ['yargs', '@modelcontextprotocol/sdk', '@xterm/headless', 'json-rpc-2.0']) expect(existsSync(path.join(installed, 'node_modules', bundled)), bundled).toBe(false);
      const { stdout } = await run(bin, ['--version'], { cwd: dir });
      expect(stdout.trim()).toBe(VERSION);
    });

    it('runs a server, a pane and a read, from the install alone', async () => {
      const server = await new TestServer({ scripting: true, bin: path.join(installed, 'bin', 'corral.cjs') }).start();
      try {
        const created = await server.json(['workspace', 'create', '--cwd', server.home, '--no-focus']);
        const pane = created.result.root_pane.pane_id as string;
        expect((await server.cli(['pane', 'run', pane, 'echo installed-$((6*7))'])).code).toBe(0);
        const waited = await server.cli(['pane', 'wait-output', pane, '--regex', 'installed-42', '--timeout', '10000']);
        expect(waited.code, waited.stderr).toBe(0);
        const read = await server.cli(['read', pane, '--lines', '5']);
        expect(read.stdout).toContain('<untrusted_terminal_output');
        expect(read.stdout).toMatch(/^installed-42$/m);
        // The rules ship too: ps answers from them (no agents yet, no error).
        const ps = await server.cli(['ps', '--json']);
        expect(ps.code, ps.stderr).toBe(0);
      } finally {
        await server.stop();
      }
    });

    it('draws the TUI with a live pane', async () => {
      const tui = new TuiSession(100, 30, {}, undefined, { bin: path.join(installed, 'bin', 'corral.cjs') });
      try {
        await tui.waitForText('w1:p1');
        tui.type('echo tui-$((3*5))\r');
        await tui.waitForText('tui-15');
      } finally {
        await tui.close();
      }
    });

    it("serves corral web's page from the install", async () => {
      const server = await new TestServer({ bin: path.join(installed, 'bin', 'corral.cjs') }).start();
      const web = spawn(process.execPath, [path.join(installed, 'bin', 'corral.cjs'), 'web', '--listen', '127.0.0.1:0'], { env: server.env, stdio: ['ignore', 'pipe', 'pipe'] });
      try {
        const url = await new Promise<string>((resolve, reject) => {
          let output = '';
          web.stdout.on('data', (chunk) => {
            output += chunk;
            const match = /open (http:\/\/\S+?)\/#token=/.exec(output);
            if (match) resolve(match[1]!);
          });
          web.once('exit', (code) => reject(new Error(`corral web exited ${code}: ${output}`)));
        });
        const script = await fetch(`${url}/app.js`);
        expect(script.status).toBe(200);
        const body = await script.text();
        expect(body.length).toBe(statSync(path.join(installed, 'dist', 'web', 'app.js')).size);
        expect((await fetch(`${url}/`)).status).toBe(200);
      } finally {
        web.kill('SIGTERM');
        await server.stop();
      }
    });

    it('serves corral mcp from the install: its tools, and a read through them', async () => {
      const server = await new TestServer({ bin: path.join(installed, 'bin', 'corral.cjs') }).start();
      const client = new Client({ name: 'package-test', version: '1' });
      try {
        const created = await server.json(['workspace', 'create', '--cwd', server.home, '--no-focus']);
        await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(installed, 'bin', 'corral.cjs'), 'mcp'], env: server.env as Record<string, string>, stderr: 'pipe' }));
        expect(client.getServerVersion()).toMatchObject({ name: 'corral', version: VERSION });
        const { tools } = await client.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['fleet', 'agent_start', 'agent_prompt', 'pane_read', 'pane_send']));
        const read = (await client.callTool({ name: 'pane_read', arguments: { pane: created.result.root_pane.pane_id } })) as { isError?: boolean; content: { type: string; text: string }[] };
        expect(read.isError ?? false).toBe(false);
        expect(read.content[0]!.text).toContain('<untrusted_terminal_output');
      } finally {
        await client.close();
        await server.stop();
      }
    });

    it('machine install would copy the runtime packages of the install, compiled addons included', () => {
      const packages = runtimePackages(installed).map((dir) => path.relative(installed, dir));
      expect(packages).toContain(path.join('node_modules', 'node-pty'));
      expect(packages).toContain(path.join('node_modules', 're2'));
      expect(packages).not.toContain(path.join('node_modules', 'node-gyp'));
      expect(existsSync(path.join(installed, 'node_modules', 'node-pty', 'build', 'Release', 'pty.node'))).toBe(true);
    });

    it('doctor: all is well, from the install', async () => {
      const home = mkdtempSync(path.join(dir, 'home-'));
      const { stdout } = await run(bin, ['doctor', '--json'], { env: { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: path.join(home, 'run') } });
      const report = JSON.parse(stdout) as { ok: boolean; installed: boolean; root: string; checks: { name: string; ok: boolean }[] };
      expect(report.checks.filter((check) => !check.ok)).toEqual([]);
      expect(report).toMatchObject({ ok: true, installed: true, root: installed });
    });

    // Last: it takes the addon away from the install.
    it('runs without its own addon, and doctor and the gate say why', async () => {
      const addon = path.join(installed, 'native', 'build', 'Release', 'peer_cred.node');
      renameSync(addon, `${addon}.away`);
      const server = await new TestServer({ bin: path.join(installed, 'bin', 'corral.cjs') }).start();
      try {
        const created = await server.json(['workspace', 'create', '--cwd', server.home, '--no-focus']);
        expect(created.result.root_pane.pane_id).toBe('w1:p1');
        expect(server.stderr).toMatch(/addon did not load .*`corral doctor` says how to build it/);
        const doctor = await server.cli(['doctor']);
        expect(doctor.code).toBe(1);
        expect(doctor.stdout).toMatch(/FAIL\s+addon\s+.*peer_cred\.node/);
        expect(doctor.stdout).toContain('npm rebuild -g');
        // No stack trace anywhere: not from the server, not from a verb.
        expect(server.stderr + doctor.stderr).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m);
      } finally {
        await server.stop();
        renameSync(`${addon}.away`, addon);
      }
    });
  });
});
