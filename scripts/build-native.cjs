#!/usr/bin/env node
/**
 * Builds corral's one native addon of its own (native/peer_cred.c → native/build/Release/
 * peer_cred.node) with node-gyp, as node-pty builds its own.
 *
 * Two callers:
 * - npm, as the package's `install` script (SPEC §17: it builds at install time, so npm's
 *   install-script allow list names it as `corral`). A failure there must not fail the whole
 *   install: corral runs without the addon, less well, and `corral doctor` says what is missing
 *   and why, from the reason written to native/build-error.txt.
 * - scripts/build.mjs in a checkout (`npm run build`), where a failure is an error.
 *
 * Node's headers: npm's `nodedir` when npm runs this, else the ones beside the running node
 * (Debian's nodejs puts them in /usr/include/node); node-gyp would download them otherwise,
 * which a machine without internet access cannot do.
 */
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, rmSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const ADDON = path.join('native', 'build', 'Release', 'peer_cred.node');
/** Why the install-time build failed, for `corral doctor` (relative to the package root). */
const BUILD_ERROR = path.join('native', 'build-error.txt');
const SOURCES = ['peer_cred.c', 'binding.gyp'];

/** The node-gyp to run: the package's own (a dependency of re2), else npm's, else PATH's. */
function nodeGypCommand(root) {
  try {
    return [process.execPath, require.resolve('node-gyp/bin/node-gyp.js', { paths: [root] })];
  } catch {
    const npmGyp = process.env.npm_config_node_gyp;
    if (npmGyp && existsSync(npmGyp)) return [process.execPath, npmGyp];
    return ['node-gyp'];
  }
}

function headersDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = path.dirname(path.dirname(process.execPath));
  return existsSync(path.join(prefix, 'include', 'node', 'node_api.h')) ? prefix : '';
}

/** True when the addon exists and is newer than its sources. */
function upToDate(root) {
  const addon = path.join(root, ADDON);
  if (!existsSync(addon)) return false;
  const built = statSync(addon).mtimeMs;
  return SOURCES.every((file) => statSync(path.join(root, 'native', file)).mtimeMs <= built);
}

/**
 * Builds the addon when missing or older than its source. Throws with node-gyp's last lines
 * when it cannot be built.
 */
function buildNative(root) {
  if (upToDate(root)) return;
  const [command, ...prefixArgs] = nodeGypCommand(root);
  const nodedir = headersDir();
  const args = [...prefixArgs, 'rebuild', '--directory', path.join(root, 'native'), ...(nodedir ? [`--nodedir=${nodedir}`] : [])];
  try {
    execFileSync(command, args, { stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  } catch (error) {
    const stderr = String(error.stderr ?? '').trim().split('\n').filter((line) => /ERR!|error/i.test(line)).slice(-6).join('\n');
    throw new Error(`node-gyp could not build ${ADDON}: ${stderr || error.message}`);
  }
  if (!existsSync(path.join(root, ADDON))) throw new Error(`node-gyp did not produce ${ADDON}`);
}

module.exports = { buildNative, ADDON, BUILD_ERROR };

if (require.main === module) {
  // Run by npm at install: never fail the install, leave the reason for `corral doctor`.
  const root = path.resolve(__dirname, '..');
  rmSync(path.join(root, BUILD_ERROR), { force: true });
  try {
    buildNative(root);
  } catch (error) {
    const reason = error.message;
    try {
      writeFileSync(path.join(root, BUILD_ERROR), `${reason}\n`);
    } catch {
      // A read-only package: doctor still sees that the addon is missing.
    }
    process.stderr.write(`corral: ${reason}\ncorral runs without it; \`corral doctor\` says what that costs.\n`);
  }
}
