#!/usr/bin/env node
/**
 * Writes docs/methods.md from the method table (src/contract/methods.ts); see
 * scripts/methods-doc.ts. `--check` writes nothing and exits 1 when the file is out of date.
 *
 *   node scripts/gen-methods-doc.mjs [--check]
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const target = path.join(root, 'docs', 'methods.md');
// The renderer is TypeScript that imports the contract: bundled into dist/ (which resolves
// `typescript` from node_modules) and loaded from there.
const outfile = path.join(root, 'dist', 'gen', 'methods-doc.mjs');
await build({
  absWorkingDir: root,
  entryPoints: ['scripts/methods-doc.ts'],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile,
  external: ['typescript'],
  logLevel: 'warning',
});
const { renderMethodsDoc } = await import(pathToFileURL(outfile).href);
const text = renderMethodsDoc(root);
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // Missing counts as out of date.
  }
  if (current !== text) {
    process.stderr.write('docs/methods.md is out of date: run node scripts/gen-methods-doc.mjs\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${path.relative(root, target)}\n`);
}
