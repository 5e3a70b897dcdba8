/**
 * `corral machine install NAME` (SPEC §14): this very version of corral, copied over the
 * machine's own ssh into `~/.local/share/corral/<version>/` — the built bundle, the rules, and
 * the packages it loads at run time with their compiled addons (no sources, no build leftovers,
 * nothing only the build needs), found from the dependencies as Node finds them, so a checkout
 * and an npm install copy the same.
 * Checked first on the far side: node ≥ 20.19, and the same CPU architecture and Node ABI as
 * here, because the addons (node-pty, re2, corral's own) are compiled for this machine. A
 * remote that differs gets a clear error and nothing is copied: install corral there with npm.
 */
import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { CorralError } from '../contract/protocol.js';
import { packageRoot } from '../package-root.js';
import { atLeast, MIN_NODE, VERSION } from '../version.js';
import type { MachineEntry } from './machine-config.js';
import { linkOptions } from './ssh-command.js';

const run = promisify(execFile);

/** What the bundle holds besides the production packages, relative to the package root. */
const BUNDLE = ['package.json', 'bin', 'dist', 'assets', 'native/build/Release/peer_cred.node'] as const;

/**
 * Left out of the copy: compiler leftovers, the vendored sources of the native packages, and
 * node-pty's prebuilt binaries for other systems (it loads the one built here).
 */
const EXCLUDE = ['*/obj.target', '*/.deps', '*.o', '*.a', '*.pdb', 'node_modules/re2/vendor', 'node_modules/node-pty/deps', 'node_modules/node-pty/src', 'node_modules/node-pty/prebuilds', 'node_modules/node-pty/third_party', 'node_modules/better-sqlite3/deps', 'node_modules/better-sqlite3/src', '*/Release/obj', '*/test_extension.node'];

/** Needed to build the native addons, never to run them: left out of the copy. */
const BUILD_ONLY: ReadonlySet<string> = new Set(['node-gyp', 'nan', 'install-artifact-from-github', 'prebuild-install']);

/** The folder of package `name` as Node would find it from `fromDir`: the nearest node_modules going up. */
function findPackage(name: string, fromDir: string): string | null {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (existsSync(path.join(candidate, 'package.json'))) return candidate;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * The folders of the packages corral loads at run time: its dependencies and theirs, found the
 * way Node finds them, so the same walk serves a checkout and an installed package (whose
 * dependencies npm may have put beside it rather than inside it). An optional dependency that
 * is not installed is skipped. A folder inside another one listed is left to that one's copy.
 */
export function runtimePackages(root: string): string[] {
  const found = new Set<string>();
  const queue = [root];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    for (const name of Object.keys({ ...manifest.dependencies, ...manifest.optionalDependencies })) {
      if (BUILD_ONLY.has(name)) continue;
      const pkg = findPackage(name, dir);
      if (pkg === null || found.has(pkg)) continue;
      found.add(pkg);
      queue.push(pkg);
    }
  }
  const dirs = [...found].sort();
  return dirs.filter((dir) => !dirs.some((other) => other !== dir && dir.startsWith(`${other}${path.sep}`)));
}

/**
 * tar arguments that put each package folder under `node_modules/` on the far side: `-C BASE
 * REL` pairs, BASE the folder holding the outermost node_modules on the way to it.
 */
export function packageTarArgs(root: string, dirs: readonly string[]): string[] {
  const args: string[] = [];
  for (const dir of dirs) {
    const rel = path.relative(root, dir);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) {
      args.push('-C', root, rel);
      continue;
    }
    const at = dir.indexOf(`${path.sep}node_modules${path.sep}`);
    args.push('-C', dir.slice(0, at), dir.slice(at + 1));
  }
  return args;
}

export interface InstallResult {
  machine: string;
  version: string;
  /** Where it went on the far side. */
  path: string;
  /** The remote command links now run (saved as the machine's `corral`). */
  command: string;
  bytes: number;
}

/** The remote's Node version, architecture and module ABI, in one ssh round trip. */
async function remoteFacts(entry: MachineEntry, ssh: string[]): Promise<{ node: string; arch: string; abi: string }> {
  const probe = `node -e 'process.stdout.write(JSON.stringify({node:process.versions.node,arch:process.arch,abi:process.versions.modules}))'`;
  try {
    const { stdout } = await run(ssh[0]!, [...ssh.slice(1), entry.target, probe], { timeout: 20_000 });
    return JSON.parse(stdout) as { node: string; arch: string; abi: string };
  } catch (error) {
    const text = `${(error as { stderr?: string }).stderr ?? ''}`;
    if (/node: (command )?not found|No such file/.test(text)) throw new CorralError('machine_unreachable', `${entry.target} has no node on its PATH: install Node.js ${MIN_NODE.join('.')} or newer there first`);
    throw new CorralError('machine_unreachable', `cannot ask ${entry.target} for its node version: ${text.trim().split('\n').pop() ?? (error as Error).message}`);
  }
}

export async function installMachine(entry: MachineEntry, program: readonly string[], runtimeDir: string): Promise<InstallResult> {
  const ssh = [...program, ...linkOptions(runtimeDir)];
  const facts = await remoteFacts(entry, ssh);
  if (!atLeast(facts.node, MIN_NODE)) throw new CorralError('invalid_params', `${entry.target} runs node ${facts.node}; corral needs ${MIN_NODE.join('.')} or newer`);
  if (facts.arch !== process.arch || facts.abi !== process.versions.modules) {
    throw new CorralError(
      'invalid_params',
      `${entry.target} runs node ${facts.node} on ${facts.arch} (module ABI ${facts.abi}); this corral's compiled parts are for ${process.arch} (ABI ${process.versions.modules}): install corral there with npm instead`,
    );
  }
  const root = packageRoot();
  const parts = BUNDLE.filter((part) => existsSync(path.join(root, part)));
  const dir = `.local/share/corral/${VERSION}`;
  // A fixed command line: the version is corral's own ([0-9.] and letters), nothing from input.
  const unpack = `mkdir -p ~/${dir} && tar -xzf - -C ~/${dir} && echo ok`;
  const packages = packageTarArgs(root, runtimePackages(root));
  const tar = spawn('tar', ['-czf', '-', ...EXCLUDE.map((pattern) => `--exclude=${pattern}`), '-C', root, ...parts, ...packages], { stdio: ['ignore', 'pipe', 'pipe'] });
  const remote = spawn(ssh[0]!, [...ssh.slice(1), entry.target, unpack], { stdio: ['pipe', 'pipe', 'pipe'] });
  let bytes = 0;
  tar.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  tar.stdout.pipe(remote.stdin);
  let stdout = '';
  let stderr = '';
  remote.stdout.on('data', (chunk) => (stdout += chunk));
  remote.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
  tar.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4096)));
  const [tarCode, remoteCode] = await Promise.all([
    new Promise<number | null>((resolve) => tar.once('exit', resolve)),
    new Promise<number | null>((resolve) => remote.once('exit', resolve)),
  ]);
  if (tarCode !== 0 || remoteCode !== 0 || !stdout.includes('ok')) {
    throw new CorralError('internal_error', `copying corral to ${entry.target} failed (tar ${tarCode}, ssh ${remoteCode}): ${stderr.trim().split('\n').pop() ?? ''}`);
  }
  return { machine: entry.name, version: VERSION, path: `~/${dir}`, command: `~/${dir}/bin/corral.cjs`, bytes };
}
