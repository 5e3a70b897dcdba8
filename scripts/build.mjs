#!/usr/bin/env node
/**
 * Builds dist/ with esbuild:
 *
 *   dist/server.js, dist/chunks/*               ESM, code-split: src/server/run-server.ts (the
 *                                              server, which draws attached clients' screens)
 *   dist/cli.cjs                               the CLI (src/cli/main.ts), CommonJS, one file
 *   dist/heavy.cjs                             src/cli/heavy.ts: the CLI's only way to the ESM parts
 *   dist/boot.cjs                              src/cli/boot.ts: runs cli.cjs from a V8 code cache
 *   dist/client.cjs                            src/client/client-main.ts: the thin client (`corral`,
 *                                              `corral attach`), CommonJS, no yargs, no UI stack
 *   dist/cli.cjs.cache                         that cache, written by one warm-up run below
 *   dist/web.js                                src/web/run-web.ts: `corral web`, ESM with `ws`, loaded on demand
 *   dist/web/app.js, dist/web/app.css          the web view's page (src/web/page/): one browser bundle
 *                                              with @xterm/xterm and its styles
 *
 * Why the CLI is CommonJS: it must start within 1.5× of `node -e 0`, and only CommonJS-style
 * scripts can use a V8 code cache on Node 20 (see src/cli/boot.ts). The build fails if the
 * CLI bundle can reach the UI stack or the native pty addon (SPEC §1).
 */
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { buildNative } = createRequire(import.meta.url)('./build-native.cjs');
const started = performance.now();

/** Native addon and UI stack: loaded from node_modules at run time, never bundled. */
const EXTERNAL = ['node-pty', 'ink', 'react', 'react/jsx-runtime', 'react/jsx-dev-runtime', 'yoga-layout'];

/** The ESM entry points the CLI loads on demand, by output name. */
const HEAVY_ENTRIES = { server: 'src/server/run-server.ts', web: 'src/web/run-web.ts', mcp: 'src/mcp/run-mcp.ts' };

/** ws' optional native speed-ups: not installed, and ws works without them. */
const WS_OPTIONAL = ['bufferutil', 'utf-8-validate'];

const common = {
  absWorkingDir: root,
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Smaller source parses faster; stack traces map back through the .map files.
  minify: true,
  external: EXTERNAL,
  logLevel: 'warning',
  jsx: 'automatic',
};

/** Redirects imports matched by `filter` (from importers matching `from`) to an external path. */
function redirect(name, filter, from, to) {
  return {
    name,
    setup(b) {
      b.onResolve({ filter }, (args) => (from.test(args.importer) ? { path: to, external: true } : undefined));
    },
  };
}

/**
 * Lighter stand-ins for two modules yargs (and its help layout: cliui, wrap-ansi) imports, each
 * a measurable share of every CLI start: `string-width` compiles Unicode-property regexes at
 * import (~20 ms) to measure ASCII help text; `assert` (~1.5 ms) guards internal invariants.
 */
const LIGHT_SHIMS = { 'string-width': 'src/cli/string-width-lite.ts', assert: 'src/cli/assert-lite.ts' };
const lightShims = {
  name: 'light-shims',
  setup(b) {
    b.onResolve({ filter: /^(string-width|assert)$/ }, (args) =>
      /[\\/]node_modules[\\/](yargs|cliui|wrap-ansi)[\\/]/.test(args.importer)
        ? { path: path.join(root, LIGHT_SHIMS[args.path]) }
        : undefined,
    );
  },
};

/** Bundled inputs the CLI and the thin client must never contain: xterm and corral's Ink views. */
const HEAVY_INPUTS = /(^|[\\/])(node_modules[\\/]@xterm|components)[\\/]/;

/** Throws if a CLI bundle imports or contains a module the CLI must never load. */
function assertLeanCli(metafile) {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const imp of output.imports) {
      if (imp.external && EXTERNAL.includes(imp.path)) throw new Error(`${file} imports ${imp.path}; the CLI must not`);
    }
  }
  for (const input of Object.keys(metafile.inputs)) {
    if (HEAVY_INPUTS.test(input)) throw new Error(`a CLI bundle contains ${input}; the CLI and the client must not`);
  }
}

// corral's native addon (scripts/build-native.cjs, also npm's install script): here a failure is an error.
buildNative(root);
rmSync(path.join(root, 'dist'), { recursive: true, force: true });

const heavyEntries = Object.fromEntries(Object.entries(HEAVY_ENTRIES).filter(([, file]) => existsSync(path.join(root, file))));
for (const [name, file] of Object.entries(HEAVY_ENTRIES)) {
  if (!(name in heavyEntries)) process.stderr.write(`build: ${file} is missing; \`corral ${name}\` will fail\n`);
}

const cli = {
  ...common,
  format: 'cjs',
  // yargs' ESM shim reads import.meta.url, which CommonJS output lacks.
  define: { 'import.meta.url': '__corral_import_meta_url' },
  banner: { js: "var __corral_import_meta_url = require('node:url').pathToFileURL(__filename).href;" },
};

const [, cliResult, , , , clientResult] = await Promise.all([
  Object.keys(heavyEntries).length === 0
    ? undefined
    : build({
    ...common,
    entryPoints: heavyEntries,
    outdir: 'dist',
    format: 'esm',
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    external: [...EXTERNAL, ...WS_OPTIONAL],
    // Bundled CommonJS dependencies (json-rpc-2.0, @xterm/headless) may call require().
    banner: { js: "import { createRequire as __corralCreateRequire } from 'node:module';\nconst require = __corralCreateRequire(import.meta.url);" },
  }),
  build({
    ...cli,
    entryPoints: ['src/cli/main.ts'],
    outfile: 'dist/cli.cjs',
    metafile: true,
    plugins: [lightShims, redirect('heavy', /^\.\.\/heavy\.js$/, /[\\/]src[\\/]cli[\\/]/, './heavy.cjs')],
  }),
  build({
    ...cli,
    entryPoints: ['src/cli/heavy.ts'],
    outfile: 'dist/heavy.cjs',
    plugins: [
      redirect('server', /^\.\.\/server\/run-server\.js$/, /heavy\.ts$/, './server.js'),
      redirect('web', /^\.\.\/web\/run-web\.js$/, /heavy\.ts$/, './web.js'),
      redirect('mcp', /^\.\.\/mcp\/run-mcp\.js$/, /heavy\.ts$/, './mcp.js'),
    ],
  }),
  build({ ...cli, entryPoints: ['src/cli/boot.ts'], outfile: 'dist/boot.cjs', minify: false, sourcemap: false, external: ['./fast.cjs', './client.cjs'] }),
  // The fast path for `ps`/`status` (src/cli/fast-path.ts): small enough to need no code cache.
  build({ ...cli, entryPoints: ['src/cli/fast-path.ts'], outfile: 'dist/fast.cjs', metafile: true, plugins: [lightShims] }),
  // The thin client (src/client/): `corral` and `corral attach` without yargs.
  build({ ...cli, entryPoints: ['src/client/client-main.ts'], outfile: 'dist/client.cjs', metafile: true }),
  // The web view's page: one script for the browser (xterm.js included) and its styles beside it.
  build({
    absWorkingDir: root,
    entryPoints: { app: 'src/web/page/main.ts' },
    outdir: 'dist/web',
    bundle: true,
    platform: 'browser',
    format: 'iife',
    target: ['chrome110', 'firefox110', 'safari16'],
    minify: true,
    sourcemap: false,
    logLevel: 'warning',
  }),
]);
assertLeanCli(cliResult.metafile);
assertLeanCli(clientResult.metafile);

// Warm-up: one `ps` against no server writes dist/cli.cjs.cache with everything that path compiles.
try {
  execFileSync(process.execPath, [path.join(root, 'bin/corral.cjs'), 'ps', '--json', '--socket', path.join(root, 'dist/.no-server.sock')], {
    stdio: 'ignore',
  });
} catch {
  // Expected: exit 1, server_not_running. The cache is written on exit regardless.
}
if (!existsSync(path.join(root, 'dist/cli.cjs.cache'))) throw new Error('build: the CLI code cache was not written');

if (!process.env.CORRAL_BUILD_QUIET) {
  process.stderr.write(`built dist/ in ${Math.round(performance.now() - started)} ms\n`);
}
