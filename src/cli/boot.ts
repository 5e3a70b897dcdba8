/**
 * Starts the CLI bundle (dist/cli.cjs) from a V8 code cache (dist/cli.cjs.cache).
 *
 * Why: `corral ps` runs in agent loops and must start within 1.5× of `node -e 0`. Compiling
 * yargs and the CLI on every start was ~10 ms of a ~30 ms budget, and Node 20 has no compile
 * cache for ES modules (module.enableCompileCache is Node 22), so the CLI ships as CommonJS
 * run through vm.Script with cachedData. The build writes the cache; if this Node rejects it
 * (another V8 version or flags), the first run rewrites it, and any failure to write is ignored.
 * Code run from a cache must not call import() (Node 20 drops the dynamic-import callback for
 * cached scripts), which is why the server and TUI are loaded through dist/heavy.cjs.
 * Built as CommonJS (dist/boot.cjs), hence `__dirname`.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';

// The hot read-only verbs, and `pane run` / `pane wait-output` in a script's plain shapes, skip
// yargs entirely (see src/cli/fast-path.ts); the rest load the full CLI.
const FAST_VERBS = new Set(['ps', 'status', 'pane']);
const args = process.argv.slice(2);
// `corral` and `corral attach` (with at most --session/--socket) start the thin client directly.
if (args.length === 0 || args[0] === 'attach' || args[0] === '--session' || args[0] === '--socket' || /^--(session|socket)=/.test(args[0] ?? '')) {
  const client: { clientMain(args: string[]): Promise<boolean> } = require('./client.cjs');
  void client.clientMain(args).then((handled) => {
    if (!handled) runFullCli();
  });
} else if (FAST_VERBS.has(args[0] ?? '')) {
  const fast: { fastMain(args: string[]): Promise<boolean> } = require('./fast.cjs');
  void fast.fastMain(args).then((handled) => {
    if (!handled) runFullCli();
  });
} else {
  runFullCli();
}

function runFullCli(): void {
const bundle = path.join(__dirname, 'cli.cjs');
const cacheFile = `${bundle}.cache`;

let cachedData: Buffer | undefined;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}

const wrapper = `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, 'utf8')}\n})`;
const script = new vm.Script(wrapper, { filename: bundle, cachedData });
const cliModule: { exports: { main?: () => Promise<void> } } = { exports: {} };
script.runInThisContext()(cliModule.exports, createRequire(bundle), cliModule, bundle, __dirname);

if (cachedData === undefined || script.cachedDataRejected) {
  // At exit the cache also holds every function this run compiled lazily.
  process.once('exit', () => {
    try {
      const temp = `${cacheFile}.${process.pid}`;
      writeFileSync(temp, script.createCachedData());
      renameSync(temp, cacheFile);
    } catch {
      // A read-only install just runs without the cache.
    }
  });
}

void cliModule.exports.main?.();
}
