/**
 * `npm install -g` of corral's tarball as the package test and bench run it (test/package,
 * bench/package.mjs; scripts/smoke-installed.sh does the same in the shell): the command line,
 * the environment of a fresh HOME, and install-time shortcuts for a machine that already built
 * the native parts.
 *
 * The shortcuts: re2's and better-sqlite3's install scripts each take a
 * prebuilt binary from a place their own settings name — re2's RE2_DOWNLOAD_MIRROR, for machines
 * that cannot reach its download host, and prebuild-install's local prebuilds folder — instead
 * of compiling their C++ again (a minute and a half each on two cores). The binaries are this
 * checkout's. node-pty and corral's own addon still compile.
 */
import { execFileSync } from 'node:child_process';

import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Packages whose install scripts build corral's native parts (npm's install-script allow list). */
export const ALLOW_SCRIPTS = 'corral,node-pty,re2,better-sqlite3';

/** The arguments of `npm install -g` of `tarball` into `prefix`, npm's cache used as it is. */
export function installArgs(prefix, tarball) {
  return ['install', '--global', '--prefer-offline', '--prefix', prefix, `--allow-scripts=${ALLOW_SCRIPTS}`, tarball];
}

/**
 * The machine's npm settings with a fresh HOME: its global config named outright (`--prefix`
 * would move npm's search for it into the new prefix, losing a registry or CA file set there),
 * its user config (`nodedir`, for building addons offline) and its cache, warm from this
 * checkout's own install, so the registry is not asked again.
 */
export function freshHomeNpmEnv(home) {
  const get = (key) => execFileSync('npm', ['config', 'get', key], { encoding: 'utf8' }).trim();
  return {
    ...process.env,
    HOME: home,
    npm_config_globalconfig: get('globalconfig'),
    npm_config_userconfig: get('userconfig'),
    npm_config_cache: get('cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
}

/** Lays the two mirrors out under `dir`; returns the environment that points the installs at them. */
export function prebuiltMirrorEnv(root, dir) {
  const platform = `${process.platform}-${process.arch}`;
  const re2 = path.join(dir, 're2-mirror');
  mkdirSync(re2, { recursive: true });
  copyFileSync(path.join(root, 'node_modules', 're2', 'build', 'Release', 're2.node'), path.join(re2, `${platform}-${process.versions.modules}`));
  const sqlite = path.join(dir, 'sqlite-prebuilds');
  mkdirSync(sqlite, { recursive: true });
  const sqlitePackage = path.join(root, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(readFileSync(path.join(sqlitePackage, 'package.json'), 'utf8'));
  const archive = path.join(sqlite, `better-sqlite3-v${version}-node-v${process.versions.modules}-${platform}.tar.gz`);
  execFileSync('tar', ['-czf', archive, '-C', sqlitePackage, 'build/Release/better_sqlite3.node']);
  return {
    RE2_DOWNLOAD_MIRROR: re2,
    RE2_DOWNLOAD_SKIP_PATH: '1',
    RE2_DOWNLOAD_SKIP_VER: '1',
    npm_config_better_sqlite3_local_prebuilds: sqlite,
  };
}
