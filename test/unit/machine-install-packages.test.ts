/**
 * `machine install` copies the packages corral loads at run time, found by walking the
 * dependencies as Node resolves them — in a checkout and in an npm install, where npm may put
 * a dependency beside corral rather than inside it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageTarArgs, runtimePackages } from '../../src/machines/machine-install.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function pkg(dir: string, deps: Record<string, string> = {}, optional: Record<string, string> = {}): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir), dependencies: deps, optionalDependencies: optional }));
}

describe('runtimePackages', () => {
  it('follows dependencies as Node finds them: nested, hoisted beside the package, optional ones only when installed; build-only left out', () => {
    const top = mkdtempSync(path.join(tmpdir(), 'corral-pkgs-'));
    dirs.push(top);
    // A project that installed corral: npm hoisted b and d next to corral, kept c nested in a.
    const root = path.join(top, 'node_modules', 'corral');
    pkg(root, { a: '1', b: '1', 'node-gyp': '12' }, { missing: '1' });
    pkg(path.join(root, 'node_modules', 'a'), { c: '1', b: '1' });
    pkg(path.join(root, 'node_modules', 'a', 'node_modules', 'c'), { d: '1' });
    pkg(path.join(top, 'node_modules', 'b'));
    pkg(path.join(top, 'node_modules', 'd'));
    pkg(path.join(root, 'node_modules', 'node-gyp'), { e: '1' });
    pkg(path.join(root, 'node_modules', 'e'));
    pkg(path.join(root, 'node_modules', 'dev-only'));

    const found = runtimePackages(root);
    // c lives inside a and travels with it; node-gyp and what only it needs (e) stay behind.
    expect(found.map((dir) => path.relative(top, dir)).sort()).toEqual(['node_modules/b', 'node_modules/corral/node_modules/a', 'node_modules/d']);

    const args = packageTarArgs(root, found);
    expect(args).toEqual(['-C', path.join(top), 'node_modules/b', '-C', root, 'node_modules/a', '-C', path.join(top), 'node_modules/d']);
  });

  it("a checkout's walk holds the runtime packages and none of the dev tools", () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const names = runtimePackages(root).map((dir) => path.relative(path.join(root, 'node_modules'), dir));
    for (const name of ['node-pty', 're2', 'better-sqlite3', 'ink', 'react']) expect(names).toContain(name);
    // Bundled into dist/ by the build (yargs, xterm, the MCP SDK, …), or only for building and testing.
    for (const name of ['vitest', 'esbuild', 'typescript', 'node-gyp', 'nan', 'playwright-core', 'yargs', '@xterm/headless', '@modelcontextprotocol/sdk']) expect(names).not.toContain(name);
  });
});
